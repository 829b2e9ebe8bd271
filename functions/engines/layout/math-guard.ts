import type { TextRun } from './types.js';
import { visibleLength } from './white-space.js';

/**
 * Math fonts by name: TeX math italic, symbols and extensions (`CMMI10`, `CMSY7`, `CMEX10`, the
 * AMS `MSAM`/`MSBM`, `EUFM`, `RSFS`), and any font called *Math or Symbol (`STIXMath`,
 * `CambriaMath`, `Symbol`).
 */
const MATH_FONT =
  /(?:^|\+)(?:cmmi|cmsy|cmex|cmbsy|cmmib|msbm|msam|eufm|eurm|rsfs|esint|stmary|wasy)|math|symbol/i;

/** Share of math-font characters above which aligned text is a formula, not a table. */
const MATH_SHARE = 0.15;

/**
 * Whether runs that line up like a table are a formula: a display equation's fraction bars,
 * radicals and stacked limits give it rules and aligned gaps, but a good share of its characters
 * are set in math fonts, which a table's cells (numbers and words, even with a symbol or two)
 * are not. Runs without font names (OCR words) are never math here.
 */
export const isMathLike = (runs: readonly TextRun[]): boolean => {
  let all = 0;
  let math = 0;
  for (const r of runs) {
    const n = visibleLength(r.text);
    all += n;
    if (MATH_FONT.test(r.fontName)) math += n;
  }
  return all > 0 && math / all >= MATH_SHARE;
};
