import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, TextRun } from '../../../../functions/engines/layout/types.js';
import { run as fixtureRun, page, SIZE } from './page-fixtures.js';

/** A run of text at (x, baseline) in a 72 DPI page, 5 px per character of a 10 px font. */
const run = (text: string, x: number, baseline: number, size = SIZE): TextRun =>
  fixtureRun(text, x, baseline, { fontSize: size });

/** Lines of 46 characters (230 px) set from `x`, 12 px apart from `baseline` down. */
const column = (x: number, baseline: number, lines: string[]): TextRun[] =>
  lines.map((t, i) => run(t.padEnd(46, ' ').slice(0, 46), x, baseline + i * 12));

const filler = (n: number, word: string): string[] =>
  Array.from({ length: n }, (_, i) => `${word} line ${String(i)} of a column set in full meas`);

const layout = (p: PageText) => layoutPage(p, buildLayoutProfile([p])).markdown;

describe('a two-column page with floats', () => {
  it('joins a paragraph broken at the column end over a caption at the top of the next', () => {
    // Arrange: the left column ends mid-sentence at its right edge; the right column opens
    // with a table caption, then the sentence goes on.
    const runs = [
      ...column(56, 100, [...filler(8, 'Left'), 'Table 1 compares the two methods evaluated acr']),
      run('oss', 286, 196),
      ...column(326, 100, ['Table 1: Accuracy of the two methods compared.']),
      ...column(326, 130, [
        'the three models, with a gain on each of them.',
        ...filler(6, 'Right'),
      ]),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown).toMatch(/evaluated across the three models/);
    expect(markdown.indexOf('Table 1: Accuracy')).toBeGreaterThan(markdown.indexOf('across'));
  });

  it('puts a footnote closing the left column after the right column', () => {
    // Arrange: a footnote with a raised marker at the foot of the left column.
    const runs = [
      ...column(56, 100, [...filler(9, 'Left'), 'The left column ends here with a full stop.']),
      run('1', 56, 700, 6),
      run('Our code is available online.', 60, 704, 8),
      ...column(326, 100, filler(10, 'Right')),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown.trim()).toMatch(/<sup>1<\/sup>\s?Our code is available online\.$/);
    expect(markdown.indexOf('Our code')).toBeGreaterThan(markdown.indexOf('Right line 9'));
  });

  it('leaves a paragraph opening in italics at the foot of the left column in place', () => {
    // Arrange: an italic label opens the left column's last paragraph, low on the page.
    const runs = [
      ...column(56, 100, [...filler(9, 'Left'), 'The left column ends here with a full stop.']),
      { ...run('Section 6.2:', 56, 700), italic: true },
      run('the data are prices.', 120, 700),
      ...column(326, 100, filler(10, 'Right')),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown.indexOf('Section 6.2')).toBeGreaterThan(0);
    expect(markdown.indexOf('Section 6.2')).toBeLessThan(markdown.indexOf('Right line 0'));
  });
});
