import {
  beginText,
  endText,
  PDFDocument,
  PDFHexString,
  PDFName,
  setFontAndSize,
  setTextMatrix,
  showText,
  StandardFonts,
  type PDFFont,
  type PDFPage,
} from 'pdf-lib';
import type { PageText } from '../../functions/engines/layout/types.js';
import type { ExtractedPage } from '../../functions/engines/pdf/page-text.js';
import { extractPdfiumPage } from '../../functions/engines/pdf/pdfium-page-text.js';
import { loadPdfium, PdfiumDocument } from '../../functions/engines/pdf/pdfium.js';

/** A glyph drawn in a TeX font: its text (character codes), font, size and baseline origin. */
export interface Glyphs {
  text: string;
  font: string;
  size: number;
  x: number;
  y: number;
}

/** A rule (fraction bar, vinculum) from (x1, y) to (x2, y), in points from the bottom left. */
export interface Rule {
  x1: number;
  x2: number;
  y: number;
}

/** Descriptor flags: Symbolic (a font with its own encoding), Nonsymbolic, ForceBold. */
const SYMBOLIC = 4;
const NONSYMBOLIC = 32;
const FORCE_BOLD = 1 << 18;

/** How a {@link texFont} is drawn and described. */
export interface TexFontOptions {
  /** The standard font (Times-Roman, Symbol) whose widths the TeX font takes. */
  metrics: PDFFont;
  /** The font's resource name on the page; `F<baseFont>` unless given. */
  key?: string;
  /**
   * The encoding the font dictionary names. Without one the font keeps its built-in encoding,
   * as pdfTeX's subset fonts do, and a reader with no ToUnicode map gives the character codes.
   */
  encoding?: 'WinAnsiEncoding';
  /** The first and last character codes given widths: 32–126 with an encoding, else 0–255. */
  firstChar?: number;
  lastChar?: number;
  /** Says bold as some TeX PDFs say of every embedded font: ForceBold, a wide stem, weight 700. */
  forceBold?: boolean;
  /**
   * A ToUnicode map: the text of character codes (`{ 1: '\u2206' }` for CMR's `Delta`, as the
   * Adobe Glyph List gives it); the printable ASCII codes map to themselves.
   */
  toUnicode?: Readonly<Record<number, string>>;
}

/** A ToUnicode CMap giving `codes` their text, and printable ASCII codes themselves. */
const toUnicodeCmap = (codes: Readonly<Record<number, string>>): string => {
  const map = new Map<number, string>();
  for (let c = 32; c < 127; c++) map.set(c, String.fromCharCode(c));
  for (const [code, text] of Object.entries(codes)) map.set(Number(code), text);
  const hex4 = (text: string): string =>
    Array.from(text)
      .map((c) => (c.codePointAt(0) ?? 0).toString(16).padStart(4, '0'))
      .join('');
  const entries = [...map].map(
    ([code, text]) => `<${code.toString(16).padStart(2, '0')}> <${hex4(text)}>`,
  );
  // A bfchar block holds at most 100 entries.
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const block = entries.slice(i, i + 100);
    blocks.push(`${block.length} beginbfchar\n${block.join('\n')}\nendbfchar`);
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<00> <FF>',
    'endcodespacerange',
    ...blocks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ].join('\n');
};

/**
 * Registers on `page` a Type 1 font named `baseFont` (a TeX name: `CMMI10`, `ABCDEF+CMR10`),
 * not embedded, with the widths of `options.metrics`, and returns its resource name.
 */
export const texFont = (
  doc: PDFDocument,
  page: PDFPage,
  baseFont: string,
  options: TexFontOptions,
): string => {
  const { metrics, encoding, forceBold = false } = options;
  const firstChar = options.firstChar ?? (encoding ? 32 : 0);
  const lastChar = options.lastChar ?? (encoding ? 126 : 255);
  const widths = Array.from({ length: lastChar - firstChar + 1 }, (_, i) => {
    try {
      const width = metrics.widthOfTextAtSize(String.fromCharCode(firstChar + i), 1000);
      return Math.round(width) || 500;
    } catch {
      return 500;
    }
  });
  const descriptor = doc.context.register(
    doc.context.obj({
      Type: 'FontDescriptor',
      FontName: baseFont,
      Flags: (encoding ? NONSYMBOLIC : SYMBOLIC) | (forceBold ? FORCE_BOLD : 0),
      FontBBox: [-40, -250, 1009, 750],
      ItalicAngle: 0,
      Ascent: 750,
      Descent: -250,
      CapHeight: 683,
      StemV: forceBold ? 160 : 80,
      ...(forceBold ? { FontWeight: 700 } : {}),
    }),
  );
  const font = doc.context.register(
    doc.context.obj({
      Type: 'Font',
      Subtype: 'Type1',
      BaseFont: baseFont,
      FirstChar: firstChar,
      LastChar: lastChar,
      Widths: widths,
      ...(encoding ? { Encoding: encoding } : {}),
      FontDescriptor: descriptor,
      ...(options.toUnicode
        ? {
            ToUnicode: doc.context.register(doc.context.stream(toUnicodeCmap(options.toUnicode))),
          }
        : {}),
    }),
  );
  const key = options.key ?? `F${baseFont}`;
  page.node.setFontDictionary(PDFName.of(key), font);
  return key;
};

