import { plainText } from './markdown.js';
import type { PostprocessWarning } from './schemas.js';

/**
 * The line the text-layer layout puts before a table that opens a page after the first with no
 * caption or text above it: most likely the rest of the table that ended the previous page.
 */
export const CONTINUED_TABLE = '<!-- table continued from the previous page -->';

/** One page of a document as its Markdown is assembled. */
export interface DocumentPage {
  pageNumber: number;
  markdown: string;
  /**
   * Texts of the page's running headers, footers and page numbers (its grounding entries
   * labelled `header` or `footer`). Lines holding one of them at the page's start or end do not
   * separate a table from its continuation.
   */
  furniture?: readonly string[];
}

/** The document's Markdown and a warning for each table joined across a page break. */
export interface DocumentMarkdown {
  markdown: string;
  /** One per join, on the page whose opening table continues the previous page's table. */
  warnings: PostprocessWarning[];
}

/**
 * The Markdown of a whole document: the pages' Markdown in order, separated by a blank line,
 * with each table that a page break cut in two joined back into one table.
 *
 * Page N's table and page N+1's are one table when page N ends with a table, page N+1 starts
 * with one (blank lines, the {@link CONTINUED_TABLE} mark and page furniture aside), both have
 * the same number of columns, and page N+1's header is compatible:
 * - it repeats page N's header rows (cell texts compared without case, emphasis or spacing):
 *   the repeated rows are left out;
 * - or it is a data row: the layout marked the table as continued (a table the page opens
 *   without a caption has no header of its own to find), or the row holds a number where page
 *   N's header holds none; the row is kept as a data row.
 *
 * Two GFM pipe tables join as a pipe table; when either is an HTML `<table>` (cells with spans)
 * the pipe table's rows are written as HTML rows and the result is an HTML table. Furniture
 * lines between the two parts follow the joined table, so no text is lost. The pages'
 * own Markdown is not changed: each page keeps what is on it, and a warning on page N+1 says
 * that its table was joined to page N's in the document Markdown.
 *
 * @example
 * assembleDocumentMarkdown([
 *   { pageNumber: 1, markdown: '| a | b |\n| --- | --- |\n| 1 | 2 |' },
 *   { pageNumber: 2, markdown: '| a | b |\n| --- | --- |\n| 3 | 4 |\n\nAfter.' },
 * ]);
 * // → { markdown: '| a | b |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |\n\nAfter.', warnings: [ … ] }
 */
export function assembleDocumentMarkdown(pages: readonly DocumentPage[]): DocumentMarkdown {
  const warnings: PostprocessWarning[] = [];
  let lines: string[] = [];
  pages.forEach((page, k) => {
    const previous = k > 0 ? pages[k - 1] : undefined;
    const joined = previous ? joinAcrossBreak(lines, previous, page) : null;
    if (joined) {
      lines = joined.lines;
      warnings.push(joined.warning);
    } else {
      lines = k === 0 ? page.markdown.split('\n') : [...lines, '', ...page.markdown.split('\n')];
    }
  });
  return { markdown: lines.join('\n'), warnings };
}

/** A table found at a page's end or start, with its position in the lines searched. */
interface FoundTable {
  /** First line of the table. */
  start: number;
  /** Line after the table. */
  end: number;
  table: ParsedTable;
}

interface ParsedTable {
  format: 'gfm' | 'html';
  /** Lines of the table as written. */
  lines: string[];
  columns: number;
  /** Rows as cell texts, header rows first. */
  rows: Row[];
  /** Leading rows that are the header (GFM: 1; HTML: its rows of `<th>` cells). */
  headerRows: number;
}

interface Row {
  cells: string[];
  /** The row as written: a GFM line, or a `<tr>…</tr>` element. */
  source: string;
}

/**
 * The document's lines with page `next` appended and its opening table joined to the table
 * ending the document so far, or null when the two are not parts of one table.
 */
