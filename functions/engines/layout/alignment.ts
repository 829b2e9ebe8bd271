import { buildRows, type Row } from './lines.js';
import type { TextRun } from './types.js';

/** Least fragments (pieces separated by a gap of an em or more) of a row that can be a table row. */
const MIN_CELLS = 3;
/** Least column edges a row must share with a neighbouring row to count as aligned. */
const MIN_SHARED_EDGES = 2;

/**
 * Table-like alignment of a page's text in [0, 1]: the share of its text rows that are split
 * into three or more pieces by wide gaps and share at least two column edges (left, right or
 * centre of a piece, within half the font size) with the row above or below. Ruled tables,
 * whitespace tables and forms score high; prose (one piece per row) and two-column layouts (two
 * pieces) score 0. Measured on the text layer; images score 0. `rows` are `runs` grouped by
 * {@link buildRows} (grouped here when not given).
 */
export function tableAlignment(
  runs: readonly TextRun[],
  rows: readonly Row[] = buildRows(runs),
): number {
  if (rows.length === 0) return 0;
  const candidates = rows.map((row) => row.fragments.length >= MIN_CELLS);
  let aligned = 0;
  rows.forEach((row, i) => {
    if (!candidates[i]) return;
    const above = candidates[i - 1] ? rows[i - 1] : undefined;
    const below = candidates[i + 1] ? rows[i + 1] : undefined;
    if (
      (above && sharedEdges(row, above) >= MIN_SHARED_EDGES) ||
      (below && sharedEdges(row, below) >= MIN_SHARED_EDGES)
    ) {
      aligned += 1;
    }
  });
  return Math.round((aligned / rows.length) * 1000) / 1000;
}

/** Pieces of `a` with a left, right or centre edge matching a piece of `b`. */
function sharedEdges(a: Row, b: Row): number {
  const tolerance = 0.5 * Math.max(a.fontSize, b.fontSize, 1);
  let shared = 0;
  for (const fa of a.fragments) {
    const matches = b.fragments.some(
      (fb) =>
        Math.abs(fa.x0 - fb.x0) <= tolerance ||
        Math.abs(fa.x1 - fb.x1) <= tolerance ||
        Math.abs((fa.x0 + fa.x1) / 2 - (fb.x0 + fb.x1) / 2) <= tolerance,
    );
    if (matches) shared += 1;
  }
  return shared;
}