const hex = (text: string): PDFHexString =>
  PDFHexString.of(
    Array.from(text)
      .map((c) => (c.codePointAt(0) ?? 0).toString(16).padStart(2, '0'))
      .join(''),
  );

/**
 * The text layer of a one-page PDF holding `glyphs` (each in its TeX font, drawn by character
 * code) and `rules`, read with PDFium at 72 DPI as the text-layer engine reads a page (pixels
 * are points, y down). `toUnicode` gives fonts (by name) a ToUnicode map ({@link TexFontOptions}).
 */
export const texPage = async (
  glyphs: readonly Glyphs[],
  rules: readonly Rule[] = [],
  toUnicode: Readonly<Record<string, Readonly<Record<number, string>>>> = {},
): Promise<PageText> => {
  const doc = await PDFDocument.create();
  const times = await doc.embedFont(StandardFonts.TimesRoman);
  const page = doc.addPage([400, 200]);
  const keys = new Map<string, string>();
  for (const g of glyphs) {
    if (!keys.has(g.font)) {
      const map = toUnicode[g.font];
      keys.set(g.font, texFont(doc, page, g.font, { metrics: times, toUnicode: map }));
    }
  }
  page.pushOperators(
    beginText(),
    ...glyphs.flatMap((g) => [
      setFontAndSize(keys.get(g.font) ?? '', g.size),
      setTextMatrix(1, 0, 0, 1, g.x, g.y),
      showText(hex(g.text)),
    ]),
    endText(),
  );
  for (const rule of rules) {
    page.drawLine({
      start: { x: rule.x1, y: rule.y },
      end: { x: rule.x2, y: rule.y },
      thickness: 0.4,
    });
  }
  const bytes = await doc.save();
  const reader = PdfiumDocument.open(await loadPdfium(), bytes);
  try {
    return extractPdfiumPage(reader, 1, 72).text;
  } finally {
    reader.close();
  }
};

/** A piece of text: its font (CMR10, CMMI10, CMR7, CMMI7), text, left x, baseline y and size. */
export type Piece = [font: string, text: string, x: number, y: number, size: number];

/** A one-page PDF (US letter) of `pieces`, each font a TeX font with Times' metrics. */
export async function texPdf(pieces: readonly Piece[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const times = await doc.embedFont(StandardFonts.TimesRoman);
  const page = doc.addPage([612, 792]);
  const keys = new Map<string, string>();
  for (const [name] of pieces) {
    if (!keys.has(name))
      keys.set(
        name,
        texFont(doc, page, `ABCDEF+${name}`, {
          metrics: times,
          key: `F${keys.size}`,
          encoding: 'WinAnsiEncoding',
        }),
      );
  }
  page.pushOperators(
    beginText(),
    ...pieces.flatMap(([name, text, x, y, size]) => [
      setFontAndSize(keys.get(name) ?? 'F0', size),
      setTextMatrix(1, 0, 0, 1, x, y),
      showText(times.encodeText(text)),
    ]),
    endText(),
  );
  return doc.save();
}

/** The width of `text` in Times at `size` points. */
let timesFont: PDFFont | undefined;
export const widthOf = async (text: string, size: number): Promise<number> => {
  if (!timesFont)
    timesFont = await (await PDFDocument.create()).embedFont(StandardFonts.TimesRoman);
  return timesFont.widthOfTextAtSize(text, size);
};

/** Pieces set one after the other from `x` on one baseline (a piece's own `y` shifts it). */
export async function line(
  x: number,
  y: number,
  pieces: readonly [font: string, text: string, size?: number, shift?: number][],
): Promise<Piece[]> {
  const out: Piece[] = [];
  let at = x;
  for (const [font, text, size = 10, shift = 0] of pieces) {
    out.push([font, text, at, y + shift, size]);
    at += await widthOf(text, size);
  }
  return out;
}

/** Page 1 of a PDF read with PDFium at 144 DPI. */
export async function extracted(bytes: Uint8Array): Promise<ExtractedPage> {
  const reader = PdfiumDocument.open(await loadPdfium(), bytes);
  try {
    return extractPdfiumPage(reader, 1, 144);
  } finally {
    reader.close();
  }
}
