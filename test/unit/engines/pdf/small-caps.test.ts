import {
  beginText,
  endText,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  setFontAndSize,
  setTextMatrix,
  showText,
  StandardFonts,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import type { TextRun } from '../../../../functions/engines/layout/types.js';
import { fontStyle } from '../../../../functions/engines/pdf/font-style.js';
import { extractPage, type ExtractedPage } from '../../../../functions/engines/pdf/page-text.js';
import { openPdf } from '../../../../functions/engines/pdf/pdf-document.js';
import { extractPdfiumPage } from '../../../../functions/engines/pdf/pdfium-page-text.js';
import { loadPdfium, PdfiumDocument } from '../../../../functions/engines/pdf/pdfium.js';
import { texFont, texPage } from '../../../support/tex-pdf.js';

/** The SmallCap bit of a font descriptor's /Flags (bit 18, ISO 32000-1 table 123). */
const SMALL_CAP = 1 << 17;

/** A font on the page: its base name and whether its descriptor sets the SmallCap flag. */
interface Font {
  name: string;
  smallCapFlag?: boolean;
}

/** A one-page PDF with one line per font, each showing `text` (WinAnsi codes, Times widths). */
async function fontsPdf(fonts: readonly Font[], text: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const times = await doc.embedFont(StandardFonts.TimesRoman);
  const page = doc.addPage([400, 300]);
  const keys = fonts.map((font, i) => {
    const key = texFont(doc, page, font.name, {
      metrics: times,
      key: `F${String(i)}`,
      encoding: 'WinAnsiEncoding',
    });
    if (font.smallCapFlag) {
      const descriptor = page.node
        .Resources()
        ?.lookup(PDFName.of('Font'), PDFDict)
        .lookup(PDFName.of(key), PDFDict)
        .lookup(PDFName.of('FontDescriptor'), PDFDict);
      const flags = descriptor?.lookup(PDFName.of('Flags'), PDFNumber).asNumber() ?? 0;
      descriptor?.set(PDFName.of('Flags'), PDFNumber.of(flags | SMALL_CAP));
    }
    return key;
  });
  page.pushOperators(
    beginText(),
    ...keys.flatMap((key, i) => [
      setFontAndSize(key, 10),
      setTextMatrix(1, 0, 0, 1, 40, 250 - i * 30),
      showText(times.encodeText(text)),
    ]),
    endText(),
  );
  return doc.save();
}

const pdfiumPage = async (bytes: Uint8Array): Promise<ExtractedPage> => {
  const reader = PdfiumDocument.open(await loadPdfium(), bytes);
  try {
    return extractPdfiumPage(reader, 1, 72);
  } finally {
    reader.close();
  }
};

const pdfjsPage = async (bytes: Uint8Array): Promise<ExtractedPage> => {
  const document = await openPdf(bytes);
  try {
    return await extractPage(await document.getPage(1), 72);
  } finally {
    await document.destroy();
  }
};

/** The text of the runs in font `name` (a subset prefix ignored), top to bottom. */
const textIn = (runs: readonly TextRun[], name: string): string[] =>
  runs
    .filter((r) => r.fontName.replace(/^[A-Z]{6}\+/, '') === name)
    .sort((a, b) => a.y - b.y)
    .map((r) => r.text.trim());

describe('small-caps fonts', () => {
  it('reads a CMCSC10 run in capitals and a CMR10 run of the same codes in lowercase', async () => {
    // Arrange: the same character codes, `smc-abc`, in TeX's small caps and in its roman.
    const glyphs = [
      { text: 'smc-abc', font: 'BZHKAA+CMCSC10', size: 10, x: 40, y: 150 },
      { text: 'smc-abc', font: 'TNYVOQ+CMR10', size: 10, x: 40, y: 100 },
    ];
    // Act
    const page = await texPage(glyphs);
    // Assert
    expect(textIn(page.runs, 'CMCSC10')).toEqual(['SMC-ABC']);
    expect(textIn(page.runs, 'CMR10')).toEqual(['smc-abc']);
  });

  it('reads text in capitals when the font descriptor sets the SmallCap flag', async () => {
    // Arrange: a font whose name says nothing of small caps, with and without the flag.
    const bytes = await fontsPdf(
      [{ name: 'Garamond', smallCapFlag: true }, { name: 'Palatino' }],
      'Sequential Monte Carlo (smc) 2.',
    );
    // Act
    const page = await pdfiumPage(bytes);
    // Assert
    expect(textIn(page.text.runs, 'Garamond')).toEqual(['SEQUENTIAL MONTE CARLO (SMC) 2.']);
    expect(textIn(page.text.runs, 'Palatino')).toEqual(['Sequential Monte Carlo (smc) 2.']);
    expect(page.stats.rawText).toContain('SEQUENTIAL MONTE CARLO (SMC) 2.');
  });

  it.each([
    ['PDFium', pdfiumPage],
    ['pdf.js', pdfjsPage],
  ])('reads small-caps font names in capitals with %s', async (_reader, read) => {
    // Arrange
    const names = ['ECCC1000', 'LMRomanCaps10-Regular', 'Sabon-RomanSC', 'CMR10', 'NotoSansSC'];
    const bytes = await fontsPdf(
      names.map((name) => ({ name })),
      'gpo-smc',
    );
    // Act
    const page = await read(bytes);
    // Assert
    expect(names.map((name) => textIn(page.text.runs, name).join(' '))).toEqual([
      'GPO-SMC',
      'GPO-SMC',
      'GPO-SMC',
      'gpo-smc',
      'gpo-smc',
    ]);
  });
});

describe('fontStyle small caps', () => {
  it('takes small caps from TeX family codes, style names and the SmallCap flag', () => {
    const smallCaps = (name: string, flag?: boolean) =>
      fontStyle(name, flag === undefined ? {} : { smallCaps: flag }).smallCaps;
    expect(smallCaps('BZHKAA+CMCSC10')).toBe(true);
    expect(smallCaps('CMCSC8')).toBe(true);
    expect(smallCaps('SFXC1000')).toBe(true);
    expect(smallCaps('LMRomanCaps10-Oblique')).toBe(true);
    expect(smallCaps('Garamond-SmallCaps')).toBe(true);
    expect(smallCaps('Minion-SC')).toBe(true);
    expect(smallCaps('Garamond', true)).toBe(true);
    // A TeX name decides whatever the descriptor says; SC after a family name is Chinese.
    expect(smallCaps('CMR10', true)).toBe(false);
    expect(smallCaps('CMSS10')).toBe(false);
    expect(smallCaps('CMSY10')).toBe(false);
    expect(smallCaps('SourceHanSerifSC-Regular')).toBe(false);
    expect(smallCaps('Capsule-Regular')).toBe(false);
  });
});
