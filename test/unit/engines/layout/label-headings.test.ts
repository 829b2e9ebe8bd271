import { describe, expect, it } from 'vitest';
import { markdownOf, paragraph, run } from './page-fixtures.js';

describe('large bold lines that head nothing', () => {
  it('reads a column of bold blurbs beside the text as plain lines', () => {
    // Arrange: three bold blurbs one under the other in a narrow left column, the text in a
    // column of its own on the right.
    const blurb = { fontSize: 12, bold: true };
    const runs = [
      run('Implement roles and', 40, 100, blurb),
      run('separation of duties', 40, 114, blurb),
      run('Leverage row', 40, 150, blurb),
      run('permissions', 40, 164, blurb),
      run('Protect columns by', 40, 200, blurb),
      run('defining masks', 40, 214, blurb),
      ...paragraph(200, 100, 10, 'the abstract'),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).not.toMatch(/^#/m);
    expect(markdown).toContain('Implement roles and separation of duties');
  });

  it('keeps headings that head text in their column', () => {
    // Arrange
    const heading = { fontSize: 12, bold: true };
    const runs = [
      run('Who we are', 40, 100, heading),
      ...paragraph(40, 118, 2, 'the first part'),
      run('What we do', 40, 160, heading),
      ...paragraph(40, 178, 2, 'the second part'),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toMatch(/^#+ Who we are$/m);
    expect(markdown).toMatch(/^#+ What we do$/m);
  });

  it('keeps headings set one under the other at the end of a page, with no text beside them', () => {
    // Arrange
    const heading = { fontSize: 12, bold: true };
    const runs = [
      ...paragraph(40, 100, 3, 'the table notes'),
      run('Rated Continuous Working Voltage', 40, 160, heading),
      run('Storage Temperature and Humidity', 40, 184, heading),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toMatch(/^#+ Rated Continuous Working Voltage$/m);
    expect(markdown).toMatch(/^#+ Storage Temperature and Humidity$/m);
  });
});
