import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  degrees,
  endText,
  PDFDocument,
  beginText,
  setFontAndSize,
  setTextRenderingMode,
  showText,
  moveText,
  StandardFonts,
  TextRenderingMode,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { DocumentRejectedError } from '../../../../functions/core/domain/errors.js';
import type { TextRun } from '../../../../functions/engines/layout/types.js';
import { extractPage, type ExtractedPage } from '../../../../functions/engines/pdf/page-text.js';
import { openPdf } from '../../../../functions/engines/pdf/pdf-document.js';
import { layOutTextLayer } from '../../../../functions/engines/pdf/local-text-provider.js';
import { extractPdfiumPage } from '../../../../functions/engines/pdf/pdfium-page-text.js';
import { loadPdfium, PdfiumDocument } from '../../../../functions/engines/pdf/pdfium.js';
import { warmUpPdf } from '../../../../functions/engines/pdf/warm-up-pdf.js';
import { corpusDir } from '../../../support/corpus.js';

const CORPUS = corpusDir();

/** Reads page `pageNumber` with both readers at `dpi`. */
const readBoth = async (bytes: Uint8Array, pageNumber = 1, dpi = 72) => {
  const reader = PdfiumDocument.open(await loadPdfium(), bytes);
  let pdfium: ExtractedPage;
  try {
    pdfium = extractPdfiumPage(reader, pageNumber, dpi);
  } finally {
    reader.close();
  }
  const document = await openPdf(bytes);
  try {
    const pdfjs = await extractPage(await document.getPage(pageNumber), dpi);
    return { pdfium, pdfjs };
  } finally {
    await document.destroy();
  }
};

/** The characters of the runs, whitespace dropped, sorted: the text whatever the run breaks. */
const characters = (runs: readonly TextRun[]): string =>
  Array.from(runs.map((r) => r.text).join(''))
    .filter((c) => c.trim() !== '')
    .sort()
    .join('');

const runWith = (runs: readonly TextRun[], text: string): TextRun => {
  const run = runs.find((r) => r.text.includes(text));
  if (!run) throw new Error(`no run with ${text}: ${runs.map((r) => r.text).join(' | ')}`);
  return run;
};

const generated = async (draw: (doc: PDFDocument) => Promise<void>): Promise<Uint8Array> => {
  const doc = await PDFDocument.create();
  await draw(doc);
  return doc.save();
};

