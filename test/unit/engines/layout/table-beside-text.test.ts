import { describe, expect, it } from 'vitest';
import type { Segment } from '../../../../functions/engines/layout/types.js';
import { markdownOf, run } from './page-fixtures.js';

const h = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });

/** The left column of a two-column page, opening mid-sentence at the top of the page. */
const LEFT = [
  'in order to compute the score, and the',
  'timing results for all experiments were',
  'obtained from the same machine on a single',
  'core with the same settings for every run.',
  'We have chosen the data set to perform the',
  'search, since it includes diverse tables.',
];

describe('a table at the top of a column', () => {
  it('leaves the body line beside its header row in the body text of the other column', () => {
    // Arrange: booktabs rules over the right column only; the left column's first line shares
    // the baseline of the table's header row.
    const runs = [
      ...LEFT.map((text, i) => run(text, 50, 72 + i * 12)),
      ...[
        ['Model', 'Params', 'Score'],
        ['Base', '110M', '81.2'],
        ['Large', '340M', '84.6'],
        ['Huge', '1.2B', '86.0'],
      ].flatMap((cells, r) =>
        cells.map((text, c) => run(text, [320, 410, 490][c] ?? 0, 72 + r * 14)),
      ),
      run('The results in the table above show that', 320, 140),
      run('the larger model is better on every metric.', 320, 152),
    ];
    const rules = [h(62, 315, 540), h(76, 315, 540), h(118, 315, 540)];
    // Act
    const markdown = markdownOf(runs, { rules });
    // Assert: the page opens with the whole left column; the table holds its own cells only.
    expect(markdown.startsWith(`${LEFT.join(' ')}\n\n`)).toBe(true);
    const table = markdown.split('\n').filter((line) => line.startsWith('|'));
    expect(table).toEqual([
      '| Model | Params | Score |',
      '| --- | --- | --- |',
      '| Base | 110M | 81.2 |',
      '| Large | 340M | 84.6 |',
      '| Huge | 1.2B | 86.0 |',
    ]);
  });
});
