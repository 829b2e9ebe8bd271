import { lineOf, type Block, type Line } from './block.js';
import { makeFragment, type Fragment } from './lines.js';
import type { TextRun } from './types.js';

/**
 * Lists: list markers joined to their text, and list items nested by indent.
 */

/** Bullet glyphs (private-use code points are symbol-font bullets). */
export const BULLET_GLYPH = '[•◦▪▫‣●○■□►▶➢✓✔◆◇·∙⁃–—*-]|[\\uE000-\\uF8FF]';
/**
 * A line that starts with a bullet. A dash or an asterisk set against the next word is part of
 * it (`*ALLOBJ access`, `-mini`, `—perhaps`), not a marker.
 */
export const BULLET = new RegExp(`^(?![–—*-][^\\s–—*-])(${BULLET_GLYPH})\\s*`);
/** A line that starts with an enumerator (`1.`, `2)`, `(a)`, `iv.`). */
export const ENUMERATOR = /^(\(?(?:\d{1,3}|[a-z]|[ivx]{1,5})[.)])\s+/i;
/** Text that is only a list marker (a bullet, `1.`, `a)`, `(iv)`) or a section number (`2.1`). */
const MARKER_ONLY = new RegExp(
  `^(?:(?:${BULLET_GLYPH})|\\(?(?:\\d{1,3}|[a-z]|[ivx]{1,5})[.)]|\\d{1,2}(?:\\.\\d{1,2})+\\.?|[A-Z]\\.(?:\\d{1,2}\\.?)*)$`,
  'i',
);
const BULLET_ONLY = new RegExp(`^(?:${BULLET_GLYPH})$`);

/** Farthest a marker may stand from its text, in ems of the text. */
const MARKER_REACH_EM = 4;

const merged = (marker: Fragment, text: Fragment): Fragment =>
  makeFragment([...marker.runs, ...text.runs]);

/**
 * A list marker and its text on one baseline are one line and one fragment:
 *
 * - a bullet that stands more than an em left of its text is a fragment of its own, which would
 *   make a column of bullets read as a table; it is joined to the fragment right of it;
 * - a marker (bullet, enumerator or section number) set on a baseline of its own (a symbol font
 *   raised or lowered, a number in another size) is a line of its own, which would come out as
 *   an empty item after its text; it is joined to the line beside it.
 *
 * @returns the lines (new objects where joined), sorted by baseline.
 */
export const attachMarkers = (lines: readonly Line[]): Line[] => {
  const out = lines.map((line) => {
    const [first, second, ...rest] = line.fragments;
    if (!first || !second || !BULLET_ONLY.test(first.text.trim())) return line;
    if (second.x0 - first.x1 > MARKER_REACH_EM * second.fontSize) return line;
    return lineOf([merged(first, second), ...rest]);
  });
  const used = new Set<Line>();
  const result: Line[] = [];
  for (const line of out) {
    if (used.has(line)) continue;
    const marker = line.fragments.length === 1 ? line.fragments[0] : undefined;
    if (!marker || !MARKER_ONLY.test(marker.text.trim())) {
      result.push(line);
      continue;
    }
    const mid = (marker.y0 + marker.y1) / 2;
    const partner = out.find((other) => {
      if (other === line || used.has(other)) return false;
      const head = other.fragments[0];
      if (!head || MARKER_ONLY.test(other.text.trim())) return false;
      const gap = head.x0 - marker.x1;
      return (
        gap >= -0.1 * head.fontSize &&
        gap <= MARKER_REACH_EM * head.fontSize &&
        mid > other.y0 &&
        mid < other.y1 &&
        Math.abs(other.baseline - marker.baseline) < 0.8 * other.size
      );
    });
    const head = partner?.fragments[0];
    if (!partner || !head) {
      result.push(line);
      continue;
    }
    used.add(partner);
    const joined = BULLET_ONLY.test(marker.text.trim())
      ? [merged(marker, head), ...partner.fragments.slice(1)]
      : [marker, ...partner.fragments];
    const index = result.indexOf(partner);
    const replacement = lineOf(joined);
    if (index >= 0) result[index] = replacement;
    else result.push(replacement);
  }
  return result.sort((a, b) => a.baseline - b.baseline);
};

