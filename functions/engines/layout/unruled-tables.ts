import type { Line } from './block.js';
import { wordCount } from './white-space.js';
import { rowOf, type Fragment, type Row } from './lines.js';
import { isMathLike } from './math-guard.js';
import { streamTable, type Table } from './tables.js';

/** An unruled table found among a region's lines: lines `start` to `end - 1`. */
export interface LineTable {
  table: Table;
  start: number;
  end: number;
}

/**
 * Unruled (stream) tables among the lines of one region: windows of three or more lines with two
 * or more cells each ({@link streamTable} finds the aligned column gaps), extended upwards by up to
 * three header lines (bold, or split like the columns) that sit close above and inside the table.
 *
 * @param cellsOf a line's cells (its fragments; on OCR pages its words split at column gaps).
 * @param spacing the region's typical baseline distance in pixels.
 * @returns tables keyed by their first line.
 */
export const findLineTables = (
  lines: readonly Line[],
  cellsOf: (line: Line) => Fragment[],
  spacing: number,
): Map<number, LineTable> => {
  const lineCells = lines.map(cellsOf);
  const cellCount = (k: number): number => lineCells[k]?.length ?? 0;
  const tableRows = (from: number, to: number): Row[] =>
    lineCells.slice(from, to).map((cells) => rowOf(cells));
  const tableAt = new Map<number, LineTable>();
  let i = 0;
  while (i < lines.length) {
    if (cellCount(i) < 2) {
      i++;
      continue;
    }
    let j = i;
    let multi = 0;
    while (j < lines.length) {
      const l = lines[j];
      if (!l) break;
      if (cellCount(j) >= 2) multi++;
      else if (cellCount(j + 1) < 2) break;
      j++;
    }
    // Aligned lines of a display equation (stacked fractions, limits) are not a table, nor
    // are those of a listing in a monospace font (keywords and operands lined up).
    const formula = isMathLike(lines.slice(i, j).flatMap((l) => l.runs));
    const listing = lines.slice(i, j).every((l) => l.monospace);
    if (multi >= 3 && !formula && !listing) {
      const window = tableRows(i, j);
      let table = streamTable(window, { minMultiRows: 3, maxWordsPerCell: 5 });
      let start = i;
      if (table && table.colCount >= 2) {
        // Header lines just above (bold, or split like the columns) belong to the table.
        for (let k = i - 1; k >= Math.max(0, i - 3); k--) {
          const above = lines[k];
          const below = lines[k + 1];
          if (!above || !below || tableAt.has(k)) break;
          const close = below.baseline - above.baseline <= spacing * 1.6;
          const inside = above.x0 >= table.x0 - above.size && above.x1 <= table.x1 + above.size;
          const headerLike = (above.bold || cellCount(k) >= 2) && wordCount(above.text) <= 16;
          if (
            !close ||
            !inside ||
            !headerLike ||
            (above.x0 <= table.x0 + 0.5 * above.size && cellCount(k) < 2)
          )
            break;
          const extended = streamTable(tableRows(k, j), { minMultiRows: 3, maxWordsPerCell: 5 });
          if (!extended || extended.colCount < table.colCount) break;
          table = extended;
          start = k;
        }
        tableAt.set(start, { table, start, end: j });
        i = j;
        continue;
      }
    }
    i = j > i ? j : i + 1;
  }
  return tableAt;
};