describe('extractPdfiumPage', () => {
  it('reads the text, rules and page size pdf.js reads on a corpus paper page', async () => {
    // Arrange
    const bytes = readFileSync(join(CORPUS, 'dev/files/docling-2305.03393v1-pg9.pdf'));
    // Act
    const { pdfium, pdfjs } = await readBoth(bytes, 1, 144);
    // Assert
    expect(characters(pdfium.text.runs)).toBe(characters(pdfjs.text.runs));
    expect([pdfium.widthPt, pdfium.heightPt]).toEqual([pdfjs.widthPt, pdfjs.heightPt]);
    expect(pdfium.stats.chars).toBe(pdfjs.stats.chars);
    expect(pdfium.stats.garbageChars).toBe(0);
    expect(pdfium.text.rules.length).toBeGreaterThan(10);
    for (const run of pdfium.text.runs) {
      expect(run.x).toBeGreaterThanOrEqual(0);
      expect(run.y).toBeGreaterThanOrEqual(0);
      expect(run.x + run.w).toBeLessThanOrEqual(pdfium.text.width);
      expect(run.y + run.h).toBeLessThanOrEqual(pdfium.text.height);
    }
    // The section heading: bold (SFBX), same box as pdf.js within a pixel.
    const heading = runWith(pdfium.text.runs, 'Table 1.');
    expect(heading.bold).toBe(true);
    const reference = pdfjs.text.runs.find((r) => r.text.trim() === 'Table' && r.bold);
    if (!reference) throw new Error('pdf.js has no bold "Table" run');
    expect(Math.abs(heading.x - reference.x)).toBeLessThan(1);
    expect(Math.abs(heading.baseline - reference.baseline)).toBeLessThan(1);
    expect(Math.abs(heading.fontSize - reference.fontSize)).toBeLessThan(0.1);
  });

  it('places text on a rotated, cropped page where a viewer shows it', async () => {
    // Arrange: /Rotate 90 and a crop box that starts at (50, 60).
    const bytes = await generated(async (doc) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const page = doc.addPage([612, 792]);
      page.setCropBox(50, 60, 500, 700);
      page.setRotation(degrees(90));
      page.drawText('Rotated page heading', { x: 100, y: 600, size: 18, font });
      page.drawText('Sideways text', { x: 300, y: 200, size: 12, font, rotate: degrees(90) });
      page.drawLine({ start: { x: 100, y: 100 }, end: { x: 400, y: 100 }, thickness: 1 });
    });
    // Act
    const { pdfium, pdfjs } = await readBoth(bytes, 1, 144);
    // Assert
    expect([pdfium.widthPt, pdfium.heightPt]).toEqual([700, 500]);
    expect([pdfium.text.width, pdfium.text.height]).toEqual([pdfjs.text.width, pdfjs.text.height]);
    const upright = runWith(pdfium.text.runs, 'Sideways');
    const reference = runWith(pdfjs.text.runs, 'Sideways');
    expect(Math.abs(upright.x - reference.x)).toBeLessThan(1);
    expect(Math.abs(upright.baseline - reference.baseline)).toBeLessThan(1);
    // Text running down the rotated page is a rotated run of its own.
    expect(runWith(pdfium.text.runs, 'Rotated page heading').rotation).toBeCloseTo(270, 0);
    expect(pdfium.stats.rawText).toContain('Rotated page heading');
    const [rule] = pdfium.text.rules;
    const [expected] = pdfjs.text.rules;
    expect(rule && expected).toBeTruthy();
    expect(Math.abs((rule?.x1 ?? 0) - (expected?.x1 ?? 0))).toBeLessThan(1);
    expect(Math.abs((rule?.y2 ?? 0) - (expected?.y2 ?? 0))).toBeLessThan(1);
  });

  it('finds rules drawn inside a form XObject at their place on the page', async () => {
    // Arrange: a page with a ruled box, embedded scaled by one half at (100, 300).
    const bytes = await generated(async (doc) => {
      const source = await PDFDocument.create();
      const inner = source.addPage([400, 200]);
      inner.drawRectangle({ x: 20, y: 20, width: 300, height: 120, borderWidth: 1 });
      inner.drawLine({ start: { x: 20, y: 80 }, end: { x: 320, y: 80 }, thickness: 1 });
      const [embedded] = await doc.embedPdf(await source.save());
      const page = doc.addPage([612, 792]);
      if (embedded) page.drawPage(embedded, { x: 100, y: 300, xScale: 0.5, yScale: 0.5 });
    });
    // Act
    const { pdfium, pdfjs } = await readBoth(bytes);
    // Assert
    const key = (r: { x1: number; y1: number; x2: number; y2: number }) =>
      [r.x1, r.y1, r.x2, r.y2].map((v) => Math.round(v)).join(',');
    expect(pdfium.text.rules.length).toBeGreaterThanOrEqual(5);
    expect(pdfium.text.rules.map(key).sort()).toEqual(pdfjs.text.rules.map(key).sort());
    // The middle rule: y = 792 - (300 + 80 / 2) = 452 on the page image at 72 DPI.
    expect(
      pdfium.text.rules.some((r) => Math.abs(r.y1 - 452) < 1 && Math.abs(r.y2 - 452) < 1),
    ).toBe(true);
  });

  it('keeps a line-end hyphen and counts invisible text', async () => {
    // Arrange
    const bytes = await generated(async (doc) => {
      const font = await doc.embedFont(StandardFonts.TimesRoman);
      const page = doc.addPage([612, 792]);
      page.drawText('The parser keeps infor-', { x: 72, y: 700, size: 12, font });
      page.drawText('mation split across lines.', { x: 72, y: 686, size: 12, font });
      page.pushOperators(
        beginText(),
        setFontAndSize(page.node.newFontDictionary(font.name, font.ref), 10),
        setTextRenderingMode(TextRenderingMode.Invisible),
        moveText(72, 600),
        showText(font.encodeText('hidden layer')),
        endText(),
      );
    });
    // Act
    const { pdfium } = await readBoth(bytes);
    // Assert
    expect(runWith(pdfium.text.runs, 'infor').text.trim()).toBe('The parser keeps infor-');
    expect(pdfium.stats.rawText).toContain('infor-');
    expect(pdfium.stats.garbageChars).toBe(0);
    expect(pdfium.stats.invisibleGlyphs).toBe('hiddenlayer'.length + 1);
  });

  it('reads the worker warm-up page, with its embedded TrueType and Type 1 fonts, in both readers', async () => {
    // Arrange: the warm-up's failures are swallowed at start-up, so its page is checked here.
    const bytes = await warmUpPdf();
    // Act
    const { pdfium, pdfjs } = await readBoth(bytes);
    // Assert
    for (const page of [pdfium, pdfjs]) {
      expect(page.stats.fonts).toEqual(
        expect.arrayContaining(['Helvetica', 'LiberationSans', 'FoxitSerif']),
      );
      expect(page.stats.garbageChars).toBe(0);
      expect(page.text.images).toHaveLength(1);
      expect(page.text.rules.length).toBeGreaterThanOrEqual(40);
    }
    expect(runWith(pdfium.text.runs, 'Line 3 of').fontName).toBe('LiberationSans');
    expect(runWith(pdfium.text.runs, 'Line 4 of').fontName).toBe('FoxitSerif');
  });

  it('lays out the warm-up page with its mathematics, so that the math code is compiled too', async () => {
    // Arrange
    const { pdfium } = await readBoth(await warmUpPdf());
    // Act
    const { markdown, elements } = layOutTextLayer(pdfium, 144, null);
    // Assert: a display equation with a script and a fraction, and inline math; the text
    // around them (in FoxitSerif among others) stays text.
    expect(markdown).toMatch(/^\$\$x=a\^\{2\}\+.*\\frac\{b\}\{c\}\$\$ \(3\)$/m);
    expect(markdown).toContain('where the state $x_{t}$ follows the rule.');
    expect(markdown).toContain('Line 4 of the warm-up page,');
    expect(elements.filter((e) => e.label === 'formula').map((e) => e.text)).toHaveLength(2);
  });

  it('rejects a page number outside the document', async () => {
    // Arrange
    const bytes = readFileSync(join(CORPUS, 'dev/files/pypdf-minimal-document.pdf'));
    const reader = PdfiumDocument.open(await loadPdfium(), bytes);
    try {
      // Act / Assert
      expect(() => extractPdfiumPage(reader, 2, 72)).toThrow(DocumentRejectedError);
      expect(() => extractPdfiumPage(reader, 2, 72)).toThrow(/page 2 does not exist/);
    } finally {
      reader.close();
    }
  });
});
