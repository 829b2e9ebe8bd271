import TurndownService from 'turndown';
import { highlightedCodeBlock, strikethrough, taskListItems } from '@joplin/turndown-plugin-gfm';
import { gfmTable, spannedText } from './gfm-table.js';

/**
 * Stands for a page break in converted text until the Markdown is split into pages: private-use
 * characters around a name, which no converter escapes or collapses.
 */
export const PAGE_BREAK = '\uE000docparse:page-break\uE000';

/** Most cells of one HTML table (rows × columns after spans): a guard against absurd spans. */
const MAX_TABLE_CELLS = 250_000;

/** What the conversion needs to know about the source. */
export interface HtmlToMarkdownOptions {
  /**
   * The `src` of images without a usable address (embedded `data:` images), numbered in
   * document order: `#figure-1`, `#figure-2`... Shared across the calls for one document.
   */
  figures?: { count: number };
}

/**
 * HTML to GFM Markdown with turndown (and the strikethrough, task-list and highlighted-code rules
 * of @joplin/turndown-plugin-gfm), with the project's own rules for:
 * - **tables**: always GFM, the first row as header; a cell spanning rows or columns is repeated
 *   in every grid cell it covers (GFM has no spans, and repeating keeps each row a complete
 *   record; up to 64 cells, see `spannedText`); cell paragraphs are joined with `<br>`; a table inside a cell becomes its text;
 * - **images**: `![alt](src)`; embedded `data:` images become `#figure-N` placeholders;
 * - **page breaks**: elements styled `page-break-before: always` / `break-before: page` (or
 *   `-after`) put {@link PAGE_BREAK} before (after) themselves;
 * - scripts, styles, templates, forms' hidden parts and embedded objects are dropped.
 */
export function htmlToMarkdown(html: string | HTMLElement, options: HtmlToMarkdownOptions = {}) {
  const figures = options.figures ?? { count: 0 };
  const service = createService(figures, false);
  return service.turndown(html);
}

