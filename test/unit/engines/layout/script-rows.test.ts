import { describe, expect, it } from 'vitest';
import type { TextRun } from '../../../../functions/engines/layout/types.js';
import { markdownOf, run } from './page-fixtures.js';

const layout = (runs: TextRun[]): string => markdownOf(runs);

/** A line of words ending in `base`, an exponent, then `after`: the exponent 4 px above. */
const withExponent = (x: number, baseline: number, head: string, exp: string, after: string) => {
  const a = run(head, x, baseline);
  const e = run(exp, a.x + a.w, baseline - 4, { fontSize: 8 });
  return [a, e, run(after, e.x + e.w + 3, baseline)];
};

describe('rows of superscripts', () => {
  it("keeps each column's exponent with its base when the other column's line shares its baseline", () => {
    // Arrange: two columns of three lines; the left column's second line carries an exponent
    // 4 px up (read before the line), and the right column's second line, 3.5 px lower, has an
    // exponent whose baseline is the left line's.
    const runs: TextRun[] = [];
    for (const [k, y] of [100, 124].entries()) {
      runs.push(run(`Left column line ${String(k)} of some body text here.`, 50, y));
      runs.push(run(`Right column line ${String(k)} of some body text.`, 330, y + 3.5));
    }
    runs.push(...withExponent(50, 112, 'given by s(t) = -16t', '2', '+ 560t here and there.'));
    runs.push(...withExponent(330, 115.5, 'The position s(t) = t', '3', '- 8t gives the value.'));
    // Act
    const markdown = layout(runs);
    // Assert
    expect(markdown).toContain('s(t) = -16t<sup>2</sup> + 560t here and there.');
    expect(markdown).toContain('The position s(t) = t<sup>3</sup> - 8t gives the value.');
    expect(markdown).not.toMatch(/^[23]$/m);
  });
});
