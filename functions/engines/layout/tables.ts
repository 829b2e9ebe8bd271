import { isRotated, joinRuns, makeFragment, rowOf, type Fragment, type Row } from './lines.js';
import { connectedGroups } from '../connected-groups.js';
import { isMathLike } from './math-guard.js';
import { PLOT_TICKS, plotTicks } from './plots.js';
import { recordStacks } from './table-stack.js';
import type { Segment, TextRun } from './types.js';
import { wordCount } from './white-space.js';

/** One cell of a detected table; spans count grid columns / rows. */
export interface TableCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  /**
   * The cell's text. A cell holding several records (one value per record, on the records'
   * lines) has one line per record, separated by `\n`; otherwise one line.
   */
  text: string;
}

/** A detected table: its box (pixels), grid size and cells. */
export interface Table {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  rowCount: number;
  colCount: number;
  cells: TableCell[];
  /** True when found from drawn rules (lattice), false when from aligned text (stream). */
  ruled: boolean;
  /** x positions (pixels) of the column edges, `colCount + 1` of them, when known. */
  columns?: number[];
  /**
   * Rows at the top that are the header (multi-row headers, units rows).
   * @default 1
   */
  headerRows?: number;
  /**
   * The table opens its page (no caption or text above it) after the first page: most likely
   * the continuation of a table that ended the previous page.
   */
  continued?: boolean;
}

interface Line {
  /** Position across (y for horizontal lines, x for vertical ones). */
  at: number;
  from: number;
  to: number;
}

/**
 * Collinear lines (within `tolerance` across) that overlap or touch (within `tolerance` along)
 * merged: each line, in order across, joins the first line kept so far that it meets.
 */
const mergeLines = (lines: Line[], tolerance: number): Line[] => {
  const sorted = lines.slice().sort((a, b) => a.at - b.at || a.from - b.from);
  const out: Line[] = [];
  for (const line of sorted) {
    // Kept lines are in order across and never move across, so those within the tolerance are
    // the last few: the first of them is found walking back (a page of plots has thousands).
    let first = out.length;
    while (first > 0 && (out[first - 1]?.at ?? -Infinity) >= line.at - tolerance) first--;
    let match: Line | undefined;
    for (let i = first; i < out.length && !match; i++) {
      const o = out[i] as Line;
      if (
        Math.abs(o.at - line.at) <= tolerance &&
        line.from <= o.to + tolerance &&
        line.to >= o.from - tolerance
      ) {
        match = o;
      }
    }
    if (match) {
      match.from = Math.min(match.from, line.from);
      match.to = Math.max(match.to, line.to);
    } else {
      out.push({ ...line });
    }
  }
  return out;
};

const cluster = (values: number[], tolerance: number): number[] => {
  const sorted = values.slice().sort((a, b) => a - b);
  const out: number[][] = [];
  for (const v of sorted) {
    const last = out[out.length - 1];
    const lastValue = last?.[last.length - 1];
    if (last && lastValue !== undefined && v - lastValue <= tolerance) last.push(v);
    else out.push([v]);
  }
  return out.map((group) => group.reduce((a, b) => a + b, 0) / group.length);
};

/**
 * How exactly table grids are read. The exact reading is the default, for the Markdown of a
 * parse and for structured extraction (POST /v1/parse/structured) alike.
 */
export interface GridReading {
  /**
   * Read grids exactly: OCR words that are rules read as glyphs (`|`, `|—`) are left out of the
   * cell text. (In every reading, the columns outside the outermost vertical rule of a table
   * ruled inside only belong to it, {@link withOpenSides}, and a rule-bounded table's box spans
   * its own rows only.)
   * @default true
   */
  exact?: boolean;
}

/** An OCR word that is a table rule read as a glyph (`|`, `|—`), not cell text. */
const OCR_RULE_WORD = /^(?:[|¦]+[—–-]*|[—–-]*[|¦]+)$/;

/** The runs of a cell in lines (by baseline), top to bottom, each line left to right. */
const cellLines = (input: TextRun[], exact: boolean): TextRun[][] => {
  const runs = exact
    ? input.filter((r) => r.confidence === undefined || !OCR_RULE_WORD.test(r.text.trim()))
    : input;
  const sorted = runs.slice().sort((a, b) => a.baseline - b.baseline || a.x - b.x);
  const lines: TextRun[][] = [];
  for (const run of sorted) {
    const last = lines[lines.length - 1];
    const ref = last?.[0];
    if (last && ref && Math.abs(ref.baseline - run.baseline) <= 0.3 * ref.fontSize) last.push(run);
    else lines.push([run]);
  }
  return lines.map((line) => line.sort((a, b) => a.x - b.x));
};

/** The lines of a cell as one phrase: joined with spaces, words broken at line ends rejoined. */
const cellText = (lines: readonly TextRun[][]): string =>
  lines
    .map((line) => joinRuns(line))
    .join('\n')
    // A line that starts with a hyphen before a letter continues the word above (`Phi-3.5` /
    // `-mini`).
    .replace(/\n-(?=\p{Ll})/gu, '-')
    .replace(/\n/g, ' ')
    .replace(/-\s(?=[a-z])/g, '-')
    .trim();

/** The rule lines of segment lists already measured, with the scale they were measured at. */
const measuredRules = new WeakMap<
  readonly Segment[],
  { scale: number; lines: { horizontal: Line[]; vertical: Line[] } }
>();

/**
 * Horizontal and vertical rule lines of a page, merged where collinear and overlapping. The
 * finders of tables each ask for those of the same segments: they are measured once (the lines
 * are shared, and read only).
 */
export const ruleLines = (
  segments: readonly Segment[],
  scale: number,
): { horizontal: Line[]; vertical: Line[] } => {
  const measured = measuredRules.get(segments);
  if (measured?.scale === scale) return measured.lines;
  const lines = measureRuleLines(segments, scale);
  measuredRules.set(segments, { scale, lines });
  return lines;
};

