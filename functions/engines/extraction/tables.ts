import { captionBefore, type DocLine, type Table } from './document-model.js';
import { plain } from './markdown-text.js';

/**
 * Tables of the Markdown as grids of cell texts: GFM rows split on unescaped pipes, HTML tables
 * with `colspan`/`rowspan` spread over the cells they cover (within a bound), the first row the
 * header.
 */

/** The cells of a GFM table row, as plain text. */
export function gfmCells(row: string): string[] {
  const cells: string[] = [];
  let current = '';
  const body = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < body.length; i++) {
    const char = body.charAt(i);
    if (char === '\\' && body[i + 1] === '|') {
      current += '|';
      i++;
    } else if (char === '|') {
      cells.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  cells.push(current);
  return cells.map(plain);
}

/** Cells that `colspan`/`rowspan` may fill in one HTML table; past it, spans count as 1. */
const MAX_SPREAD_CELLS = 100_000;

/**
 * An HTML table as a grid of cell texts, with `colspan`/`rowspan` spread over the cells they cover.
 * A header cell spanning as many columns as it has words (OCR merging neighbouring headers, such
 * as "Cubic Weight" over two columns) is split into one word per column.
 */
export function htmlTableGrid(html: string): string[][] {
  const grid: string[][] = [];
  const pending = new Map<string, string>();
  // A row or cell ends before the next one opens: an unclosed `<tr>` or `<td>` then costs one
  // scan to the next opener, not one to the end of the table for each of them.
  const rows = html.match(/<tr[\s>](?:(?!<tr[\s>])[\s\S])*?<\/tr>/gi) ?? [];
  // Spans spread at most this many cells over a table: `rowspan="50"` on every cell of a long
  // table would otherwise fill a grid of rows × 50 × 50.
  let spread = MAX_SPREAD_CELLS;
  rows.forEach((row, r) => {
    const out: string[] = [];
    grid.push(out);
    let c = 0;
    const skipSpanned = () => {
      while (pending.has(`${String(r)}:${String(c)}`)) {
        out[c] = pending.get(`${String(r)}:${String(c)}`) ?? '';
        c++;
      }
    };
    for (const cell of row.matchAll(/<(t[hd])([^<>]*)>((?:(?!<t[hdr][\s>])[\s\S])*?)<\/\1>/gi)) {
      skipSpanned();
      const attributes = cell[2] ?? '';
      const span = (name: string) =>
        Math.min(
          50,
          Math.max(1, Number(new RegExp(`${name}="?(\\d+)`, 'i').exec(attributes)?.[1] ?? 1)),
        );
      const colspan = spread > 0 ? span('colspan') : 1;
      // A span past the last row covers nothing.
      const rowspan = spread > 0 ? Math.min(span('rowspan'), rows.length - r) : 1;
      spread -= colspan * rowspan;
      const text = plain(cell[3] ?? '');
      const words = text.split(' ');
      const isHeader = cell[1]?.toLowerCase() === 'th';
      const pieces =
        colspan > 1 && isHeader && words.length >= colspan
          ? [...words.slice(0, colspan - 1), words.slice(colspan - 1).join(' ')]
          : Array.from({ length: colspan }, () => text);
      for (let k = 0; k < colspan; k++) {
        const piece = pieces[k] ?? '';
        out[c] = piece;
        for (let down = 1; down < rowspan; down++)
          pending.set(`${String(r + down)}:${String(c)}`, piece);
        c++;
      }
    }
    skipSpanned();
  });
  // Rows may have holes where a malformed table skipped cells.
  return grid.map((row) => Array.from({ length: row.length }, (_, i) => row[i] ?? ''));
}

/** A table from its grid (rows padded to the widest), captioned by the line before `before`'s end. */
export function toTable(
  grid: string[][],
  line: number,
  page: number,
  before: readonly DocLine[],
): Table {
  const width = Math.max(...grid.map((row) => row.length));
  const pad = (row: string[]) => Array.from({ length: width }, (_, i) => row[i] ?? '');
  const [header = [], ...rows] = grid.map(pad);
  return { line, page, header, rows, caption: captionBefore(before, before.length) };
}
