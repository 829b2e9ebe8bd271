import type { Table } from './tables.js';
import type { Segment, TextRun } from './types.js';

/** Words a cell holds from which it reads as running text rather than a value or a label. */
const PROSE_CELL_WORDS = 40;

/** Words of a cell that are words of running text (two letters or more), not numbers or marks. */
const proseWords = (text: string): number =>
  text.split(/\s+/).filter((w) => /\p{L}.*\p{L}/u.test(w)).length;

/**
 * Whether a ruled "table" is a frame around running text (a cover's panels, a page laid out in
 * boxes): half of its words or more stand in cells of 40 words of running text or more (words of
 * letters: a plot's frame around its tick values does not count). The cells of a table hold
 * values, labels and the odd sentence of a description, not paragraphs.
 */
export const isProseFrame = (table: Table): boolean => {
  let all = 0;
  let prose = 0;
  for (const cell of table.cells) {
    const n = proseWords(cell.text);
    all += n;
    if (n >= PROSE_CELL_WORDS) prose += n;
  }
  return all > 0 && prose >= 0.5 * all;
};

/**
 * Ruled tables without the frames around running text ({@link isProseFrame}): the runs inside a
 * frame are given back to the page's text (left out of `used`), and the frame's rules are left
 * out of `rules` (so that no other table is read between them).
 */
export const withoutProseFrames = (
  ruled: { tables: Table[]; used: Set<TextRun> },
  rules: readonly Segment[],
): { tables: Table[]; used: Set<TextRun>; rules: readonly Segment[] } => {
  const frames = ruled.tables.filter(isProseFrame);
  if (frames.length === 0) return { ...ruled, rules };
  const within = (x: number, y: number, pad: number): boolean =>
    frames.some((t) => x > t.x0 - pad && x < t.x1 + pad && y > t.y0 - pad && y < t.y1 + pad);
  return {
    tables: ruled.tables.filter((t) => !frames.includes(t)),
    used: new Set([...ruled.used].filter((r) => !within(r.x + r.w / 2, r.y + r.h / 2, 0))),
    rules: rules.filter((s) => !(within(s.x1, s.y1, 2) && within(s.x2, s.y2, 2))),
  };
};