const measureRuleLines = (
  segments: readonly Segment[],
  scale: number,
): { horizontal: Line[]; vertical: Line[] } => {
  const tolerance = 2 * scale;
  const horizontal: Line[] = [];
  const vertical: Line[] = [];
  for (const s of segments) {
    if (Math.abs(s.y1 - s.y2) <= tolerance / 2) {
      horizontal.push({
        at: (s.y1 + s.y2) / 2,
        from: Math.min(s.x1, s.x2),
        to: Math.max(s.x1, s.x2),
      });
    } else if (Math.abs(s.x1 - s.x2) <= tolerance / 2) {
      vertical.push({
        at: (s.x1 + s.x2) / 2,
        from: Math.min(s.y1, s.y2),
        to: Math.max(s.y1, s.y2),
      });
    }
  }
  return {
    horizontal: mergeLines(horizontal, tolerance).filter((l) => l.to - l.from >= 6 * scale),
    vertical: mergeLines(vertical, tolerance).filter((l) => l.to - l.from >= 6 * scale),
  };
};

/**
 * Finds ruled (lattice) tables: connected horizontal and vertical rules snapped into a grid;
 * each run goes to the cell containing its centre; grid cells without an inner rule between
 * them are merged into spanning cells.
 *
 * @param scale pixels per point (dpi / 72), for tolerances.
 * @returns the tables and the runs they consumed.
 */
export const findRuledTables = (
  segments: readonly Segment[],
  runs: readonly TextRun[],
  scale: number,
  reading: GridReading = {},
): { tables: Table[]; used: Set<TextRun> } => {
  const exact = reading.exact ?? true;
  const { horizontal, vertical } = ruleLines(segments, scale);
  const tolerance = 3 * scale;
  const tables: Table[] = [];
  const used = new Set<TextRun>();
  if (horizontal.length < 2 || vertical.length < 2) return { tables, used };
  // Lines connected through crossings: an H and a V line are linked when they cross or touch.
  const all = [
    ...horizontal.map((l) => ({ l, h: true })),
    ...vertical.map((l) => ({ l, h: false })),
  ];
  const crosses = (h: Line, v: Line): boolean =>
    v.at >= h.from - tolerance &&
    v.at <= h.to + tolerance &&
    h.at >= v.from - tolerance &&
    h.at <= v.to + tolerance;
  const groups = connectedGroups(
    all,
    (a, b) => a.h !== b.h && (a.h ? crosses(a.l, b.l) : crosses(b.l, a.l)),
  ).map((entries) => ({
    h: entries.filter((e) => e.h).map((e) => e.l),
    v: entries.filter((e) => !e.h).map((e) => e.l),
  }));
  for (const group of groups) {
    if (group.h.length < 2 || group.v.length < 2) continue;
    let ys = cluster(
      group.h.map((l) => l.at),
      tolerance,
    );
    const columns = cluster(
      group.v.map((l) => l.at),
      tolerance,
    );
    // Booktabs-like tables ruled inside only keep their outer columns in every reading: left
    // out, those columns would come out as a second, stray table beside the first.
    const xs = withOpenSides(columns, ys, group.h, runs, tolerance);
    if (xs.length < 3 && ys.length < 3) continue;
    const x0 = xs[0] ?? 0;
    const x1 = xs[xs.length - 1] ?? 0;
    const y0 = ys[0] ?? 0;
    const y1 = ys[ys.length - 1] ?? 0;
    // A plot's frame and grid lines, with tick marks on its axes, are not a table's rules.
    if (plotTicks(segments, { x0, y0, x1, y1 }, scale) >= PLOT_TICKS) continue;
    const inside = runs.filter((r) => {
      const cx = r.x + r.w / 2;
      const cy = r.y + r.h / 2;
      // Rotated text is placed once the table is whole (see placeRotatedText).
      return cx > x0 && cx < x1 && cy > y0 && cy < y1 && !used.has(r) && !isRotated(r);
    });
    if (inside.length === 0) continue;
    // Rows drawn without rules between them (only top, middle and bottom rules) are split at
    // their text lines, as if ruled.
    const unruled = new Set([
      ...stackedRowBoundaries(ys, xs, inside),
      ...brokenRuleBoundaries(segments, ys, xs, inside, tolerance),
    ]);
    ys = [...ys, ...unruled].sort((a, b) => a - b);
    const rowsN = ys.length - 1;
    const colsN = xs.length - 1;
    const vAt = (x: number, y: number): boolean =>
      group.v.some(
        (l) => Math.abs(l.at - x) <= tolerance && l.from <= y + tolerance && l.to >= y - tolerance,
      );
    const hAt = (y: number, x: number): boolean =>
      unruled.has(y) ||
      group.h.some(
        (l) => Math.abs(l.at - y) <= tolerance && l.from <= x + tolerance && l.to >= x - tolerance,
      );
    // Highlight boxes behind lines of text and the callouts of a diagram are boxes, not a grid.
    if (!boxesFormGrid(xs, ys, inside, vAt, tolerance)) continue;
    // Union grid cells not separated by a rule.
    const cellParent = Array.from({ length: rowsN * colsN }, (_, i) => i);
    const findCell = (i: number): number => {
      let r = i;
      while (cellParent[r] !== r) r = cellParent[r] ?? r;
      return r;
    };
    const unite = (a: number, b: number): void => {
      const ra = findCell(a);
      const rb = findCell(b);
      if (ra !== rb) cellParent[Math.max(ra, rb)] = Math.min(ra, rb);
    };
    for (let r = 0; r < rowsN; r++) {
      const midY = ((ys[r] ?? 0) + (ys[r + 1] ?? 0)) / 2;
      for (let c = 0; c < colsN; c++) {
        const midX = ((xs[c] ?? 0) + (xs[c + 1] ?? 0)) / 2;
        if (c + 1 < colsN && !vAt(xs[c + 1] ?? 0, midY)) unite(r * colsN + c, r * colsN + c + 1);
        if (r + 1 < rowsN && !hAt(ys[r + 1] ?? 0, midX)) unite(r * colsN + c, (r + 1) * colsN + c);
      }
    }
    const spans = new Map<number, { r0: number; c0: number; r1: number; c1: number }>();
    for (let i = 0; i < rowsN * colsN; i++) {
      const root = findCell(i);
      const r = Math.floor(i / colsN);
      const c = i % colsN;
      const span = spans.get(root);
      if (span) {
        span.r0 = Math.min(span.r0, r);
        span.c0 = Math.min(span.c0, c);
        span.r1 = Math.max(span.r1, r);
        span.c1 = Math.max(span.c1, c);
      } else {
        spans.set(root, { r0: r, c0: c, r1: r, c1: c });
      }
    }
    const cellRuns = new Map<number, TextRun[]>();
    const indexOf = (edges: number[], v: number): number => {
      for (let k = 0; k + 1 < edges.length; k++) if (v < (edges[k + 1] ?? 0)) return k;
      return edges.length - 2;
    };
    for (const run of inside) {
      const r = indexOf(ys, run.y + run.h / 2);
      const c = indexOf(xs, run.x + run.w / 2);
      const root = findCell(r * colsN + c);
      const list = cellRuns.get(root) ?? [];
      list.push(run);
      cellRuns.set(root, list);
    }
    const lined = [...spans].map(([root, span]) => {
      const runLines = cellLines(cellRuns.get(root) ?? [], exact);
      const lines = runLines.map((line) => ({
        baseline: median(line.map((r) => r.baseline)),
        size: median(line.map((r) => r.fontSize)),
        width: Math.max(...line.map((r) => r.x + r.w)) - Math.min(...line.map((r) => r.x)),
        text: joinRuns(line),
      }));
      const width = (xs[span.c1 + 1] ?? 0) - (xs[span.c0] ?? 0);
      return { span, runLines, lines, width, row: span.r0, rowSpan: span.r1 - span.r0 + 1 };
    });
    // A row holding several records keeps each record's value on its own line.
    const records = recordStacks(lined);
    const cells: TableCell[] = lined.map(({ span, runLines, lines }, k) => ({
      row: span.r0,
      col: span.c0,
      rowSpan: span.r1 - span.r0 + 1,
      colSpan: span.c1 - span.c0 + 1,
      text: records.has(k) ? lines.map((line) => line.text).join('\n') : cellText(runLines),
    }));
    // A currency sign in a cell of its own joins the amount to its right.
    for (const cell of cells) {
      if (!/^[$€£¥]$/.test(cell.text)) continue;
      const next = cells.find((c) => c.row === cell.row && c.col === cell.col + cell.colSpan);
      if (next && next.text !== '') {
        next.text = `${cell.text}${next.text}`;
        cell.text = '';
      }
    }
    // Columns headed by rotated text only (placed once the table is whole) stay, empty or not.
    const labelled = runs
      .filter((r) => isRotated(r) && !used.has(r))
      .flatMap((r) => {
        const start = r.x + Math.min(r.w, r.fontSize) / 2;
        const cy = r.y + r.h / 2;
        return start > x0 && start < x1 && cy > y0 && cy < y1 ? [indexOf(xs, start)] : [];
      });
    const table = compactTable(
      {
        x0,
        y0,
        x1,
        y1,
        rowCount: rowsN,
        colCount: colsN,
        cells,
        ruled: true,
        columns: xs,
      },
      labelled,
    );
    if (table.colCount < 2 && table.rowCount < 2) continue;
    if (table.cells.filter((c) => c.text !== '').length < 2) continue;
    if (table.colCount < 2) continue;
    // A formula in a frame, or a boxed algorithm full of math, is not a table.
    if (isMathLike(inside)) continue;
    for (const run of inside) used.add(run);
    tables.push(unitsRowBelowHeader(table.cells) ? { ...table, headerRows: 2 } : table);
  }
  return { tables, used };
};