function joinAcrossBreak(
  lines: readonly string[],
  previous: DocumentPage,
  next: DocumentPage,
): { lines: string[]; warning: PostprocessWarning } | null {
  // The previous page itself must end with the table: not a page before it, across an empty one.
  if (!trailingTable(previous.markdown.split('\n'), furnitureOf(previous))) return null;
  const before = trailingTable(lines, furnitureOf(previous));
  const nextLines = next.markdown.split('\n');
  const after = leadingTable(nextLines, furnitureOf(next));
  if (!before || !after || before.found.table.columns !== after.found.table.columns) return null;
  const first = before.found.table;
  const second = after.found.table;
  const repeated = repeatsHeader(first, second);
  if (!repeated && !after.marked && !readsAsData(first, second)) return null;
  const kept = second.rows.slice(repeated ? first.headerRows : 0);
  const table = joinTables(first, kept, repeated ? 0 : second.headerRows);
  const rest = trimBlank(nextLines.slice(after.found.end));
  const moved = [...before.furniture, ...after.furniture];
  const tail = [...moved, ...(rest.length > 0 ? [rest.join('\n')] : [])];
  const joined = [...lines.slice(0, before.found.start), ...table];
  for (const part of tail) joined.push('', ...part.split('\n'));
  const dropped = repeated ? first.headerRows : 0;
  const detail =
    `the table opening page ${next.pageNumber} continues the table ending page ` +
    `${previous.pageNumber} (${first.columns} columns): joined into one table in the document ` +
    `Markdown` +
    (dropped > 0 ? `, its repeated header ${dropped === 1 ? 'row' : 'rows'} left out` : '') +
    '; the pages keep their own parts';
  return {
    lines: joined,
    warning: { kind: 'duplicate_region', severity: 'info', page_number: next.pageNumber, detail },
  };
}

const furnitureOf = (page: DocumentPage): Set<string> =>
  new Set((page.furniture ?? []).map(key).filter((k) => k !== ''));

/** A text compared without Markdown syntax, case, compatibility forms or spacing. */
const key = (text: string): string => plainText(text).normalize('NFKC').toLowerCase();

const isFurniture = (line: string, furniture: ReadonlySet<string>): boolean =>
  furniture.has(key(line)) && key(line) !== '';

/** The table ending `lines`, after blank and furniture lines (returned in page order). */
function trailingTable(
  lines: readonly string[],
  furniture: ReadonlySet<string>,
): { found: FoundTable; furniture: string[] } | null {
  let end = lines.length;
  const skipped: string[] = [];
  for (; end > 0; end--) {
    const line = lines[end - 1] ?? '';
    if (line.trim() === '') continue;
    if (!isFurniture(line, furniture)) break;
    skipped.unshift(line);
  }
  const last = (lines[end - 1] ?? '').trim();
  let start = end;
  if (/<\/table>$/i.test(last)) {
    while (start > 0 && !/^<table\b/i.test((lines[start - 1] ?? '').trim())) start--;
    start--;
  } else if (last.startsWith('|')) {
    while (start > 0 && (lines[start - 1] ?? '').trim().startsWith('|')) start--;
    // Two pipe tables with no line between them: the last delimiter row starts the last table.
    for (let i = end - 1; i > start; i--) {
      if (DELIMITER.test(lines[i] ?? '')) {
        start = i - 1;
        break;
      }
    }
  }
  const table = start >= 0 && start < end ? parseTable(lines.slice(start, end)) : null;
  return table ? { found: { start, end, table }, furniture: skipped } : null;
}

/**
 * The table opening `lines`, after blank lines, furniture and the {@link CONTINUED_TABLE} mark
 * (`marked` when it was there).
 */
function leadingTable(
  lines: readonly string[],
  furniture: ReadonlySet<string>,
): { found: FoundTable; furniture: string[]; marked: boolean } | null {
  let start = 0;
  let marked = false;
  const skipped: string[] = [];
  for (; start < lines.length; start++) {
    const line = lines[start] ?? '';
    if (line.trim() === '') continue;
    if (line.trim() === CONTINUED_TABLE) marked = true;
    else if (isFurniture(line, furniture)) skipped.push(line);
    else break;
  }
  const first = (lines[start] ?? '').trim();
  let end = start;
  if (/^<table\b/i.test(first)) {
    while (end < lines.length && !/<\/table>$/i.test((lines[end] ?? '').trim())) end++;
    end++;
  } else if (first.startsWith('|')) {
    end = start + 2;
    while (
      end < lines.length &&
      (lines[end] ?? '').trim().startsWith('|') &&
      !DELIMITER.test(lines[end] ?? '')
    )
      end++;
    // A delimiter row ends the table one row early: that row is the next table's header.
    if (end < lines.length && DELIMITER.test(lines[end] ?? '')) end--;
  }
  const table = end > start && end <= lines.length ? parseTable(lines.slice(start, end)) : null;
  return table ? { found: { start, end, table }, furniture: skipped, marked } : null;
}

const DELIMITER = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

