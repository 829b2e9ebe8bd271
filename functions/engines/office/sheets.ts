import { DocumentRejectedError } from '../../core/domain/errors.js';
import { gfmTable, spannedText } from './gfm-table.js';
import type { OfficeElement, OfficePage } from './office-document.js';

/** A non-empty cell, 0-based, with its displayed text. */
export interface SheetCell {
  r: number;
  c: number;
  text: string;
}

/** A merged range, 0-based, inclusive. */
export interface SheetRange {
  r0: number;
  c0: number;
  r1: number;
  c1: number;
}

/** One worksheet as the readers (SheetJS, plus the pictures of an xlsx drawing) give it. */
export interface SheetModel {
  name: string;
  cells: SheetCell[];
  merges: SheetRange[];
  /** Pictures anchored on the sheet (their cell ranges) and their alt text. */
  figures: (SheetRange & { alt: string })[];
  /** Column width in points (0-based column); a default for columns without one. */
  columnWidthPt(c: number): number;
  /** Row height in points (0-based row). */
  rowHeightPt(r: number): number;
}

/** Most grid cells (rows × columns of its tables) rendered for one sheet. */
export const MAX_SHEET_CELLS = 500_000;
/** Margin around the used range on the page, in points. */
const MARGIN = 36;

/** Excel column width (characters of the default font) to points: `(7 w + 5)` pixels at 96 DPI. */
export const columnCharsToPt = (chars: number): number => (Math.round(chars * 7) + 5) * 0.75;

/**
 * One page for one sheet:
 * 1. the used cells (and merged ranges) are split into tables by recursive XY-cut on empty rows
 *    and columns: bands separated by at least one empty row, top to bottom, then blocks
 *    separated by at least one empty column, left to right, recursively; so that empty rows and
 *    columns are trimmed and side-by-side tables stay apart;
 * 2. each table becomes a GFM table (first row as header) with a merged cell's text repeated in
 *    every cell it covers (up to 64 cells, see `spannedText`);
 * 3. the Markdown is `# <sheet name>`, the tables in XY-cut order, then one figure placeholder
 *    (`![alt](#figure-N)`) per picture;
 * 4. each table and picture is grounded at its cells' position, from the sheet's column widths
 *    and row heights (real geometry, confidence 1), on a page of the used range's size plus a
 *    half-inch margin (at least Letter).
 *
 * @throws {DocumentRejectedError} when the sheet's tables exceed {@link MAX_SHEET_CELLS} cells.
 */
export function sheetPage(sheet: SheetModel, figures: { count: number }): OfficePage {
  const byPosition = new Map<string, string>();
  for (const cell of sheet.cells) byPosition.set(`${cell.r}:${cell.c}`, cell.text);
  const merges = sheet.merges.filter((m) => byPosition.has(`${m.r0}:${m.c0}`));
  const items: SheetRange[] = [
    ...sheet.cells.map((c) => ({ r0: c.r, c0: c.c, r1: c.r, c1: c.c })),
    ...merges,
  ];
  const regions = xyCut(items).map(bounds);
  const area = regions.reduce((sum, r) => sum + (r.r1 - r.r0 + 1) * (r.c1 - r.c0 + 1), 0);
  if (area > MAX_SHEET_CELLS) {
    throw new DocumentRejectedError(
      `the sheet "${sheet.name}" has tables of ${area} cells; at most ${MAX_SHEET_CELLS} cells are parsed per sheet`,
      { details: { sheet: sheet.name, cells: area } },
    );
  }
  const geometry = sheetGeometry(sheet, [...regions, ...sheet.figures]);
  const name = sheet.name.trim() || 'Sheet';
  const blocks = [`# ${escapeInline(name)}`];
  const source = [name];
  const elements: OfficeElement[] = [];
  for (const region of regions) {
    const grid = gridOf(region, byPosition, merges);
    // A loop, not push(...cells): a spread of 100,000+ arguments overflows the stack.
    for (const row of grid) for (const cell of row) if (cell !== '') source.push(cell);
    blocks.push(gfmTable(grid.map((row) => row.map(escapeInline))));
    elements.push({
      text: grid
        .flat()
        .filter((t) => t !== '')
        .join(' '),
      box: geometry.box(region),
      label: 'table',
      elementType: 'table',
      confidence: 1,
    });
  }
  for (const picture of [...sheet.figures].sort((a, b) => a.r0 - b.r0 || a.c0 - b.c0)) {
    figures.count++;
    blocks.push(`![${escapeInline(picture.alt)}](#figure-${String(figures.count)})`);
    elements.push({
      text: picture.alt,
      box: geometry.box(picture),
      label: 'figure',
      elementType: 'figure',
      confidence: 1,
    });
  }
  return {
    widthPt: geometry.widthPt,
    heightPt: geometry.heightPt,
    markdown: blocks.join('\n\n'),
    elements,
    // The cells' own text, a merged cell's in every cell it covers (as the tables show it).
    sourceText: source.join(' ').replace(/\s+/g, ' ').trim(),
  };
}