/**
 * Whether connected rules around text form a table's grid rather than boxes drawn for another
 * reason. Two signs say they do not:
 * - no inner column rule separates two rows or more: every box has its own left and right edges
 *   (highlight boxes behind the lines of a quoted passage, each as wide as its line);
 * - lines of text run across inner column rules (a diagram's callout boxes laid over a framed
 *   listing: the rules belong to the drawing, not to cells that hold the text).
 *
 * @param xs column edges, ascending; `ys` row edges, ascending.
 * @param vAt whether a vertical rule is drawn at `x` at height `y`.
 */
const boxesFormGrid = (
  xs: readonly number[],
  ys: readonly number[],
  runs: readonly TextRun[],
  vAt: (x: number, y: number) => boolean,
  tolerance: number,
): boolean => {
  const inner = xs.slice(1, -1);
  if (inner.length === 0) return true;
  const rows = ys.length - 1;
  if (rows >= 2) {
    const separated = inner.map(
      (x) => ys.slice(0, -1).filter((y, r) => vAt(x, (y + (ys[r + 1] ?? y)) / 2)).length,
    );
    if (Math.max(...separated) <= 1) return false;
  }
  const crossing = runs.filter((r) => {
    const cy = r.y + r.h / 2;
    return inner.some((x) => r.x + tolerance < x && r.x + r.w - tolerance > x && vAt(x, cy));
  }).length;
  return crossing < 2 || crossing < 0.1 * runs.length;
};

/**
 * Column edges of a table ruled inside only (booktabs-like tables with vertical rules between
 * some columns but none at the sides): when its top and bottom rules both reach past the
 * outermost vertical rule and text lies in between, the end of those rules is one more edge, so
 * the first (or last) column is part of the table rather than left out of it.
 *
 * @param xs vertical rule positions, ascending.
 * @param ys horizontal rule positions, ascending.
 * @returns `xs`, with at most one edge added on each side.
 */
