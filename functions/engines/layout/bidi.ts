import bidiModule from 'bidi-js';
import type { TextRun } from './types.js';

/**
 * Right-to-left text on a page. Text runs carry their characters in visual order (left to right
 * as drawn); a line is turned into logical order (the order it is read and typed in) with the
 * Unicode bidirectional algorithm (UAX #9, through bidi-js). The algorithm maps logical to
 * visual order by reversing runs of characters at each embedding level, which undoes itself:
 * applied to a visual line with the same paragraph direction, it gives the logical line back.
 */

// bidi-js is a CommonJS module whose export is the factory; its types declare it as an ES
// default export, so the type checker sees the factory one level down.
type BidiFactory = typeof bidiModule.default;
const loaded = bidiModule as unknown as BidiFactory | { default: BidiFactory };
const bidi = (typeof loaded === 'function' ? loaded : loaded.default)();

/** Paragraph direction of a line. */
export type Direction = 'ltr' | 'rtl';

/** Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic and their presentation forms. */
const RTL_SCRIPT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/u;
/** Arabic-Indic digits: in the Arabic block, but set left to right. */
const ARABIC_DIGIT = /[\u0660-\u0669\u06f0-\u06f9]/u;

/** True when `text` holds a character of a right-to-left script. */
export const hasRtl = (text: string): boolean => RTL_SCRIPT.test(text);

/**
 * True for a character that a right-to-left writer advances leftwards: a letter or mark of a
 * right-to-left script, a space, or punctuation. Letters and digits of other scripts (and
 * Arabic-Indic digits) are set left to right even inside right-to-left text.
 */
export const flowsLeft = (char: string): boolean =>
  (RTL_SCRIPT.test(char) && !ARABIC_DIGIT.test(char)) || !/[\p{L}\p{N}]/u.test(char);

/**
 * Counts of strong characters by direction (bidi classes L and R/AL).
 */
export const strongCounts = (text: string): { ltr: number; rtl: number } => {
  let ltr = 0;
  let rtl = 0;
  for (const char of text) {
    const type = bidi.getBidiCharTypeName(char);
    if (type === 'L') ltr++;
    else if (type === 'R' || type === 'AL') rtl++;
  }
  return { ltr, rtl };
};

/**
 * The paragraph direction of a line: the direction of most of its strong characters (ties go to
 * right to left, as a line with any right-to-left letters is most likely in such a paragraph).
 * Works on visual and logical text alike, unlike the first-strong-character rule.
 */
export const directionOf = (text: string): Direction => {
  if (!hasRtl(text)) return 'ltr';
  const { ltr, rtl } = strongCounts(text);
  return rtl >= ltr ? 'rtl' : 'ltr';
};

/** Reverses the segments bidi-js gives, keeping surrogate pairs whole. */
const reorder = (text: string, direction: Direction): string => {
  const levels = bidi.getEmbeddingLevels(text, direction);
  const units = text.split('');
  for (const [start, end] of bidi.getReorderSegments(text, levels)) {
    if (start === undefined || end === undefined) continue;
    const reversed = units.slice(start, end + 1).reverse();
    units.splice(start, reversed.length, ...reversed);
  }
  // A reversed surrogate pair reads low-high; swap it back.
  return units.join('').replace(/([\udc00-\udfff])([\ud800-\udbff])/g, '$2$1');
};

/** A right-to-left letter and a Latin, Greek or Cyrillic letter (in either order). */
const RTL_LETTER = /^(?:\p{Script=Arabic}|\p{Script=Hebrew})$/u;
const LTR_LETTER = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]$/u;
const isSeam = (a: string, b: string): boolean =>
  (RTL_LETTER.test(a) && LTR_LETTER.test(b)) || (LTR_LETTER.test(a) && RTL_LETTER.test(b));

