import type { Format } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';

/**
 * Value formats: numbers as documents write them (currency, thousands separators, decimal commas),
 * booleans, dates in ISO and the usual written forms, dates whose separators OCR lost, emails and
 * phone numbers, and the string formats as the answer's validation checks them (Ajv's).
 */

/**
 * An email address within a text. The lookbehind starts a match only at the start of a run of
 * address characters: from every position inside a long run, the scan would be quadratic in its
 * length.
 */
export const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;
/** A phone number within a text. */
export const PHONE = /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)|\d{3})[\s.-]?\d{3}[\s.-]?\d{4}\b/;

/**
 * Digits that look like a date whose separators OCR lost or misread ("11172017", "4/412017"):
 * six to nine digits with at most two separators, and not a decimal number.
 */
export function dateShaped(cell: string): boolean {
  const text = cell.trim();
  const digits = text.replace(/\D/g, '').length;
  return (
    /^[\d/.-]{6,10}$/.test(text) &&
    digits >= 6 &&
    digits <= 9 &&
    (text.match(/[/.-]/g) ?? []).length <= 2 &&
    !/^\d+\.\d+$/.test(text)
  );
}

const STRING_FORMATS: Readonly<Record<string, ((text: string) => boolean) | undefined>> =
  Object.fromEntries(
    Object.entries(fullFormats).map(([name, format]) => [name, formatTest(format)]),
  );

/**
 * The test of one of Ajv's format definitions on a string; undefined for the formats that
 * constrain no string (number formats, `password`, `binary`).
 */
function formatTest(format: Format): ((text: string) => boolean) | undefined {
  if (format instanceof RegExp) return (text) => format.test(text);
  if (typeof format === 'function') return format;
  if (typeof format !== 'object' || format.type === 'number') return undefined;
  // The date and time formats: a function each (Ajv's definitions may also be a pattern).
  const validate = format.validate as (text: string) => unknown;
  return (text) => validate(text) === true;
}

/**
 * Whether `text` is valid for the string `format` as the answer's validation checks it (Ajv's
 * formats in full mode, the same definitions): a value of the wrong format is never given, even
 * when its label or column names the property. A format Ajv does not define constrains nothing.
 */
export function satisfiesFormat(text: string, format: unknown): boolean {
  if (typeof format !== 'string' || !Object.hasOwn(STRING_FORMATS, format)) return true;
  return STRING_FORMATS[format]?.(text) ?? true;
}

/**
 * A number from text such as "$1,234.50", "1.234,50 €", "(12.00)", "10%", "300 lb".
 *
 * With both `.` and `,` the last one is the decimal mark; a lone `,` followed by three digits is a
 * thousands separator, otherwise a decimal mark; spaces and `'` between digit groups are
 * thousands separators. Exported for tests.
 */
export function parseNumber(text: string): number | undefined {
  let value = text
    .trim()
    .replace(/^(?:[A-Z]{3}\s?)?[$€£¥₹]\s?/, '')
    .replace(/^(?:USD|EUR|GBP|AUD|CAD|NZD|CHF|JPY|INR)\s?/i, '')
    .replace(/\s?(?:USD|EUR|GBP|AUD|CAD|NZD|CHF|JPY|INR)$/i, '')
    .replace(/\s?[$€£¥₹]$/, '');
  let negative = false;
  const parenthesised = /^\((.*)\)$/.exec(value);
  if (parenthesised) {
    negative = true;
    value = parenthesised[1] ?? '';
  }
  const match = /^([-+−]?)\s*[$€£¥₹]?\s*(\d[\d.,' ]*)\s*(%|[A-Za-z]{1,5}\.?)?$/.exec(value.trim());
  if (!match) return undefined;
  if (match[1] === '-' || match[1] === '−') negative = !negative;
  let digits = (match[2] ?? '').trim().replace(/(\d)[' ](?=\d{3}\b)/g, '$1');
  if (/[' ]/.test(digits)) return undefined;
  const lastDot = digits.lastIndexOf('.');
  const lastComma = digits.lastIndexOf(',');
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    digits = digits.split(thousands).join('').replace(decimal, '.');
  } else if (lastComma >= 0) {
    digits = /^\d{1,3}(?:,\d{3})+$/.test(digits)
      ? digits.replace(/,/g, '')
      : digits.replace(',', '.');
  } else if (/^\d{1,3}(?:\.\d{3}){2,}$/.test(digits)) {
    digits = digits.replace(/\./g, '');
  }
  if (!/^\d+(?:\.\d+)?$/.test(digits)) return undefined;
  const number = Number(digits);
  return negative ? -number : number;
}

const TRUE_WORDS = new Set([
  'yes',
  'y',
  'true',
  't',
  'x',
  'checked',
  'on',
  '1',
  '✓',
  '✔',
  '☑',
  '☒',
]);
const FALSE_WORDS = new Set(['no', 'n', 'false', 'f', 'unchecked', 'off', '0', '☐', '□']);

/** yes/no, true/false, x, checked/unchecked, 1/0, and box glyphs. Exported for tests. */
export function parseBoolean(text: string): boolean | undefined {
  const word = text.trim().toLowerCase().replace(/[.!]$/, '');
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const MONTH_NAME =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';

/**
 * The first date in `text` as ISO `YYYY-MM-DD`, or undefined.
 *
 * Reads ISO dates, month names ("September 13, 2021", "13 Sep 2021", "13-Sep-21") and numeric
 * dates. Numeric dates with `/` or `-` are read month first (US style, "1/2/2017" is 2 January)
 * unless the first number cannot be a month (> 12); dates with dots are read day first
 * ("02.10.2024" is 2 October) unless the second number cannot be a month. Two-digit years are
 * 20xx below 70 and 19xx from 70. Exported for tests.
 */
export function toIsoDate(text: string): string | undefined {
  const iso = /\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b/.exec(text);
  if (iso) return isoOf(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const named = new RegExp(
    `\\b${MONTH_NAME}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`,
    'i',
  ).exec(text);
  if (named) return isoOf(Number(named[3]), monthOf(named[1]), Number(named[2]));
  const dayFirst = new RegExp(
    `\\b(\\d{1,2})(?:st|nd|rd|th)?[\\s-]+(?:of\\s+)?${MONTH_NAME}\\.?,?[\\s-]+(\\d{4}|\\d{2})\\b`,
    'i',
  ).exec(text);
  if (dayFirst) return isoOf(year(dayFirst[3]), monthOf(dayFirst[2]), Number(dayFirst[1]));
  const numeric = /\b(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})\b/.exec(text);
  if (numeric) {
    const a = Number(numeric[1]);
    const b = Number(numeric[3]);
    const dotted = numeric[2] === '.';
    const monthFirst = dotted ? b > 12 : a <= 12;
    return monthFirst ? isoOf(year(numeric[4]), a, b) : isoOf(year(numeric[4]), b, a);
  }
  return undefined;
}

const monthOf = (name: string | undefined) => MONTHS[(name ?? '').slice(0, 3).toLowerCase()] ?? 0;

function year(text: string | undefined): number {
  const value = Number(text);
  if ((text ?? '').length > 2) return value;
  return value < 70 ? 2000 + value : 1900 + value;
}

function isoOf(y: number, m: number, d: number): string | undefined {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d)
    return undefined;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}