const withOpenSides = (
  xs: readonly number[],
  ys: readonly number[],
  horizontal: readonly Line[],
  runs: readonly TextRun[],
  tolerance: number,
): number[] => {
  const first = xs[0];
  const last = xs[xs.length - 1];
  const top = ys[0];
  const bottom = ys[ys.length - 1];
  if (first === undefined || last === undefined || top === undefined || bottom === undefined) {
    return [...xs];
  }
  const at = (y: number) => horizontal.filter((l) => Math.abs(l.at - y) <= tolerance);
  const edges = [at(top), at(bottom)];
  if (top === bottom || edges.some((lines) => lines.length === 0)) return [...xs];
  // Both the top and the bottom rule must reach the new edge.
  const left = Math.max(...edges.map((lines) => Math.min(...lines.map((l) => l.from))));
  const right = Math.min(...edges.map((lines) => Math.max(...lines.map((l) => l.to))));
  const textBetween = (from: number, to: number): boolean =>
    runs.some((r) => {
      const cx = r.x + r.w / 2;
      const cy = r.y + r.h / 2;
      return cx > from && cx < to && cy > top && cy < bottom;
    });
  const out = [...xs];
  if (first - left > 3 * tolerance && textBetween(left, first)) out.unshift(left);
  if (right - last > 3 * tolerance && textBetween(last, right)) out.push(right);
  return out;
};

/**
 * Drops grid rows and columns in which no cell starts or which hold no text at all.
 *
 * @param labelledColumns grid columns kept even without text (their header is rotated text,
 *   placed later).
 */
export const compactTable = (table: Table, labelledColumns: readonly number[] = []): Table => {
  const keepRows: number[] = [];
  const keepCols: number[] = [];
  const filled = table.cells.filter((c) => c.text !== '');
  const rowSet = new Set(filled.filter((c) => c.rowSpan === 1).map((c) => c.row));
  const colSet = new Set([
    ...filled.filter((c) => c.colSpan === 1).map((c) => c.col),
    ...labelledColumns,
  ]);
  // Every filled cell keeps at least one of the rows and columns it spans.
  for (const c of filled) {
    if (![...rowSet].some((r) => r >= c.row && r < c.row + c.rowSpan)) rowSet.add(c.row);
    if (![...colSet].some((k) => k >= c.col && k < c.col + c.colSpan)) colSet.add(c.col);
  }
  keepRows.push(...[...rowSet].sort((a, b) => a - b));
  keepCols.push(...[...colSet].sort((a, b) => a - b));
  const rowIndex = new Map(keepRows.map((r, i) => [r, i]));
  const colIndex = new Map(keepCols.map((c, i) => [c, i]));
  const cells: TableCell[] = [];
  const firstKept = (kept: number[], start: number, span: number): number | undefined =>
    kept.find((k) => k >= start && k < start + span);
  for (const cell of table.cells) {
    const keptRow = firstKept(keepRows, cell.row, cell.rowSpan);
    const keptCol = firstKept(keepCols, cell.col, cell.colSpan);
    if (keptRow === undefined || keptCol === undefined) continue;
    if (cell.text === '' && (keptRow !== cell.row || keptCol !== cell.col)) continue;
    const row = rowIndex.get(keptRow);
    const col = colIndex.get(keptCol);
    if (row === undefined || col === undefined) continue;
    const rowSpan = keepRows.filter((r) => r >= cell.row && r < cell.row + cell.rowSpan).length;
    const colSpan = keepCols.filter((c) => c >= cell.col && c < cell.col + cell.colSpan).length;
    cells.push({ ...cell, row, col, rowSpan: Math.max(1, rowSpan), colSpan: Math.max(1, colSpan) });
  }
  const edges = table.columns;
  const columns =
    edges && edges.length === table.colCount + 1 && keepCols.length > 0
      ? [edges[0] ?? 0, ...keepCols.slice(1).map((k) => edges[k] ?? 0), edges[table.colCount] ?? 0]
      : undefined;
  return {
    ...table,
    rowCount: keepRows.length,
    colCount: keepCols.length,
    cells,
    ...(columns ? { columns } : {}),
  };
};

/** Options of {@link streamTable}. */
export interface StreamOptions {
  /** Least number of rows with two or more cells. */
  minMultiRows: number;
  /** Largest mean number of words per cell (prose is longer). */
  maxWordsPerCell: number;
}

/**
 * Reads rows of fragments as an unruled (stream) table: column boundaries are the x-intervals
 * left empty by (almost) every row; a fragment covering several columns is a spanning cell.
 *
 * @returns the table, or null when the rows do not look like one (fewer than two columns,
 *   too few multi-cell rows, prose-length cells).
 */
