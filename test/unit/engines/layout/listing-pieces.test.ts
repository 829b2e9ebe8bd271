import { describe, expect, it } from 'vitest';
import { markdownOf, paragraph, run } from './page-fixtures.js';

const mono = { fontName: 'Courier', monospace: true };
/** Body text below the listing (a page set all in a monospace font is not code). */
const prose = paragraph(72, 400, 6);
/** The Markdown of the page up to the end of its first fenced block. */
const firstFence = (markdown: string): string => markdown.slice(0, markdown.indexOf('```', 3) + 3);

describe('a listing with blank lines', () => {
  it('is one code block, its blank lines and indents kept', () => {
    // Arrange: three groups of lines set apart by a blank line each, the middle one indented.
    const runs = [
      run('RETURN', 72, 100, mono),
      run('CASE', 72, 112, mono),
      run("WHEN GROUP ( 'HR' ) = 1", 92, 136, mono),
      run('THEN EMPLOYEES . TAX_ID', 92, 148, mono),
      run('ELSE NULL', 92, 172, mono),
      run('END', 72, 184, mono),
    ];
    // Act
    const markdown = firstFence(markdownOf([...runs, ...prose]));
    // Assert
    expect(markdown).toBe(
      [
        '```',
        'RETURN',
        'CASE',
        '',
        "    WHEN GROUP ( 'HR' ) = 1",
        '    THEN EMPLOYEES . TAX_ID',
        '',
        '    ELSE NULL',
        'END',
        '```',
      ].join('\n'),
    );
  });

  it('keeps the end of a line set far right on its line', () => {
    // Arrange: the line's last operator stands 8 em right of the rest.
    const runs = [
      run("THEN ( 9999 || '-' ||", 72, 100, mono),
      run('||', 72 + 29 * 5, 100, mono),
      run('ELSE NULL', 72, 112, mono),
      run('END', 72, 124, mono),
    ];
    // Act
    const markdown = firstFence(markdownOf([...runs, ...prose]));
    // Assert
    expect(markdown).toBe(
      ['```', "THEN ( 9999 || '-' ||        ||", 'ELSE NULL', 'END', '```'].join('\n'),
    );
  });
});
