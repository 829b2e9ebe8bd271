import * as XLSX from '@e965/xlsx';

/** SheetJS's number formatter (SSF), which renders values as Excel displays them. */
interface NumberFormatter {
  format(format: string | number, value: number): string;
}

const SSF = XLSX.SSF as NumberFormatter;

/** Milliseconds from the Excel 1900 date system's day 0 (1899-12-30) to the Unix epoch. */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

/**
 * A number as Excel shows it with the cell's number format (`General` when none): grouping,
 * decimals, percentages, currencies, dates. Falls back to the shortest round-trip text.
 *
 * @example
 * formatNumber(0.125, '0.0%'); // '12.5%'
 * formatNumber(45000, 'yyyy-mm-dd'); // '2023-03-15'
 */
export function formatNumber(value: number, numFmt: string | undefined): string {
  try {
    return SSF.format(numFmt === undefined || numFmt === '' ? 'General' : numFmt, value);
  } catch {
    return String(value);
  }
}

/**
 * A date as Excel shows it with the cell's format, through its serial number in the 1900 date
 * system; ISO 8601 (date, or date and time when not midnight) without a format.
 */
export function formatDate(value: Date, numFmt: string | undefined): string {
  if (Number.isNaN(value.getTime())) return '';
  if (numFmt !== undefined && numFmt !== '' && numFmt !== 'General') {
    return formatNumber((value.getTime() - EXCEL_EPOCH_MS) / 86_400_000, numFmt);
  }
  const iso = value.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
}