function createService(figures: { count: number }, insideCell: boolean): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    emDelimiter: '*',
    strongDelimiter: '**',
  });
  service.use([strikethrough, taskListItems, highlightedCodeBlock]);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed']);
  service.remove((node) => node.nodeName === 'HEAD' || node.nodeName === 'TITLE');
  service.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = cleanAlt(node.getAttribute('alt') ?? '');
      const given = node.getAttribute('src') ?? '';
      const src =
        given === '' || given.startsWith('data:') || given.startsWith('#figure-')
          ? given.startsWith('#figure-')
            ? given
            : `#figure-${String(++figures.count)}`
          : given;
      const href = src.replace(
        /[()\s]/g,
        (ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`,
      );
      return `![${alt.replace(/[[\]]/g, '\\$&')}](${href})`;
    },
  });
  // `- item` and `1. item` with one space, continuation lines under the item's text: the shape
  // the page post-processing normalises lists to, so that it has nothing to change.
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node) => {
      const parent = node.parentNode as HTMLElement | null;
      let marker = '-';
      if (parent?.nodeName === 'OL') {
        const start = Number.parseInt(parent.getAttribute('start') ?? '1', 10);
        const index = Array.prototype.indexOf.call(parent.children, node);
        marker = `${String((Number.isFinite(start) ? start : 1) + index)}.`;
      }
      const pad = ' '.repeat(marker.length + 1);
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n(?!$)/gm, `\n${pad}`);
      return `${marker} ${body}${node.nextSibling && !body.endsWith('\n') ? '\n' : ''}`;
    },
  });
  let cellService: TurndownService | undefined;
  service.addRule('table', {
    filter: 'table',
    replacement: (_content, node) => {
      const grid = tableGrid(node as HTMLTableElement, (cell) => {
        if (insideCell) return cell.textContent.replace(/\s+/g, ' ').trim();
        cellService ??= createService(figures, true);
        return cellService.turndown(cell);
      });
      if (grid.length === 0) return '';
      if (insideCell) return ` ${grid.map((row) => row.join(' ')).join(' ')} `;
      return `\n\n${gfmTable(grid)}\n\n`;
    },
  });
  service.addRule('pageBreak', {
    filter: (node) => pageBreakOf(node) !== null,
    replacement: (_content, node) => {
      const side = pageBreakOf(node);
      const clone = node.cloneNode(true) as HTMLElement;
      clone.removeAttribute('style');
      const wrapper = node.ownerDocument.createElement('div');
      wrapper.appendChild(clone);
      const inner = service.turndown(wrapper);
      return side === 'before'
        ? `\n\n${PAGE_BREAK}\n\n${inner}\n\n`
        : `\n\n${inner}\n\n${PAGE_BREAK}\n\n`;
    },
  });
  return service;
}

/** Word's automatic alt text ends with this boilerplate; it says nothing about the picture. */
function cleanAlt(alt: string): string {
  return alt
    .replace(/\s*Description automatically generated( with (medium|low) confidence)?\s*$/i, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function pageBreakOf(node: HTMLElement): 'before' | 'after' | null {
  const style = (node.getAttribute('style') ?? '').toLowerCase().replace(/\s+/g, '');
  if (style === '') return null;
  if (/(^|;)(page-break-before:always|break-before:page)/.test(style)) return 'before';
  if (/(^|;)(page-break-after:always|break-after:page)/.test(style)) return 'after';
  return null;
}

/**
 * The cells of an HTML table as a rectangular grid: the HTML table model (rowspan, colspan), a
 * spanning cell's content in every grid cell it covers, rows padded to the widest. Rows of
 * nested tables are not this table's.
 */
export function tableGrid(
  table: HTMLTableElement,
  contentOf: (cell: HTMLElement) => string,
): string[][] {
  const rows = ownRows(table);
  const grid: string[][] = [];
  let cells = 0;
  rows.forEach((row, r) => {
    grid[r] ??= [];
    let c = 0;
    for (const cell of Array.from(row.children)) {
      if (cell.nodeName !== 'TD' && cell.nodeName !== 'TH') continue;
      const current = grid[r] ?? [];
      while (current[c] !== undefined) c++;
      const text = contentOf(cell as HTMLElement);
      const rowSpan = span(cell.getAttribute('rowspan'), rows.length - r);
      const colSpan = span(cell.getAttribute('colspan'), 1000);
      cells += rowSpan * colSpan;
      if (cells > MAX_TABLE_CELLS) break;
      for (let dr = 0; dr < rowSpan; dr++) {
        const target = (grid[r + dr] ??= []);
        for (let dc = 0; dc < colSpan; dc++) {
          target[c + dc] = spannedText(text, rowSpan, colSpan, dr, dc);
        }
      }
      c += colSpan;
    }
  });
  const width = grid.reduce((max, row) => Math.max(max, row.length), 0);
  return grid
    .slice(0, rows.length)
    .map((row) => Array.from({ length: width }, (_, c) => row[c] ?? ''));
}

function span(value: string | null, max: number): number {
  const n = Number.parseInt(value ?? '1', 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, Math.max(1, max)) : 1;
}

function ownRows(table: HTMLElement): HTMLElement[] {
  const rows: HTMLElement[] = [];
  for (const child of Array.from(table.children)) {
    if (child.nodeName === 'TR') rows.push(child as HTMLElement);
    else if (['THEAD', 'TBODY', 'TFOOT'].includes(child.nodeName)) {
      for (const row of Array.from(child.children)) {
        if (row.nodeName === 'TR') rows.push(row as HTMLElement);
      }
    }
  }
  return rows;
}

/**
 * Splits converted Markdown at {@link PAGE_BREAK}s into pages. A break inside a table row is
 * dropped (the table stays whole); a break after a block prefix (`# `, `- `, `1. `, `> `) keeps
 * the prefix with the text that follows. Each page is normalised (see
 * {@link normaliseMarkdown}); empty pages are kept (one per break), for the caller to drop.
 */
export function splitPages(markdown: string): string[] {
  const pages: string[][] = [[]];
  for (const line of markdown.split('\n')) {
    if (!line.includes(PAGE_BREAK)) {
      pages.at(-1)?.push(line);
      continue;
    }
    if (line.trimStart().startsWith('|')) {
      pages.at(-1)?.push(line.replaceAll(PAGE_BREAK, ''));
      continue;
    }
    const [first = '', ...rest] = line.split(PAGE_BREAK);
    let carried = first;
    if (/^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)*$/.test(first) && first.trim() !== '') {
      carried = '';
      rest[0] = first + (rest[0] ?? '').trimStart();
    }
    pages.at(-1)?.push(carried);
    for (const part of rest) pages.push([part]);
  }
  return pages.map((lines) => normaliseMarkdown(lines.join('\n')));
}

/**
 * Markdown tidied for output: line endings `\n`, no byte-order mark, no trailing blanks at line
 * ends (except the two-space hard break), at most one blank line between blocks (outside fenced
 * code), trimmed.
 */
export function normaliseMarkdown(markdown: string): string {
  const lines = markdown
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  for (const raw of lines) {
    const marker = /^\s*(```|~~~)/.exec(raw)?.[1];
    if (fence !== null) {
      out.push(raw);
      if (marker === fence) fence = null;
      continue;
    }
    if (marker !== undefined) fence = marker;
    const line = / {2}$/.test(raw) && raw.trim() !== '' ? raw.replace(/\s+$/, '  ') : raw.trimEnd();
    if (line === '' && (out.length === 0 || out.at(-1) === '')) continue;
    out.push(line);
  }
  return out.join('\n').trim();
}