function parseTable(lines: string[]): ParsedTable | null {
  const first = (lines[0] ?? '').trim();
  if (first.startsWith('|')) {
    const delimiter = lines[1] ?? '';
    if (lines.length < 2 || !DELIMITER.test(delimiter) || !delimiter.includes('|')) return null;
    const rows = [lines[0] ?? '', ...lines.slice(2)].map((source) => ({
      cells: pipeCells(source),
      source,
    }));
    return { format: 'gfm', lines, columns: pipeCells(delimiter).length, rows, headerRows: 1 };
  }
  const html = lines.join('\n');
  // One table, not nested ones.
  if ((html.match(/<table\b/gi) ?? []).length !== 1) return null;
  const rows = [...html.matchAll(/<tr\b[^>]*>[\s\S]*?<\/tr>/gi)].map((m) => m[0]);
  const cells = rows.map((row) => [...row.matchAll(/<(t[hd])\b([^>]*)>([\s\S]*?)<\/\1>/gi)]);
  const columns = (cells[0] ?? []).reduce(
    (n, cell) => n + Number(/colspan\s*=\s*["']?(\d+)/i.exec(cell[2] ?? '')?.[1] ?? 1),
    0,
  );
  if (columns === 0) return null;
  let headerRows = 0;
  while (cells[headerRows]?.every((cell) => (cell[1] ?? '').toLowerCase() === 'th')) headerRows++;
  return {
    format: 'html',
    lines,
    columns,
    rows: rows.map((source, r) => ({
      cells: (cells[r] ?? []).map((cell) => cell[3] ?? ''),
      source,
    })),
    headerRows: Math.max(1, headerRows),
  };
}

/** The cells of a pipe-table row (a `\|` inside a cell is not a boundary). */
function pipeCells(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** Page N+1's table starts with page N's header rows, cell for cell. */
function repeatsHeader(first: ParsedTable, second: ParsedTable): boolean {
  const header = (t: ParsedTable, n: number): string =>
    t.rows
      .slice(0, n)
      .map((row) => row.cells.map(key).join('\u0000'))
      .join('\u0001');
  return (
    second.rows.length >= first.headerRows &&
    header(first, first.headerRows) === header(second, first.headerRows)
  );
}

const NUMBER = /^[-+−–(]?[$€£¥]?\d[\d.,\s]*%?\)?$/u;

/** Page N+1's first row holds a number where page N's header holds none: a data row. */
function readsAsData(first: ParsedTable, second: ParsedTable): boolean {
  const numeric = (row: Row | undefined): boolean =>
    (row?.cells ?? []).some((cell) => NUMBER.test(key(cell)));
  return numeric(second.rows[0]) && !first.rows.slice(0, first.headerRows).some(numeric);
}

/**
 * `first` followed by the rows `kept` of the next part, as lines. `demoted` of the kept rows
 * were written as header rows and are data rows now.
 */
function joinTables(first: ParsedTable, kept: readonly Row[], demoted: number): string[] {
  const sources = kept.map((row) => row.source);
  const fromHtml = (row: Row, k: number): string =>
    k < demoted ? row.source.replace(/<(\/?)th\b/gi, '<$1td') : row.source;
  if (first.format === 'gfm' && kept.every((row) => !row.source.trim().startsWith('<'))) {
    return [...first.lines, ...sources];
  }
  const asHtml = (row: Row, k: number): string =>
    row.source.trim().startsWith('<') ? fromHtml(row, k) : htmlRow(row.cells, 'td');
  const added = kept.map(asHtml);
  if (first.format === 'html') {
    // Before the closing tag of the body (or of the table), keeping the first part as written.
    const html = first.lines.join('\n');
    const close = /<\/tbody>\s*<\/table>\s*$/i.exec(html) ?? /<\/table>\s*$/i.exec(html);
    const at = close?.index ?? html.length;
    return `${html.slice(0, at).trimEnd()}\n${added.join('\n')}\n${html.slice(at)}`.split('\n');
  }
  const rows = first.rows.map((row, r) => htmlRow(row.cells, r < first.headerRows ? 'th' : 'td'));
  return ['<table>', ...rows, ...added, '</table>'];
}

/**
 * A pipe-table row as an HTML row: Markdown escapes undone, HTML escaped; the `<br>` between the
 * lines of a cell (one per record it holds) stays a line break.
 */
function htmlRow(cells: readonly string[], tag: 'th' | 'td'): string {
  const escape = (part: string): string =>
    part
      .replace(/\\([\\`*_{}[\]()#+\-.!|<>])/g, '$1')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;');
  const text = (cell: string): string =>
    cell
      .split(/<br\s*\/?>/i)
      .map(escape)
      .join('<br>');
  return `<tr>${cells.map((cell) => `<${tag}>${text(cell)}</${tag}>`).join('')}</tr>`;
}

/** `lines` without blank lines at either end. */
function trimBlank(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] ?? '').trim() === '') start++;
  while (end > start && (lines[end - 1] ?? '').trim() === '') end--;
  return lines.slice(start, end);
}