/** Symbol fonts whose letters are pictures (ZapfDingbats `n` is ■, Wingdings `l` is ●). */
const DINGBAT_FONT = /dingbat|wingding|webding|zapf/i;

/** The one glyph of a run that may be a list marker (control characters and spaces aside). */
const loneGlyph = (run: TextRun): string | undefined => {
  const glyphs = Array.from(run.text.replace(/[\p{Cc}\s]/gu, ''));
  return glyphs.length === 1 && !/\p{N}/u.test(glyphs[0] ?? '') ? glyphs[0] : undefined;
};

/**
 * Bullets drawn with a letter of a symbol font, whose text layer gives the letter (`r` for a
 * ZapfDingbats ❒, `l` for a Wingdings ●), read as bullets (`•`): a line's first run that is one
 * glyph set apart from the text after it, either in a dingbat font, or smaller than the text
 * (or a symbol in another font) with the same glyph of the same font opening two more lines at
 * the same place (a column of markers). Returns the lines, new objects where a marker was read.
 */
export const symbolBullets = (lines: readonly Line[]): Line[] => {
  const markerOf = (line: Line): TextRun | undefined => {
    const [first, next] = line.runs;
    if (!first || !next || loneGlyph(first) === undefined) return undefined;
    if (next.x - (first.x + first.w) < 0.15 * next.fontSize) return undefined;
    if (DINGBAT_FONT.test(first.fontName)) return first;
    if (!/^[\p{L}\p{N}(]/u.test(next.text.trim())) return undefined;
    // A letter in another font at the text's size may be a variable (`x` of `x is …`).
    const apart =
      first.fontSize <= 0.85 * next.fontSize ||
      (first.fontName !== next.fontName && !/\p{L}/u.test(loneGlyph(first) ?? ''));
    return apart ? first : undefined;
  };
  const markers = lines.map(markerOf);
  return lines.map((line, k) => {
    const marker = markers[k];
    if (!marker) return line;
    const column = markers.filter(
      (m) =>
        m !== undefined &&
        m.fontName === marker.fontName &&
        loneGlyph(m) === loneGlyph(marker) &&
        Math.abs(m.x - marker.x) < 0.5 * marker.fontSize,
    ).length;
    if (!DINGBAT_FONT.test(marker.fontName) && column < 3) return line;
    const [first, ...fragments] = line.fragments;
    if (!first || first.runs[0] !== marker) return line;
    const bullet = { ...marker, text: '•' };
    return lineOf([makeFragment([bullet, ...first.runs.slice(1)]), ...fragments]);
  });
};

/**
 * Nests consecutive list items by indent: an item whose marker stands at least 0.8 em right of
 * the previous item's marker is a child of it (indented under its text in the Markdown: two
 * spaces under `-`, three under `1.`). A display equation indented under an item's text is a
 * paragraph of that item; another block ends the list, and so does an item above the previous
 * one (the list goes on at the top of the next column, where indents are measured afresh).
 * Changes `blocks` (in reading order) in place.
 *
 * @param em the body font size in pixels.
 */
export const nestListItems = (blocks: Block[], em: number): void => {
  /** Open items: the x of each marker and the indent its children take. */
  const stack: { x: number; indent: string }[] = [];
  let previous: Block | undefined;
  for (const b of blocks) {
    const open = stack[stack.length - 1];
    const below = previous === undefined || b.y0 >= previous.y0 - 0.5 * em;
    if (b.kind === 'formula' && open && below && b.x0 > open.x + 0.8 * em) {
      // A display equation set inside the open item: a paragraph of that item.
      b.markdown = open.indent + b.markdown;
      continue;
    }
    if (b.kind !== 'list_item') {
      stack.length = 0;
      previous = undefined;
      continue;
    }
    if (!below) stack.length = 0;
    previous = b;
    while (stack.length > 0 && (stack[stack.length - 1]?.x ?? 0) > b.x0 - 0.8 * em) stack.pop();
    const parent = stack[stack.length - 1];
    const indent = parent?.indent ?? '';
    if (indent !== '') b.markdown = indent + b.markdown;
    const marker = /^(\d+[.)]|-)\s/.exec(b.markdown.slice(indent.length))?.[1] ?? '-';
    stack.push({ x: b.x0, indent: indent + ' '.repeat(marker.length + 1) });
  }
};