/**
 * The runs of one line (sorted left to right, their text in visual order) as pieces in logical
 * order, for code that renders runs one after the other (emphasis). A piece is the part of one
 * run that stays together; word spaces (from gaps wider than `spaceGapEm`) are written into the
 * pieces, whose boxes are made contiguous (x is the offset in the line, w the length) so that no
 * gap rule adds more. Lines without right-to-left text are returned as they are.
 *
 * @param direction the paragraph direction; by default that of most strong characters.
 */
export const logicalRuns = <R extends TextRun>(
  runs: readonly R[],
  spaceGapEm: number,
  direction?: Direction,
): readonly R[] => {
  if (!runs.some((r) => hasRtl(r.text))) return runs;
  let visual = '';
  const owners: number[] = [];
  runs.forEach((run, index) => {
    const text = run.text.replace(/\s+/g, ' ');
    const prev = runs[index - 1];
    if (prev) {
      const gap = run.x - (prev.x + prev.w);
      const space =
        gap > spaceGapEm * Math.min(prev.fontSize, run.fontSize) &&
        !/\s$/.test(visual) &&
        !/^\s/.test(text);
      if (space) {
        visual += ' ';
        owners.push(index - 1);
      }
    }
    visual += text;
    for (let k = 0; k < text.length; k++) owners.push(index);
  });
  const levels = bidi.getEmbeddingLevels(visual, direction ?? directionOf(visual));
  const order = bidi.getReorderedIndices(visual, levels);
  const units = order.map((i) => visual[i] ?? '');
  const unitOwners = order.map((i) => owners[i] ?? 0);
  // A reversed surrogate pair reads low-high; swap it back.
  for (let k = 0; k + 1 < units.length; k++) {
    if (/[\udc00-\udfff]/.test(units[k] ?? '') && /[\ud800-\udbff]/.test(units[k + 1] ?? '')) {
      [units[k], units[k + 1]] = [units[k + 1] ?? '', units[k] ?? ''];
    }
  }
  const pieces: R[] = [];
  let text = '';
  let owner = -1;
  let start = 0;
  const close = (): void => {
    const run = runs[owner];
    if (run && text !== '') pieces.push({ ...run, text, x: start, w: text.length });
    start += text.length;
    text = '';
  };
  units.forEach((unit, k) => {
    const who = unitOwners[k] ?? 0;
    const previous = units[k - 1];
    if (who !== owner && unit !== ' ') {
      close();
      owner = who;
    }
    if (previous !== undefined && isSeam(previous, unit)) text += ' ';
    text += unit;
  });
  close();
  return pieces;
};

/** A right-to-left letter touching a Latin, Greek or Cyrillic letter, in either order. */
const SCRIPT_SEAM =
  /(\p{Script=Arabic}|\p{Script=Hebrew})(?=[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])|([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])(?=\p{Script=Arabic}|\p{Script=Hebrew})/gu;

/**
 * Turns one line of text in visual order (as drawn, left to right) into logical order.
 * Lines without right-to-left characters are returned unchanged. Right-to-left letters that touch
 * Latin letters or digits are separated by a space: no word mixes the two, and a producer's
 * bidi layout sometimes draws the space between them elsewhere on the line.
 *
 * Characters are not mirrored: PDF producers give the logical character (an opening
 * parenthesis) for the mirrored glyph they draw.
 *
 * @param direction the paragraph direction; by default the direction of most strong characters.
 * @example
 * visualToLogical('Python و R ةغلب', 'rtl') // → 'بلغة R و Python'
 */
export const visualToLogical = (visual: string, direction?: Direction): string => {
  if (!hasRtl(visual)) return visual;
  const logical = reorder(visual, direction ?? directionOf(visual));
  return logical.replace(SCRIPT_SEAM, (m) => `${m} `);
};

/**
 * Turns logical text (as a reader that already applied the bidi algorithm gives it) into visual
 * order, so that it lines up with text runs read glyph by glyph.
 *
 * @param direction the paragraph direction; by default the direction of most strong characters.
 */
export const logicalToVisual = (logical: string, direction?: Direction): string =>
  hasRtl(logical) ? reorder(logical, direction ?? directionOf(logical)) : logical;
