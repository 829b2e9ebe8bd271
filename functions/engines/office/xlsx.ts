import type { OfficeDocument } from './office-document.js';
import type { SheetModel, SheetRange } from './sheets.js';
import { sheetPage } from './sheets.js';
import { readWorkbook, sheetModel, visibleSheets } from './xls.js';
import { attr, children, descendants, parseXml, relationships, relsPathOf } from './xml.js';
import { openPackage, WORKBOOK_PACKAGE_LIMITS, type OfficePackage } from './zip-package.js';

const WORKBOOK_PART = 'xl/workbook.xml';

/**
 * Converts an Excel workbook (xlsx) with SheetJS: one page per visible worksheet, in workbook
 * order (hidden sheets are left out unless every sheet is hidden), see `sheetPage`. Cell text is
 * the value as Excel displays it (number formats applied, formulas' cached results, rich text,
 * hyperlink text, error codes). The pictures of each sheet's drawing, which SheetJS does not
 * read, are read from the package (their anchor cells) and become figures.
 *
 * @throws {UnsupportedDocumentError} when the workbook cannot be read.
 * @throws {DocumentRejectedError} see `openPackage` (with {@link WORKBOOK_PACKAGE_LIMITS}: at
 *   most 40 MB of XML in all) and `sheetPage`.
 */
export async function convertXlsx(bytes: Uint8Array): Promise<OfficeDocument> {
  const pkg = await openPackage(bytes, 'xlsx', WORKBOOK_PACKAGE_LIMITS);
  const parts = sheetParts(pkg);
  // SheetJS reads the checked package (stored, XML only), never the upload.
  const workbook = readWorkbook(pkg.storedZip(), 'xlsx');
  const figures = { count: 0 };
  return {
    format: 'xlsx',
    geometry: 'file',
    pages: visibleSheets(workbook).map(({ name, index }) => {
      const part = parts.get(name) ?? parts.get(`#${String(index)}`);
      const defaults = part === undefined ? {} : sheetDefaults(pkg.text(part) ?? '');
      return sheetPage(
        sheetModel(name, workbook.Sheets[name], {
          ...defaults,
          widthInChars: true,
          figures: part === undefined ? [] : sheetPictures(pkg, part),
        }),
        figures,
      );
    }),
  };
}

/** The worksheet part of each sheet, by name (and by `#index` in workbook order). */
function sheetParts(pkg: OfficePackage): Map<string, string> {
  const out = new Map<string, string>();
  const xml = pkg.text(WORKBOOK_PART);
  if (xml === undefined) return out;
  const rels = relationships(pkg.text(relsPathOf(WORKBOOK_PART)), WORKBOOK_PART);
  const sheets = descendants(parseXml(xml, WORKBOOK_PART).documentElement, 'sheet');
  sheets.forEach((sheet, index) => {
    const rel = rels.get(attr(sheet, 'r:id') ?? '');
    if (rel === undefined || rel.external) return;
    out.set(`#${String(index)}`, rel.target);
    const name = attr(sheet, 'name');
    if (name !== undefined) out.set(name, rel.target);
  });
  return out;
}

/**
 * The sheet's default column width and row height (`<sheetFormatPr>`), which SheetJS does not
 * keep. Read from the start of the part, where the element is, without parsing the cells.
 */
function sheetDefaults(xml: string): { defaultColumnChars?: number; defaultRowPt?: number } {
  const head = xml.slice(0, Math.max(0, xml.indexOf('<sheetData')) || 64 * 1024);
  const element = /<(?:\w+:)?sheetFormatPr\b[^>]*>/.exec(head)?.[0] ?? '';
  const number = (name: string): number | undefined => {
    const value = Number(new RegExp(`\\b${name}="([^"]*)"`).exec(element)?.[1]);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  };
  const out: { defaultColumnChars?: number; defaultRowPt?: number } = {};
  const chars = number('defaultColWidth');
  const rowPt = number('defaultRowHeight');
  if (chars !== undefined) out.defaultColumnChars = chars;
  if (rowPt !== undefined) out.defaultRowPt = rowPt;
  return out;
}

/** The pictures (`xdr:pic`) of the sheet's drawings, as the cell ranges they are anchored on. */
function sheetPictures(pkg: OfficePackage, sheetPart: string): SheetModel['figures'] {
  const figures: SheetModel['figures'] = [];
  for (const rel of relationships(pkg.text(relsPathOf(sheetPart)), sheetPart).values()) {
    if (rel.external || !rel.type.endsWith('/drawing')) continue;
    const xml = pkg.text(rel.target);
    if (xml === undefined) continue;
    for (const anchor of children(parseXml(xml, rel.target).documentElement)) {
      if (descendants(anchor, 'pic').length === 0) continue;
      const range = anchorRange(anchor);
      if (range) figures.push({ ...range, alt: '' });
    }
  }
  return figures;
}

/** The cells of a `twoCellAnchor` (from..to) or `oneCellAnchor` (from), 0-based. */
function anchorRange(anchor: Element): SheetRange | undefined {
  const cell = (name: string) => {
    const at = children(anchor, name)[0];
    if (!at) return undefined;
    const value = (n: string) => Math.max(0, Math.floor(Number(children(at, n)[0]?.textContent)));
    const r = value('row');
    const c = value('col');
    return Number.isFinite(r) && Number.isFinite(c) ? { r, c } : undefined;
  };
  const from = cell('from');
  if (!from) return undefined;
  const to = cell('to') ?? from;
  return { r0: from.r, c0: from.c, r1: Math.max(from.r, to.r), c1: Math.max(from.c, to.c) };
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
