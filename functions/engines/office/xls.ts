import * as XLSX from '@e965/xlsx';
import * as cptable from '@e965/xlsx/dist/cpexcel.full.mjs';
import { DocumentRejectedError, UnsupportedDocumentError } from '../../core/domain/errors.js';
import { formatDate, formatNumber } from './number-format.js';
import type { OfficeDocument } from './office-document.js';
import { columnCharsToPt, sheetPage, type SheetModel } from './sheets.js';

/** Most rows read per sheet; beyond, `sheetPage` would refuse the sheet anyway. */
const MAX_ROWS = 1_000_000;
/** Excel's default column width (characters) and row height (points). */
export const DEFAULT_COLUMN_CHARS = 8.43;
export const DEFAULT_ROW_PT = 15;

// Code pages of BIFF5 and older workbooks (Excel 95), which are not UTF-16.
XLSX.set_cptable(cptable);

/**
 * Converts a legacy Excel workbook (xls: BIFF in an OLE2 compound file) with SheetJS: one page per
 * visible sheet, in workbook order, see `sheetPage`. Cell text is SheetJS's formatted text (the
 * cell's number format applied). SheetJS reads no pictures from xls files.
 *
 * @throws {DocumentRejectedError} when the workbook is password-protected.
 * @throws {UnsupportedDocumentError} when SheetJS cannot read it.
 */
export function convertXls(bytes: Uint8Array): OfficeDocument {
  const workbook = readWorkbook(bytes, 'xls');
  const figures = { count: 0 };
  return {
    format: 'xls',
    geometry: 'file',
    pages: visibleSheets(workbook).map(({ name }) =>
      sheetPage(sheetModel(name, workbook.Sheets[name]), figures),
    ),
  };
}

/**
 * Reads a workbook (xls or xlsx) with SheetJS: dense sheets, formatted cell text, cached formula
 * results (formulas themselves are not read), column widths and row heights, at most
 * {@link MAX_ROWS} rows per sheet.
 *
 * @throws {DocumentRejectedError} when the workbook is password-protected.
 * @throws {UnsupportedDocumentError} when SheetJS cannot read it.
 */
export function readWorkbook(bytes: Uint8Array, format: 'xls' | 'xlsx'): XLSX.WorkBook {
  try {
    return XLSX.read(bytes, {
      type: 'array',
      dense: true,
      cellText: true,
      cellNF: true,
      cellDates: false,
      cellFormula: false,
      cellHTML: false,
      cellStyles: true,
      bookVBA: false,
      sheetRows: MAX_ROWS,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/password|encrypt/i.test(message)) {
      throw new DocumentRejectedError(
        `the ${format} workbook is password-protected; remove the password and upload it again`,
        { cause: error },
      );
    }
    throw new UnsupportedDocumentError(`the ${format} workbook cannot be read: ${message}`, {
      cause: error,
    });
  }
}

/**
 * The sheets to show, in workbook order, with their index: the visible ones (hidden and very
 * hidden sheets are left out), or all of them when every sheet is hidden.
 */
export function visibleSheets(workbook: XLSX.WorkBook): { name: string; index: number }[] {
  const all = workbook.SheetNames.map((name, index) => ({ name, index }));
  const hidden = (i: number) => (workbook.Workbook?.Sheets?.[i]?.Hidden ?? 0) !== 0;
  const visible = all.filter(({ index }) => !hidden(index));
  return visible.length > 0 ? visible : all;
}

/** What the caller knows of a sheet beyond what SheetJS reads (xlsx: its drawing and defaults). */
export interface SheetExtras {
  figures?: SheetModel['figures'];
  /** Width in characters of a column without its own (`sheetFormatPr/@defaultColWidth`). */
  defaultColumnChars?: number;
  /** Height in points of a row without its own (`sheetFormatPr/@defaultRowHeight`). */
  defaultRowPt?: number;
  /**
   * Column widths from the width as written, in characters (xlsx), rather than SheetJS's pixels
   * (xls).
   */
  widthInChars?: boolean;
}

/** A SheetJS sheet as the model `sheetPage` renders. */
export function sheetModel(
  name: string,
  ws: XLSX.WorkSheet | undefined,
  extras: SheetExtras = {},
): SheetModel {
  const cells: SheetModel['cells'] = [];
  const rows = (ws?.['!data'] ?? []) as (XLSX.CellObject | undefined)[][];
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      const text = cell ? cellText(cell).trim() : '';
      if (text !== '') cells.push({ r, c, text });
    });
  });
  const columns = ws?.['!cols'] ?? [];
  const heights = ws?.['!rows'] ?? [];
  const defaultColumn = extras.defaultColumnChars ?? DEFAULT_COLUMN_CHARS;
  const defaultRow = extras.defaultRowPt ?? DEFAULT_ROW_PT;
  return {
    name,
    cells,
    merges: (ws?.['!merges'] ?? []).map((m) => ({ r0: m.s.r, c0: m.s.c, r1: m.e.r, c1: m.e.c })),
    figures: extras.figures ?? [],
    columnWidthPt: (c) => {
      const info = columns[c];
      if (extras.widthInChars === true && info?.width !== undefined) {
        return columnCharsToPt(info.width);
      }
      if (info?.wpx !== undefined) return info.wpx * 0.75;
      return columnCharsToPt(info?.wch ?? info?.width ?? defaultColumn);
    },
    rowHeightPt: (r) => {
      const info = heights[r];
      return info?.hpt ?? (info?.hpx === undefined ? defaultRow : info.hpx * 0.75);
    },
  };
}

function cellText(cell: XLSX.CellObject): string {
  if (cell.t === 'z') return '';
  if (cell.w !== undefined) return cell.w;
  const format = typeof cell.z === 'string' ? cell.z : undefined;
  const value = cell.v;
  if (typeof value === 'number') return formatNumber(value, format);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return formatDate(value, format);
  return value ?? '';
}
