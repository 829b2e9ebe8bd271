import type { Table, TableCell } from './tables.js';

/**
 * Tables stacked one over the other that are one visual table: a header band read between rules
 * over a body drawn as a grid, or a body followed by its summary rows (`Average …`), come out of
 * the detectors as separate tables. Two tables, one of them drawn (ruled), are one when the lower one starts within
 * `maxGap` pixels of the upper one's end, they share most of their width, and every filled cell
 * of the table with fewer columns lies over columns of the other (the columns of the finer grid
 * are kept; a coarser cell over several of them becomes a spanning cell).
 *
 * The upper table's rows become the header rows when it is a header band (three rows or fewer
 * over a longer body, or read from text over a drawn grid).
 *
 * @param tables tables of one page, any order.
 * @param maxGap largest vertical distance (pixels) between the two.
 * @param textBetween whether text lies in a box (x0, y0, x1, y1): tables with text between
 *   them (a caption, a paragraph) stay apart.
 * @returns the tables, stacked ones merged, top to bottom.
 */
export const mergeStackedTables = (
  tables: readonly Table[],
  maxGap: number,
  textBetween: (x0: number, y0: number, x1: number, y1: number) => boolean = () => false,
): Table[] => {
  const sorted = tables.slice().sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  const out: Table[] = [];
  for (const table of sorted) {
    const index = out.findIndex(
      (above) =>
        stacked(above, table, maxGap) &&
        !textBetween(
          Math.max(above.x0, table.x0),
          above.y1,
          Math.min(above.x1, table.x1),
          table.y0,
        ),
    );
    const above = out[index];
    const merged = above ? stack(above, table) : null;
    if (above && merged) out[index] = merged;
    else out.push(table);
  }
  return out;
};

/** Whether the filled cells of `table` hold more than four words on average. */
const prose = (table: Table): boolean => {
  const filled = table.cells.filter((c) => c.text.trim() !== '');
  const words = filled.reduce((n, c) => n + c.text.split(/\s+/).filter(Boolean).length, 0);
  return filled.length > 0 && words / filled.length > 4;
};

const stacked = (above: Table, below: Table, maxGap: number): boolean => {
  // Two tables read from text alone are two: the grid of one of them must be drawn.
  if (!above.ruled && !below.ruled) return false;
  // Boxes around prose (highlighted passages) are not parts of one table.
  if (prose(above) || prose(below)) return false;
  const gap = below.y0 - above.y1;
  if (gap > maxGap || below.y1 <= above.y1) return false;
  const overlap = Math.min(above.x1, below.x1) - Math.max(above.x0, below.x0);
  const narrower = Math.min(above.x1 - above.x0, below.x1 - below.x0);
  return narrower > 0 && overlap >= 0.8 * narrower;
};

/**
 * Column index ranges of `from`'s columns on `onto`'s grid (null where a column maps nowhere).
 * The outer edges of `from` are open: a header read from its text ends where its text ends,
 * inside the grid's outer columns. Columns of `onto` lying mostly outside `box` (the extent of
 * `from`'s table: a header band ruled over the right-hand columns only) map to none.
 */
const mapColumns = (
  from: number[],
  onto: number[],
  box: { x0: number; x1: number },
): ([number, number] | null)[] => {
  const centres = onto.slice(0, -1).map((x, i) => {
    const right = onto[i + 1] ?? x;
    const overlap = Math.min(right, box.x1) - Math.max(x, box.x0);
    return overlap < 0.5 * (right - x) ? NaN : (x + right) / 2;
  });
  const lastColumn = from.length - 2;
  return from.slice(0, -1).map((edge, c) => {
    const left = c === 0 ? -Infinity : edge;
    const right = c === lastColumn ? Infinity : (from[c + 1] ?? edge);
    const inside = centres.flatMap((x, k) => (x >= left && x < right ? [k] : []));
    const first = inside[0];
    const last = inside[inside.length - 1];
    return first === undefined || last === undefined ? null : [first, last];
  });
};

/** `above` and `below` as one table on the finer of their column grids, or null if they clash. */
const stack = (above: Table, below: Table): Table | null => {
  const a = above.columns;
  const b = below.columns;
  if (!a || !b || a.length !== above.colCount + 1 || b.length !== below.colCount + 1) return null;
  const fine = a.length >= b.length ? a : b;
  const place = (table: Table, edges: number[], rowOffset: number): TableCell[] | null => {
    if (edges === fine) return table.cells.map((c) => ({ ...c, row: c.row + rowOffset }));
    const map = mapColumns(edges, fine, table);
    const cells: TableCell[] = [];
    for (const cell of table.cells) {
      const first = map[cell.col];
      const last = map[cell.col + cell.colSpan - 1];
      if (!first || !last) {
        if (cell.text === '') continue;
        return null;
      }
      cells.push({
        ...cell,
        row: cell.row + rowOffset,
        col: first[0],
        colSpan: last[1] - first[0] + 1,
      });
    }
    return cells;
  };
  const top = place(above, a, 0);
  const bottom = place(below, b, above.rowCount);
  if (!top || !bottom) return null;
  const colCount = fine.length - 1;
  const rowCount = above.rowCount + below.rowCount;
  const cells = fillGaps([...top, ...bottom], rowCount, colCount);
  // A short band read from text over a drawn grid, or over a longer body, is its header.
  const headerBand =
    above.rowCount <= 3 && (below.rowCount > above.rowCount || (!above.ruled && below.ruled));
  return {
    x0: Math.min(above.x0, below.x0),
    y0: Math.min(above.y0, below.y0),
    x1: Math.max(above.x1, below.x1),
    y1: Math.max(above.y1, below.y1),
    rowCount,
    colCount,
    cells,
    ruled: above.ruled || below.ruled,
    columns: fine,
    headerRows: headerBand ? above.rowCount : (above.headerRows ?? 1),
  };
};

/** Empty cells where no cell covers a grid position, so every row has its columns. */
const fillGaps = (cells: TableCell[], rowCount: number, colCount: number): TableCell[] => {
  const covered = new Set<number>();
  for (const c of cells) {
    for (let r = c.row; r < c.row + c.rowSpan; r++) {
      for (let k = c.col; k < c.col + c.colSpan; k++) covered.add(r * colCount + k);
    }
  }
  const out = [...cells];
  for (let r = 0; r < rowCount; r++) {
    for (let k = 0; k < colCount; k++) {
      if (!covered.has(r * colCount + k))
        out.push({ row: r, col: k, rowSpan: 1, colSpan: 1, text: '' });
    }
  }
  return out.sort((x, y) => x.row - y.row || x.col - y.col);
};
