import type { Table } from './tables.js';

/**
 * Escapes characters that Markdown would read as syntax inside running text: emphasis,
 * code, raw HTML, and pipes (which could start a table).
 *
 * @example
 * escapeInline('a_b * c | d'); // 'a\\_b \\* c \\| d'
 */
export const escapeInline = (text: string): string =>
  text
    .replace(/\\/g, '\\\\')
    .replace(/([*_`|])/g, '\\$1')
    .replace(/<(?=[A-Za-z/!?])/g, '&lt;');

/** Escapes what would make a paragraph's first characters a heading, quote, list or rule. */
export const escapeBlockStart = (text: string): string =>
  text
    .replace(/^(#{1,6})(?=\s|$)/, '\\$1')
    .replace(/^>/, '\\>')
    .replace(/^([-+])(?=\s)/, '\\$1')
    .replace(/^(\d{1,9})([.)])(?=\s)/, '$1\\$2')
    .replace(/^(=+|-+)$/, '\\$1');

const htmlEscape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The lines of a cell (one per record it holds) as `<br>`-separated, in GFM and HTML alike. */
const lineBreaks = (text: string): string =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('<br>');

/**
 * Renders a table as a GFM pipe table, or as HTML `<table>` when a cell spans rows or columns
 * (GFM cannot express spans). The table's header rows ({@link Table.headerRows}, default 1) are
 * `<th>` rows in HTML; in GFM, which has one header row, a multi-row header (a units row under
 * its names) is merged into it column by column (`Accuracy` over `(%)` → `Accuracy (%)`). The
 * lines of a cell holding several records are set apart by `<br>` (`OTSL<br>HTML`).
 */
export const renderTable = (table: Table): string => {
  const headerRows = Math.min(Math.max(1, table.headerRows ?? 1), table.rowCount);
  const spans = table.cells.some((c) => c.rowSpan > 1 || c.colSpan > 1);
  if (spans) {
    const out: string[] = ['<table>'];
    for (let r = 0; r < table.rowCount; r++) {
      const cells = table.cells.filter((c) => c.row === r).sort((a, b) => a.col - b.col);
      const tag = r < headerRows ? 'th' : 'td';
      const inner = cells
        .map((c) => {
          const attrs =
            (c.colSpan > 1 ? ` colspan="${c.colSpan}"` : '') +
            (c.rowSpan > 1 ? ` rowspan="${c.rowSpan}"` : '');
          return `<${tag}${attrs}>${lineBreaks(htmlEscape(c.text))}</${tag}>`;
        })
        .join('');
      out.push(`<tr>${inner}</tr>`);
    }
    out.push('</table>');
    return out.join('\n');
  }
  const grid: string[][] = Array.from({ length: table.rowCount }, () =>
    Array.from({ length: table.colCount }, () => ''),
  );
  for (const c of table.cells) {
    const row = grid[c.row];
    if (row && c.col < row.length) row[c.col] = lineBreaks(escapeInline(c.text));
  }
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  const header = Array.from({ length: table.colCount }, (_, c) =>
    grid
      .slice(0, headerRows)
      .map((row) => row[c] ?? '')
      .filter((text) => text !== '')
      .join(' '),
  );
  const body = grid.slice(headerRows);
  return [line(header), line(header.map(() => '---')), ...body.map(line)].join('\n');
};
