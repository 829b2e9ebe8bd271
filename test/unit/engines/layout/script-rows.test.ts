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

  it('keeps an exponent set in two pieces (the sign, then the digit) with its base', () => {
    // Arrange: as on a TeX page, "10^-3 cm^-3": each exponent's minus touches its base, and its
    // 3 touches only the minus (over half an em from the base); the exponents sit 4 px up and
    // are read before their line.
    const size = { fontSize: 10.9, h: 9.7 };
    const script = (text: string, x: number, w: number) =>
      run(text, x, 319.1, { fontSize: 8, w, y: 313.1, h: 7.5 });
    const runs = [
      run('Before it, the text of the paragraph goes on here.', 72, 309.5, size),
      run('termine that the gas density drops from 3 ', 72, 323.1, { ...size, w: 380 }),
      run('10', 452.3, 323.1, { ...size, w: 10.9 }),
      script('-', 463.2, 6.6),
      script('3', 469.8, 4.2),
      run('cm', 478.7, 323.1, { ...size, w: 13.9 }),
      script('-', 492.7, 6.6),
      script('3', 499.3, 4.2),
      run('to a lower density further out in the halo.', 72, 336.6, size),
    ];
    // Act
    const markdown = layout(runs);
    // Assert
    expect(markdown).toContain('10<sup>-3</sup>');
    expect(markdown).toContain('cm<sup>-3</sup>');
    expect(markdown).not.toMatch(/(^|\s)3\s*$|^3 /m);
  });
});