/**
 * The grid of a region: texts by position, merged ranges filled with their first cell's text
 * (see `spannedText`).
 */
function gridOf(
  region: SheetRange,
  byPosition: ReadonlyMap<string, string>,
  merges: readonly SheetRange[],
): string[][] {
  const rows = region.r1 - region.r0 + 1;
  const cols = region.c1 - region.c0 + 1;
  const grid = Array.from({ length: rows }, (_, i) =>
    Array.from(
      { length: cols },
      (_, j) => byPosition.get(`${region.r0 + i}:${region.c0 + j}`) ?? '',
    ),
  );
  for (const m of merges) {
    if (m.r0 < region.r0 || m.c0 < region.c0 || m.r1 > region.r1 || m.c1 > region.c1) continue;
    const text = byPosition.get(`${m.r0}:${m.c0}`) ?? '';
    const rows = m.r1 - m.r0 + 1;
    const cols = m.c1 - m.c0 + 1;
    for (let r = m.r0; r <= m.r1; r++) {
      const row = grid[r - region.r0];
      if (row === undefined) continue;
      for (let c = m.c0; c <= m.c1; c++) {
        row[c - region.c0] = spannedText(text, rows, cols, r - m.r0, c - m.c0);
      }
    }
  }
  return grid;
}

/**
 * Recursive XY-cut over cell ranges: bands where at least one empty row separates them, else
 * blocks where at least one empty column does; a group that cannot be cut is one table.
 */
function xyCut(items: readonly SheetRange[]): SheetRange[][] {
  if (items.length === 0) return [];
  const bands = splitAlong(items, (i) => [i.r0, i.r1]);
  if (bands.length > 1) return bands.flatMap(xyCut);
  const blocks = splitAlong(items, (i) => [i.c0, i.c1]);
  if (blocks.length > 1) return blocks.flatMap(xyCut);
  return [[...items]];
}

function splitAlong(
  items: readonly SheetRange[],
  extent: (i: SheetRange) => [number, number],
): SheetRange[][] {
  const sorted = [...items].sort((a, b) => extent(a)[0] - extent(b)[0]);
  const groups: SheetRange[][] = [];
  let end = -Infinity;
  for (const item of sorted) {
    const [start, stop] = extent(item);
    if (groups.length === 0 || start > end + 1) groups.push([]);
    groups.at(-1)?.push(item);
    end = Math.max(end, stop);
  }
  return groups;
}

function bounds(items: readonly SheetRange[]): SheetRange {
  // A loop, not Math.min(...): a sheet can have more cells than a call has room for arguments.
  const out = { r0: Infinity, c0: Infinity, r1: -Infinity, c1: -Infinity };
  for (const i of items) {
    out.r0 = Math.min(out.r0, i.r0);
    out.c0 = Math.min(out.c0, i.c0);
    out.r1 = Math.max(out.r1, i.r1);
    out.c1 = Math.max(out.c1, i.c1);
  }
  return out;
}

/** Cell ranges to boxes in points, from the sheet's column widths and row heights. */
function sheetGeometry(sheet: SheetModel, ranges: readonly SheetRange[]) {
  const lastRow = ranges.reduce((max, r) => Math.max(max, r.r1), 0);
  const lastCol = ranges.reduce((max, r) => Math.max(max, r.c1), 0);
  const rowTop = offsets(lastRow + 1, (r) => sheet.rowHeightPt(r));
  const colLeft = offsets(lastCol + 1, (c) => sheet.columnWidthPt(c));
  const at = (table: number[], i: number) => table[Math.min(i, table.length - 1)] ?? 0;
  return {
    widthPt: Math.max(612, at(colLeft, lastCol + 1) + 2 * MARGIN),
    heightPt: Math.max(792, at(rowTop, lastRow + 1) + 2 * MARGIN),
    box: (r: SheetRange): OfficeElement['box'] => ({
      x: MARGIN + at(colLeft, r.c0),
      y: MARGIN + at(rowTop, r.r0),
      w: Math.max(1, at(colLeft, r.c1 + 1) - at(colLeft, r.c0)),
      h: Math.max(1, at(rowTop, r.r1 + 1) - at(rowTop, r.r0)),
    }),
  };
}

/** Prefix sums: `out[i]` is the total size of items 0..i-1 (i from 0 to count). */
function offsets(count: number, size: (i: number) => number): number[] {
  const out = [0];
  for (let i = 0; i < count; i++) out.push((out[i] ?? 0) + Math.max(0, size(i)));
  return out;
}

/** Inline Markdown syntax in cell text escaped (pipes are escaped by the table writer). */
function escapeInline(text: string): string {
  return text.replace(/([\\`*_[\]<>])/g, '\\$1');
}
