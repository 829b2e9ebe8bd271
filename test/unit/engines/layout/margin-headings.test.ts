import { describe, expect, it } from 'vitest';
import { markdownOf, paragraph, run } from './page-fixtures.js';

describe('a heading set in the left margin', () => {
  it('is read in its place between the paragraphs, not before them', () => {
    // Arrange: the chapter title spans the margin and the text; the section heading hangs in the
    // margin, in the gap between two paragraphs of the text column.
    const runs = [
      run('Preface', 40, 60, { fontSize: 24, bold: true }),
      ...paragraph(130, 100, 4, 'the preface text'),
      run('Authors', 40, 170, { fontSize: 14, bold: true }),
      ...paragraph(130, 200, 3, 'the authors text'),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    const order = ['# Preface', 'Line 0 of the preface', '## Authors', 'Line 0 of the authors'].map(
      (s) => markdown.indexOf(s),
    );
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual(order.slice().sort((a, b) => a - b));
  });

  it('still reads a column of short lines beside the text as a column of its own', () => {
    // Arrange: a sidebar of names whose lines stand beside the text's lines.
    const names = ['Jim Bainbridge', 'Hernando Bedoya', 'Rob Bestgen'];
    const runs = [
      ...names.map((n, i) => run(n, 40, 100 + i * 12)),
      ...paragraph(200, 100, 3, 'the main text'),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown.indexOf('Rob Bestgen')).toBeLessThan(markdown.indexOf('Line 0 of the main'));
  });
});