export const streamTable = (input: readonly Row[], options: StreamOptions): Table | null => {
  if (input.length === 0) return null;
  const rows = input.map(mergeCurrency);
  const fragments = rows.flatMap((r) => r.fragments);
  const x0 = Math.min(...fragments.map((f) => f.x0));
  const x1 = Math.max(...fragments.map((f) => f.x1));
  const em = median(fragments.map((f) => f.fontSize));
  // Coverage sweep: how many rows put ink at each x.
  const events: [number, number][] = [];
  for (const f of fragments) {
    events.push([f.x0, 1], [f.x1, -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  // A few rows may cross a gutter (spanning headers).
  const allowed = rows.length >= 4 ? Math.max(1, Math.floor(rows.length * 0.15)) : 0;
  const gaps: [number, number][] = [];
  let depth = 0;
  let gapStart: number | null = null;
  for (const [x, d] of events) {
    const before = depth;
    depth += d;
    if (before > allowed && depth <= allowed) gapStart = x;
    else if (before <= allowed && depth > allowed && gapStart !== null) {
      if (x - gapStart >= 0.4 * em && gapStart > x0 && x < x1) gaps.push([gapStart, x]);
      gapStart = null;
    }
  }
  if (gaps.length === 0) return null;
  const bounds = [x0, ...gaps.flatMap((g) => gapBounds(g, fragments, em)), x1];
  const colCount = bounds.length - 1;
  const colOf = (x: number): number => {
    for (let c = 0; c < colCount; c++) if (x < (bounds[c + 1] ?? Infinity)) return c;
    return colCount - 1;
  };
  const cells: TableCell[] = [];
  let multiRows = 0;
  let words = 0;
  let filled = 0;
  rows.forEach((row, r) => {
    const byCol = new Map<number, { frags: Fragment[]; span: number }>();
    for (const f of row.fragments) {
      let c0 = colOf(f.x0 + 0.01);
      const c1 = colOf(f.x1 - 0.01);
      // A cell starting in a column another cell of the row holds, and reaching into the next
      // column, free in this row, is that column's: a header set wider than its column's values
      // and starting left of the gap's middle (`Cubic | Weight` over `0.500 | 187`).
      if (byCol.has(c0) && c1 > c0 && !byCol.has(c0 + 1)) c0++;
      const entry = byCol.get(c0) ?? { frags: [], span: 1 };
      entry.frags.push(f);
      entry.span = Math.max(entry.span, c1 - c0 + 1);
      byCol.set(c0, entry);
    }
    if (byCol.size >= 2) multiRows++;
    const starts = [...byCol.keys()].sort((a, b) => a - b);
    let c = 0;
    while (c < colCount) {
      const entry = byCol.get(c);
      if (entry) {
        const text = entry.frags.map((f) => f.text).join(' ');
        // A span ends where the next cell of the row starts, so that cell keeps its value.
        const next = starts.find((k) => k > c) ?? colCount;
        const span = Math.min(entry.span, colCount - c, next - c);
        cells.push({ row: r, col: c, rowSpan: 1, colSpan: span, text });
        words += wordCount(text);
        filled++;
        c += span;
      } else {
        cells.push({ row: r, col: c, rowSpan: 1, colSpan: 1, text: '' });
        c++;
      }
    }
  });
  if (multiRows < options.minMultiRows) return null;
  if (filled === 0 || words / filled > options.maxWordsPerCell) return null;
  const headerRows = unitsRowBelowHeader(cells) ? 2 : 1;
  return {
    ...(headerRows > 1 ? { headerRows } : {}),
    x0,
    y0: Math.min(...rows.map((r) => r.y0)),
    x1,
    y1: Math.max(...rows.map((r) => r.y1)),
    rowCount: rows.length,
    colCount,
    cells,
    ruled: false,
    columns: bounds,
  };
};

/**
 * The column bounds in one column gap of a stream table: its middle; or, when the few rows allowed
 * to cross gaps put text wholly inside it, an em clear of both sides, the middles of the space
 * left and right of that text, which is then a column of its own: a header over a column with no
 * values (`Extras` over empty cells) is not the neighbouring column's.
 */
const gapBounds = (
  [start, end]: readonly [number, number],
  fragments: readonly Fragment[],
  em: number,
): number[] => {
  const inside = fragments.filter((f) => f.x0 > start && f.x1 < end);
  if (inside.length > 0) {
    const left = Math.min(...inside.map((f) => f.x0));
    const right = Math.max(...inside.map((f) => f.x1));
    if (left - start >= em && end - right >= em) {
      return [(start + left) / 2, (right + end) / 2];
    }
  }
  return [(start + end) / 2];
};

/** A units cell: `(%)`, `(m)`, `[ms]`, `%`, `(secs)`, `(USD m)`. */
const UNITS = /^(?:\([^()]{1,12}\)|\[[^[\]]{1,12}\]|%)$/;

/**
 * Whether the second row holds only units (`(%)`, `[ms]`) under names in the first row: it is
 * part of the header, not a row of data.
 */
const unitsRowBelowHeader = (cells: readonly TableCell[]): boolean => {
  const second = cells.filter((c) => c.row === 1 && c.text.trim() !== '');
  if (second.length === 0 || !second.every((c) => UNITS.test(c.text.trim()))) return false;
  const first = cells.filter((c) => c.row === 0 && c.text.trim() !== '');
  return first.length >= second.length;
};

/** A currency sign set apart from its amount (`$  178`) joins the amount's fragment. */
const mergeCurrency = (row: Row): Row => {
  const out: Fragment[] = [];
  const frags = row.fragments;
  for (let i = 0; i < frags.length; i++) {
    const f = frags[i];
    const next = frags[i + 1];
    if (f && next && /^[$€£¥]$/.test(f.text.trim())) {
      out.push(makeFragment([...f.runs, ...next.runs]));
      i++;
    } else if (f) {
      out.push(f);
    }
  }
  return out.length === frags.length ? row : rowOf(out);
};

/** Median of a list (0 when empty). */
export const median = (values: readonly number[]): number => {
  if (values.length === 0) return 0;
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/**
 * Finds tables bounded by horizontal rules only (top, middle and bottom rules, as in
 * typeset papers): two or more stacked rules of about the same extent with text rows between
 * them that read as a stream table.
 *
 * @returns the tables and the fragments they consumed.
 */
export const findRuleBoundedTables = (
  segments: readonly Segment[],
  rows: readonly Row[],
  pageWidth: number,
  pageHeight: number,
  scale: number,
): { tables: Table[]; used: Set<Fragment> } => {
  const { horizontal } = ruleLines(segments, scale);
  const tables: Table[] = [];
  const used = new Set<Fragment>();
  const lines = horizontal
    .filter((l) => l.to - l.from >= pageWidth * 0.15)
    .sort((a, b) => a.at - b.at);
  const consumed = new Set<Line>();
  for (const first of lines) {
    if (consumed.has(first)) continue;
    const tol = Math.max(6 * scale, (first.to - first.from) * 0.04);
    const stack = lines.filter(
      (l) =>
        l.at >= first.at &&
        Math.abs(l.from - first.from) <= tol &&
        Math.abs(l.to - first.to) <= tol &&
        !consumed.has(l),
    );
    // Walk down while consecutive rules stay close enough to belong to one table.
    const chain: Line[] = [first];
    for (const l of stack.slice(1)) {
      const last = chain[chain.length - 1];
      if (last && l.at - last.at <= pageHeight * 0.45) chain.push(l);
      else break;
    }
    if (chain.length < 2) continue;
    const top = chain[0]?.at ?? 0;
    const bottom = chain[chain.length - 1]?.at ?? 0;
    // Rules with tick marks on them are a plot's axes: its labels are not a table.
    if (
      plotTicks(segments, { x0: first.from, y0: top, x1: first.to, y1: bottom }, scale) >=
      PLOT_TICKS
    ) {
      for (const l of chain) consumed.add(l);
      continue;
    }
    const inside: Row[] = [];
    for (const r of rows) {
      if (r.baseline <= top || r.y0 >= bottom) continue;
      const frags = r.fragments.filter(
        (f) =>
          !used.has(f) &&
          !f.runs.some(isRotated) &&
          f.x0 >= first.from - tol &&
          f.x1 <= first.to + tol,
      );
      if (frags.length > 0) inside.push(rowOf(frags));
    }
    // Fraction bars and overlines of a display equation are rules too; a listing set in a
    // monospace font between rules is code.
    if (
      inside.length < 2 ||
      inside.every((r) => r.fragments.every((f) => f.runs.every((run) => run.monospace))) ||
      isMathLike(inside.flatMap((r) => r.fragments.flatMap((f) => f.runs)))
    ) {
      continue;
    }
    const table = streamTable(inside, { minMultiRows: 2, maxWordsPerCell: 8 });
    if (!table || table.colCount < 2) continue;
    for (const l of chain) consumed.add(l);
    for (const r of inside) for (const f of r.fragments) used.add(f);
    // The box runs from the last rule above its rows to the first rule below them: rows of the
    // chain claimed by a ruled grid already are not part of this table (a header band over a
    // grid is joined to the grid later, by its position).
    const rowsTop = Math.min(...inside.map((r) => r.y0));
    const rowsBottom = Math.max(...inside.map((r) => r.y1));
    const above = chain.filter((l) => l.at <= rowsTop + tol).map((l) => l.at);
    const below = chain.filter((l) => l.at >= rowsBottom - tol).map((l) => l.at);
    tables.push({
      ...table,
      x0: Math.min(table.x0, first.from),
      x1: Math.max(table.x1, first.to),
      y0: above.length > 0 ? Math.max(...above) : top,
      y1: below.length > 0 ? Math.min(...below) : bottom,
    });
  }
  tables.push(...headerBandsOverGrids(segments, rows, used, scale));
  return { tables, used };
};

/**
 * Header rows set between horizontal rules just above a grid drawn as cell boxes: the column
 * names between a top rule and the grid (`Source  Type  Tokens …`), or a stack of header lines
 * each underlined (`Year Ended` over `Jan 26, 2025  Jan 28, 2024 …` over `(In millions)`). They
 * are read as a short table of their own, joined to the grid below by its position
 * ({@link mergeStackedTables}).
 *
 * A band is the text between the grid's top edge and the rules above it that lie within the
 * grid's width (each within 2.5 lines of the next), plus the line set on the topmost rule when
 * that rule is narrower than the grid (a spanning header underlined). No vertical rule may cross
 * the band; its lines hold short cells inside the grid's width, one line at least with two or
 * more of them. A header cell whose underline reaches over more columns spans them.
 *
 * @param used fragments already in tables; the band's fragments are added.
 */
const headerBandsOverGrids = (
  segments: readonly Segment[],
  rows: readonly Row[],
  used: Set<Fragment>,
  scale: number,
): Table[] => {
  const { horizontal, vertical } = ruleLines(segments, scale);
  const tol = 3 * scale;
  const em = median(rows.map((r) => r.fontSize));
  if (em <= 0) return [];
  // Grid tops: two or more vertical rules start on one horizontal rule.
  const tops: { at: number; x0: number; x1: number }[] = [];
  for (const h of horizontal) {
    const starting = vertical.filter(
      (v) => Math.abs(v.from - h.at) <= tol && v.at >= h.from - tol && v.at <= h.to + tol,
    );
    if (starting.length < 2) continue;
    const x0 = Math.min(...starting.map((v) => v.at));
    const x1 = Math.max(...starting.map((v) => v.at));
    if (x1 - x0 < 4 * em) continue;
    if (tops.some((t) => Math.abs(t.at - h.at) <= tol && t.x0 <= x1 && t.x1 >= x0)) continue;
    tops.push({ at: h.at, x0, x1 });
  }
  const out: Table[] = [];
  for (const grid of tops) {
    const within = (from: number, to: number): boolean =>
      from >= grid.x0 - tol && to <= grid.x1 + tol;
    // Rule levels above the grid, walked up while each is close to the one below it.
    const levels: Line[][] = [];
    let floor = grid.at;
    for (;;) {
      const next = horizontal
        .filter((l) => l.at < floor - tol && floor - l.at <= 2.5 * em && within(l.from, l.to))
        .sort((a, b) => b.at - a.at)[0];
      if (!next) break;
      const level = horizontal.filter(
        (l) => Math.abs(l.at - next.at) <= tol / 2 && within(l.from, l.to),
      );
      levels.push(level);
      floor = next.at;
    }
    const topLevel = levels[levels.length - 1];
    if (!topLevel) continue;
    const bandTop = floor;
    if (vertical.some((v) => v.from < grid.at - tol && v.to > bandTop + tol && within(v.at, v.at)))
      continue;
    const joined = (level: Line[]): Line[] => joinPieces(level, tol);
    const topExtent = joined(topLevel);
    const narrower = (l: Line): boolean => l.from > grid.x0 + 2 * em || l.to < grid.x1 - 2 * em;
    const band: Row[] = [];
    let outside = false;
    for (const r of rows) {
      const cy = (r.y0 + r.y1) / 2;
      const frags = r.fragments.filter((f) => !used.has(f) && !f.runs.some(isRotated));
      if (frags.length === 0) continue;
      const inBand = cy > bandTop && cy < grid.at;
      // The line set on the topmost rule, under an underline narrower than the grid.
      const onTop =
        cy < bandTop &&
        bandTop - r.y1 <= 0.6 * em &&
        bandTop - r.y1 >= -tol &&
        frags.every((f) =>
          topExtent.some((l) => narrower(l) && f.x0 >= l.from - tol && f.x1 <= l.to + tol),
        );
      if (!inBand && !onTop) continue;
      if (!frags.every((f) => within(f.x0, f.x1))) {
        outside = true;
        break;
      }
      band.push(rowOf(frags));
    }
    if (outside || band.length === 0 || band.length > 4) continue;
    const fragments = band.flatMap((r) => r.fragments);
    if (!band.some((r) => r.fragments.length >= 2)) continue;
    if (fragments.some((f) => wordCount(f.text) > 6)) continue;
    if (isMathLike(fragments.flatMap((f) => f.runs))) continue;
    band.sort((a, b) => a.y0 - b.y0);
    const table = streamTable(band, { minMultiRows: 1, maxWordsPerCell: 6 });
    const edges = table?.columns;
    if (!table || !edges || table.colCount < 2) continue;
    const cells = spanUnderlined(table, band, levels.map(joined), em, tol);
    const ruleFrom = Math.min(...levels.flat().map((l) => l.from));
    const ruleTo = Math.max(...levels.flat().map((l) => l.to));
    for (const f of fragments) used.add(f);
    out.push({
      ...table,
      cells,
      x0: Math.min(table.x0, ruleFrom),
      x1: Math.max(table.x1, ruleTo),
      y0: Math.min(table.y0, bandTop),
      y1: grid.at,
    });
  }
  return out;
};

/** Pieces of one rule drawn apart by less than `gap` (a stroke's width) joined into one. */
const joinPieces = (pieces: readonly Line[], gap: number): Line[] => {
  const out: Line[] = [];
  for (const l of pieces.slice().sort((a, b) => a.from - b.from)) {
    const last = out[out.length - 1];
    if (last && l.from - last.to <= gap) last.to = Math.max(last.to, l.to);
    else out.push({ ...l });
  }
  return out;
};

/**
 * Cells of a header band with each underlined cell spanning the columns its underline covers
 * (`Year Ended` centred over three dates, ruled under across all three), where those columns are
 * empty on its row.
 */
const spanUnderlined = (
  table: Table,
  band: readonly Row[],
  levels: readonly Line[][],
  em: number,
  tol: number,
): TableCell[] => {
  const edges = table.columns ?? [];
  const centres = edges.slice(0, -1).map((x, k) => (x + (edges[k + 1] ?? x)) / 2);
  let cells = table.cells;
  band.forEach((row, r) => {
    for (const f of row.fragments) {
      const cx = (f.x0 + f.x1) / 2;
      const under = levels
        .flat()
        .find(
          (l) =>
            l.at >= f.y1 - tol && l.at - f.y1 <= 0.6 * em && l.from <= f.x0 + tol && l.to >= f.x1,
        );
      if (!under) continue;
      const covered = centres.flatMap((x, k) => (x >= under.from && x <= under.to ? [k] : []));
      const first = covered[0];
      const last = covered[covered.length - 1];
      if (first === undefined || last === undefined || last === first) continue;
      const own = cells.find(
        (c) =>
          c.row === r &&
          c.text !== '' &&
          cx >= (edges[c.col] ?? 0) &&
          cx <= (edges[c.col + c.colSpan] ?? 0),
      );
      if (!own || own.col < first || own.col + own.colSpan - 1 > last) continue;
      const others = cells.filter(
        (c) => c.row === r && c !== own && c.col + c.colSpan > first && c.col <= last,
      );
      if (others.some((c) => c.text !== '')) continue;
      cells = cells
        .filter((c) => !others.includes(c))
        .map((c) => (c === own ? { ...c, col: first, colSpan: last - first + 1 } : c));
    }
  });
  return cells;
};

/**
 * Boundaries between text lines of grid rows that hold several records without rules between
 * them: a row is split when its runs form two or more lines and every non-empty column has text
 * on every line (a single wrapped cell does not split its row).
 *
 * @returns y positions (pixels) midway between consecutive lines of such rows.
 */
const stackedRowBoundaries = (
  ys: readonly number[],
  xs: readonly number[],
  runs: readonly TextRun[],
): number[] => {
  const boundaries: number[] = [];
  for (let r = 0; r + 1 < ys.length; r++) {
    const top = ys[r] ?? 0;
    const bottom = ys[r + 1] ?? 0;
    const inRow = runs
      .filter((run) => run.y + run.h / 2 > top && run.y + run.h / 2 < bottom)
      .sort((a, b) => a.y + a.h / 2 - (b.y + b.h / 2));
    if (inRow.length < 4) continue;
    const height = median(inRow.map((run) => run.h));
    const lines: TextRun[][] = [];
    for (const run of inRow) {
      const last = lines[lines.length - 1];
      const prev = last?.[last.length - 1];
      if (last && prev && run.y + run.h / 2 - (prev.y + prev.h / 2) <= 0.5 * height) last.push(run);
      else lines.push([run]);
    }
    if (lines.length < 2) continue;
    let nonEmpty = 0;
    let everyLine = true;
    for (let c = 0; c + 1 < xs.length && everyLine; c++) {
      const left = xs[c] ?? 0;
      const right = xs[c + 1] ?? 0;
      const inCol = (run: TextRun) => run.x + run.w / 2 > left && run.x + run.w / 2 < right;
      const occupied = lines.filter((line) => line.some(inCol)).length;
      if (occupied === 0) continue;
      nonEmpty++;
      if (occupied !== lines.length) everyLine = false;
    }
    if (!everyLine || nonEmpty < 2) continue;
    for (let k = 0; k + 1 < lines.length; k++) {
      const above = Math.max(...(lines[k] ?? []).map((run) => run.y + run.h));
      const below = Math.min(...(lines[k + 1] ?? []).map((run) => run.y));
      boundaries.push((above + below) / 2);
    }
  }
  return boundaries;
};

/**
 * Puts rotated text inside a table (header cells set at 45° or 90° over narrow columns) into the
 * last header row, in the column under where the text starts (the lower left of its box: the
 * slant carries the rest of it over the next columns). A spanning header cell that stays empty
 * otherwise is split into one cell per column, so each column gets its own label.
 *
 * @param tables the page's tables, whole (after stacked ones are merged); changed in place.
 * @param rows the page's rows; fragments of rotated runs are looked for in them.
 * @returns the fragments placed in a table (out of the running text).
 */
export const placeRotatedText = (tables: readonly Table[], rows: readonly Row[]): Set<Fragment> => {
  const placed = new Set<Fragment>();
  const fragments = rows
    .flatMap((r) => r.fragments)
    .filter((f) => f.runs.length > 0 && f.runs.every(isRotated))
    .sort((a, b) => a.x0 - b.x0);
  for (const f of fragments) {
    const cy = (f.y0 + f.y1) / 2;
    const start = f.x0 + Math.min(f.x1 - f.x0, f.fontSize) / 2;
    const table = tables.find(
      (t) => t.columns && cy > t.y0 && cy < t.y1 && start > t.x0 && start < t.x1,
    );
    const edges = table?.columns;
    if (!table || !edges) continue;
    let col = edges.findIndex((x, k) => k + 1 < edges.length && start < (edges[k + 1] ?? x));
    if (col < 0) col = table.colCount - 1;
    const row = Math.max(0, (table.headerRows ?? 1) - 1);
    const index = table.cells.findIndex(
      (c) => c.row <= row && row < c.row + c.rowSpan && c.col <= col && col < c.col + c.colSpan,
    );
    const cell = table.cells[index];
    if (!cell) continue;
    let target = cell;
    if (cell.colSpan > 1 && cell.text === '') {
      const split = Array.from({ length: cell.colSpan }, (_, k) => ({
        ...cell,
        col: cell.col + k,
        colSpan: 1,
      }));
      table.cells.splice(index, 1, ...split);
      target = split[col - cell.col] ?? cell;
    }
    target.text = target.text === '' ? f.text : `${target.text} ${f.text}`;
    placed.add(f);
  }
  return placed;
};

/**
 * Row boundaries drawn by the column rules alone: a table whose cells are each framed on their
 * sides only (the column rules drawn one piece per cell, horizontal rules at the top, under the
 * header and at the bottom) has a row boundary wherever the pieces of most column rules end, even
 * when a row holds a wrapped cell (which {@link stackedRowBoundaries} would not split).
 *
 * A boundary is kept when pieces of at least two column rules, and of at least 60% of those
 * crossing it, end within `tolerance` of it, it lies away from the horizontal rules, and no run
 * of text is cut through its middle by it.
 *
 * @param segments the page's rule segments as drawn (before collinear pieces are merged).
 * @param ys horizontal rule positions of the table, ascending.
 * @param xs column edges of the table, ascending.
 * @returns y positions (pixels) of the boundaries.
 */
const brokenRuleBoundaries = (
  segments: readonly Segment[],
  ys: readonly number[],
  xs: readonly number[],
  runs: readonly TextRun[],
  tolerance: number,
): number[] => {
  const top = ys[0];
  const bottom = ys[ys.length - 1];
  if (top === undefined || bottom === undefined || xs.length < 3) return [];
  const column = (x: number): number => xs.findIndex((e) => Math.abs(e - x) <= tolerance);
  const pieces = segments.flatMap((s) => {
    if (Math.abs(s.x1 - s.x2) > tolerance / 2) return [];
    const c = column((s.x1 + s.x2) / 2);
    const from = Math.min(s.y1, s.y2);
    const to = Math.max(s.y1, s.y2);
    return c < 0 || to < top - tolerance || from > bottom + tolerance ? [] : [{ c, from, to }];
  });
  const ends = pieces
    .flatMap((p) => [
      { c: p.c, y: p.from },
      { c: p.c, y: p.to },
    ])
    .filter((e) => ys.every((y) => Math.abs(y - e.y) > 2 * tolerance))
    .sort((a, b) => a.y - b.y);
  const groups: { c: number; y: number }[][] = [];
  for (const e of ends) {
    const last = groups[groups.length - 1];
    const first = last?.[0];
    if (last && first && e.y - first.y <= tolerance) last.push(e);
    else groups.push([e]);
  }
  const boundaries: number[] = [];
  for (const group of groups) {
    const y = group.reduce((sum, e) => sum + e.y, 0) / group.length;
    const ending = new Set(group.map((e) => e.c)).size;
    const crossing = new Set(
      pieces.filter((p) => p.from <= y + tolerance && p.to >= y - tolerance).map((p) => p.c),
    ).size;
    if (ending < 2 || ending < 0.6 * crossing) continue;
    if (runs.some((r) => y > r.y + 0.25 * r.h && y < r.y + 0.75 * r.h)) continue;
    boundaries.push(y);
  }
  return boundaries;
};
