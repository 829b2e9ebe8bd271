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

/** One line of text of a table cell. */
export interface CellLine {
  /** Baseline y (pixels). */
  baseline: number;
  /** Font size (pixels) of the line. */
  size: number;
  /** Width (pixels) from the line's first glyph to its last. */
  width: number;
  text: string;
}

/** A cell of a grid, placed, with its lines of text top to bottom. */
export interface LinedCell {
  row: number;
  rowSpan: number;
  /** Width (pixels) of the cell between its column rules. */
  width: number;
  lines: readonly CellLine[];
}

/**
 * Whether `line` goes on with the phrase of the line `above` in a cell `width` wide: `above` ends
 * with a hyphen or a comma, or holds several words and either fills the cell (the phrase wrapped
 * at its edge) or is followed by a lower-case start (`first half of a` / `long note`). A single
 * word, a number, does not wrap.
 */
const continues = (above: CellLine, line: CellLine, width: number): boolean => {
  if (/[-‐,]$/.test(above.text)) return true;
  if (!/\s/.test(above.text.trim())) return false;
  return above.width >= 0.8 * width || /^\p{Ll}/u.test(line.text);
};

/**
 * Cells of a grid that stack records: a grid row (no rule between its lines) that holds several
 * records, one per line, with values set once for the group centred between them (`6 | OTSL /
 * HTML | 0.965 / 0.969`). A cell stacks records when it has k ≥ 2 lines and another cell of the
 * same row (same rows spanned) has k lines on the same k baselines; each of its lines is then one
 * record's value, to be kept apart rather than joined into one phrase (`0.965 0.969`).
 *
 * Cells whose lines wrap one phrase ({@link continues}) are not records, nor are the cells of the
 * first row (the header: labels wrapped to the column's width).
 *
 * (Rows in which every filled column has every line are split into one row per record before
 * this, by the grid reader.)
 *
 * @returns indexes in `cells` of the cells that stack records.
 */
export const recordStacks = (cells: readonly LinedCell[]): Set<number> => {
  const candidates = cells.flatMap((cell, index) => {
    const { lines } = cell;
    if (cell.row === 0 || lines.length < 2) return [];
    const wrapped = lines.some((line, k) => {
      const above = lines[k - 1];
      return above !== undefined && continues(above, line, cell.width);
    });
    return wrapped ? [] : [{ index, cell }];
  });
  const sameBaselines = (a: LinedCell, b: LinedCell): boolean =>
    a.row === b.row &&
    a.rowSpan === b.rowSpan &&
    a.lines.length === b.lines.length &&
    a.lines.every((line, k) => {
      const other = b.lines[k];
      return (
        other !== undefined &&
        Math.abs(line.baseline - other.baseline) <= 0.4 * Math.min(line.size, other.size)
      );
    });
  const out = new Set<number>();
  for (const a of candidates) {
    if (candidates.some((b) => b !== a && sameBaselines(a.cell, b.cell))) out.add(a.index);
  }
  return out;
};
