import type { Block, Line } from './block.js';
import { escapeBlockStart, escapeInline, renderTable } from './markdown.js';
import type { Table, TableCell } from './tables.js';
import type { LineTable } from './unruled-tables.js';

/**
 * Tables of contents (and lists of figures, indexes): each entry is a line that ends in a dot
 * leader and a page number (`1.2 Current state of IBM i security . . . . . 2`). Such lines are
 * the rows of a two-column table, the entry (with its leader, as printed) and the page, so that
 * each entry stays one row instead of running into its neighbours as a paragraph.
 */

/** A dot leader (four dots or more, spaced or not) and the page number closing a line. */
const LEADER_LINE = /^(.*?(?:\.\s*){4,})\s*(\d{1,4}|[ivxlcdm]{1,7})$/i;

/** Entry and page of a line ending in a dot leader and a page number, if it does. */
export const leaderEntry = (text: string): { entry: string; page: string } | undefined => {
  const m = LEADER_LINE.exec(text.trim());
  if (!m?.[1] || !m[2] || !/[\p{L}\p{N}]/u.test(m[1])) return undefined;
  return { entry: m[1].trim(), page: m[2] };
};

/** Tables made here (merged across regions by {@link joinContentsTables}). */
const contentsTables = new WeakSet<Table>();

const tableOf = (rows: { entry: string; page: string }[], lines: readonly Line[]): Table => {
  const cells: TableCell[] = rows.flatMap((r, row) => [
    { row, col: 0, rowSpan: 1, colSpan: 1, text: r.entry },
    { row, col: 1, rowSpan: 1, colSpan: 1, text: r.page },
  ]);
  const table: Table = {
    x0: Math.min(...lines.map((l) => l.x0)),
    y0: Math.min(...lines.map((l) => l.y0)),
    x1: Math.max(...lines.map((l) => l.x1)),
    y1: Math.max(...lines.map((l) => l.y1)),
    rowCount: rows.length,
    colCount: 2,
    cells,
    ruled: false,
  };
  contentsTables.add(table);
  return table;
};

/**
 * The contents entries among a region's lines: runs of lines ending in a leader and a page
 * number; an entry set on two lines (the first without a leader, within 1.5 × `spacing` above
 * the second) is one row.
 *
 * @returns tables keyed by their first line, as {@link findLineTables} gives them.
 */
export const findContentsTables = (
  lines: readonly Line[],
  spacing: number,
): Map<number, LineTable> => {
  const found = new Map<number, LineTable>();
  let k = 0;
  while (k < lines.length) {
    const start = k;
    const rows: { entry: string; page: string }[] = [];
    while (k < lines.length) {
      const line = lines[k];
      if (!line) break;
      const own = leaderEntry(line.text);
      if (own) {
        rows.push(own);
        k += 1;
        continue;
      }
      // The first line of an entry that wraps.
      const next = lines[k + 1];
      const wrapped = next && leaderEntry(next.text);
      if (!next || !wrapped || next.baseline - line.baseline > 1.5 * spacing) break;
      rows.push({ entry: `${line.text.trim()} ${wrapped.entry}`, page: wrapped.page });
      k += 2;
    }
    if (rows.length > 0) {
      found.set(start, { table: tableOf(rows, lines.slice(start, k)), start, end: k });
    } else {
      k += 1;
    }
  }
  return found;
};

/**
 * Contents tables that follow one another in reading order (the regions of one contents page,
 * cut at the gaps between its parts) are one table; a single entry left on its own (a lone line
 * ending in a leader) is a paragraph again. Returns the blocks left; `blocks` is not changed.
 */
export const joinContentsTables = (blocks: readonly Block[]): Block[] => {
  const out: Block[] = [];
  for (const b of blocks) {
    const prev = out[out.length - 1];
    if (prev?.table && b.table && contentsTables.has(prev.table) && contentsTables.has(b.table)) {
      const a = prev.table;
      const next = b.table;
      const table: Table = {
        ...a,
        x0: Math.min(a.x0, next.x0),
        y0: Math.min(a.y0, next.y0),
        x1: Math.max(a.x1, next.x1),
        y1: Math.max(a.y1, next.y1),
        rowCount: a.rowCount + next.rowCount,
        cells: [...a.cells, ...next.cells.map((c) => ({ ...c, row: c.row + a.rowCount }))],
      };
      contentsTables.add(table);
      out[out.length - 1] = {
        ...prev,
        table,
        markdown: renderTable(table),
        text: `${prev.text} ${b.text}`,
        x0: table.x0,
        y0: table.y0,
        x1: table.x1,
        y1: table.y1,
      };
      continue;
    }
    out.push(b);
  }
  return out.map((b) =>
    b.table && contentsTables.has(b.table) && b.table.rowCount < 2
      ? {
          kind: 'paragraph',
          markdown: escapeBlockStart(escapeInline(b.text)),
          text: b.text,
          x0: b.x0,
          y0: b.y0,
          x1: b.x1,
          y1: b.y1,
          confidence: 0.85,
        }
      : b,
  );
};
