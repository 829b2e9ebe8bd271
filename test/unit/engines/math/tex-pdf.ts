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
import type { PageText } from '../../../../functions/engines/layout/types.js';
import { extractPdfiumPage } from '../../../../functions/engines/pdf/pdfium-page-text.js';
import { loadPdfium, PdfiumDocument } from '../../../../functions/engines/pdf/pdfium.js';

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

/**
 * A Type 1 font named with a TeX name (`CMMI10`, `CMEX10`) and Times' (or Symbol's) widths,
 * not embedded and with no encoding of its own, as pdfTeX's subset fonts read without a
 * ToUnicode map: a reader gives their character codes.
 */
const texFont = (doc: PDFDocument, page: PDFPage, metrics: PDFFont, baseFont: string): string => {
  const widths = Array.from({ length: 256 }, (_, code) => {
    try {
      return Math.round(metrics.widthOfTextAtSize(String.fromCharCode(code), 1000)) || 500;
    } catch {
      return 500;
    }
  });
  const font = doc.context.register(
    doc.context.obj({
      Type: 'Font',
      Subtype: 'Type1',
      BaseFont: baseFont,
      FirstChar: 0,
      LastChar: 255,
      Widths: widths,
      FontDescriptor: doc.context.register(
        doc.context.obj({
          Type: 'FontDescriptor',
          FontName: baseFont,
          Flags: 4,
          FontBBox: [-40, -250, 1009, 750],
          ItalicAngle: 0,
          Ascent: 750,
          Descent: -250,
          CapHeight: 683,
          StemV: 80,
        }),
      ),
    }),
  );
  const key = `F${baseFont}`;
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
 * are points, y down).
 */
export const texPage = async (
  glyphs: readonly Glyphs[],
  rules: readonly Rule[] = [],
): Promise<PageText> => {
  const doc = await PDFDocument.create();
  const times = await doc.embedFont(StandardFonts.TimesRoman);
  const page = doc.addPage([400, 200]);
  const keys = new Map<string, string>();
  for (const g of glyphs)
    if (!keys.has(g.font)) keys.set(g.font, texFont(doc, page, times, g.font));
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
