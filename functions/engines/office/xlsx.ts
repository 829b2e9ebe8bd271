import type { Cell, CellValue, Worksheet } from 'exceljs';
import { UnsupportedDocumentError } from '../../core/domain/errors.js';
import { formatDate, formatNumber } from './number-format.js';
import type { OfficeDocument } from './office-document.js';
import { columnCharsToPt, sheetPage, type SheetModel, type SheetRange } from './sheets.js';
import { openPackage, WORKBOOK_PACKAGE_LIMITS } from './zip-package.js';

/** Excel's default column width (characters) and row height (points). */
const DEFAULT_COLUMN_CHARS = 8.43;
const DEFAULT_ROW_PT = 15;

/**
 * Converts an Excel workbook (xlsx) with exceljs: one page per visible worksheet, in workbook
 * order (hidden sheets are left out unless every sheet is hidden), see `sheetPage`. Cell text is
 * the value as Excel displays it (number formats applied with SheetJS's formatter, formula
 * results, rich text, hyperlink text, error codes).
 *
 * @throws {UnsupportedDocumentError} when exceljs cannot read the workbook.
 * @throws {DocumentRejectedError} see `openPackage` (with {@link WORKBOOK_PACKAGE_LIMITS}: at
 *   most 40 MB of XML in all) and `sheetPage`.
 */
export async function convertXlsx(bytes: Uint8Array): Promise<OfficeDocument> {
  const pkg = await openPackage(bytes, 'xlsx', WORKBOOK_PACKAGE_LIMITS);
  const zip = pkg.storedZip();
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  try {
    // exceljs types its input as an ArrayBuffer (its own `Buffer` interface); JSZip reads either.
    await workbook.xlsx.load(zip.slice().buffer);
  } catch (error) {
    throw new UnsupportedDocumentError(
      `the xlsx workbook cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const visible = workbook.worksheets.filter((ws) => ws.state === 'visible');
  const sheets = visible.length > 0 ? visible : workbook.worksheets;
  const figures = { count: 0 };
  return {
    format: 'xlsx',
    geometry: 'file',
    pages: sheets.map((ws) => sheetPage(sheetModel(ws), figures)),
  };
}

function sheetModel(ws: Worksheet): SheetModel {
  const cells: SheetModel['cells'] = [];
  ws.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    row.eachCell({ includeEmpty: false }, (cell, colNumber) => {
      if (cell.isMerged && cell.master.address !== cell.address) return;
      const text = cellText(cell).trim();
      if (text !== '') cells.push({ r: rowNumber - 1, c: colNumber - 1, text });
    });
  });
  const merges = ws.model.merges.flatMap((range) => {
    const decoded = decodeRange(range);
    return decoded ? [decoded] : [];
  });
  const defaultColumn = ws.properties.defaultColWidth ?? DEFAULT_COLUMN_CHARS;
  const defaultRow = ws.properties.defaultRowHeight || DEFAULT_ROW_PT;
  const widths = new Map<number, number>();
  return {
    name: ws.name,
    cells,
    merges,
    figures: ws.getImages().map((image) => {
      const { tl, br } = image.range;
      const r0 = Math.max(0, Math.floor(tl.nativeRow));
      const c0 = Math.max(0, Math.floor(tl.nativeCol));
      return {
        r0,
        c0,
        r1: Math.max(r0, Math.floor(br.nativeRow)),
        c1: Math.max(c0, Math.floor(br.nativeCol)),
        alt: '',
      };
    }),
    columnWidthPt: (c) => {
      let width = widths.get(c);
      if (width === undefined) {
        width = columnCharsToPt(ws.getColumn(c + 1).width ?? defaultColumn);
        widths.set(c, width);
      }
      return width;
    },
    rowHeightPt: (r) => ws.findRow(r + 1)?.height ?? defaultRow,
  };
}

function cellText(cell: Cell): string {
  return valueText(cell.value, cell.numFmt);
}

function valueText(value: CellValue, numFmt: string | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return formatNumber(value, numFmt);
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return formatDate(value, numFmt);
  if ('richText' in value) return value.richText.map((run) => run.text).join('');
  if ('error' in value) return value.error;
  if ('formula' in value || 'sharedFormula' in value) {
    return valueText(value.result ?? null, numFmt);
  }
  if ('hyperlink' in value) {
    const text: unknown = value.text;
    if (typeof text === 'string') return text;
    if (text !== null && typeof text === 'object' && 'richText' in text) {
      return valueText(text as CellValue, numFmt);
    }
    return value.hyperlink;
  }
  return '';
}

/** `B2:D5` (or a single `B2`) to a 0-based inclusive range. */
export function decodeRange(range: string): SheetRange | undefined {
  const [from = '', to = from] = range.replace(/\$/g, '').split(':');
  const a = decodeCell(from);
  const b = decodeCell(to);
  if (!a || !b) return undefined;
  return {
    r0: Math.min(a.r, b.r),
    c0: Math.min(a.c, b.c),
    r1: Math.max(a.r, b.r),
    c1: Math.max(a.c, b.c),
  };
}

function decodeCell(address: string): { r: number; c: number } | undefined {
  const match = /^([A-Z]{1,3})(\d{1,7})$/i.exec(address.trim());
  if (!match) return undefined;
  let c = 0;
  for (const ch of (match[1] ?? '').toUpperCase()) c = c * 26 + (ch.charCodeAt(0) - 64);
  return { r: Number(match[2]) - 1, c: c - 1 };
}
