import { describe, expect, it } from 'vitest';
import { markdownOf, run } from './page-fixtures.js';

const items = ['Database performance and scalability', 'Advanced SQL knowledge', 'DB2 Web Query'];

describe('bullets drawn with a letter of a symbol font', () => {
  it('reads a column of small letter markers before the items as bullets', () => {
    // Arrange: the text layer maps the box bullet to `r` (and a control character).
    const runs = [
      run('Global engagements cover topics including:', 72, 88),
      ...items.flatMap((text, i) => [
        run('r\u0001 ', 72, 100 + i * 12, { fontSize: 7, w: 4, fontName: 'ABCDEF+Janson-Roman' }),
        run(text, 82, 100 + i * 12, { fontName: 'Janson-Roman' }),
      ]),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toBe(
      ['Global engagements cover topics including:', '', ...items.flatMap((t) => [`- ${t}`, ''])]
        .join('\n')
        .trim(),
    );
  });

  it('reads a letter of a dingbat font opening a line as a bullet', () => {
    // Arrange
    const runs = [
      run('n', 72, 100, { fontName: 'ZapfDingbats' }),
      run('Enhance the performance of your database operations', 84, 100),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toBe('- Enhance the performance of your database operations');
  });

  it('keeps a variable in a math font that opens aligned lines', () => {
    // Arrange
    const runs = ['is the input', 'is the output', 'is the state'].flatMap((text, i) => [
      run('x', 72, 100 + i * 12, { fontName: 'CMMI10', italic: true }),
      run(text, 80, 100 + i * 12, { fontName: 'CMR10' }),
    ]);
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).not.toContain('- ');
    expect(markdown).toContain('is the input');
  });
});
