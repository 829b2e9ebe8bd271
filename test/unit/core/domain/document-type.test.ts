import { describe, expect, it } from 'vitest';
import { detectDocumentType } from '../../../../functions/core/domain/document-type.js';
import { DocumentTypeReport } from '../../../../functions/core/domain/schemas.js';
import type { PageFeatures } from '../../../../functions/core/ports/document-engine.js';
import { pageFeatures, scannedPageFeatures } from '../../../support/builders.js';

/** `count` pages built by `make` (1-based page numbers). */
const pages = (count: number, make: (pageNumber: number) => Partial<PageFeatures>) =>
  Array.from({ length: count }, (_, i) => pageFeatures({ pageNumber: i + 1, ...make(i + 1) }));

/** A page of a 16:9 slide deck: 960 × 540 pt, a title and a few bullets. */
const slide = (): Partial<PageFeatures> => ({
  widthPt: 960,
  heightPt: 540,
  textChars: 320,
  textCoverage: 0.12,
  fontCount: 2,
});

/** A page of a two-column paper: dense text in six fonts. */
const paperPage = (): Partial<PageFeatures> => ({
  textChars: 3600,
  textCoverage: 0.6,
  columnCount: 2,
  fontCount: 6,
  ruleCount: 12,
});

/** A page of a single-column report: prose with headings in a bold face. */
const reportPage = (): Partial<PageFeatures> => ({ textChars: 2400, fontCount: 3 });

/** A one-page form: short labels and values in boxes. */
const formPage = (): Partial<PageFeatures> => ({
  textChars: 700,
  textCoverage: 0.15,
  ruleCount: 48,
  fontCount: 6,
});

describe('detectDocumentType: images and scans', () => {
  it('names an image format image_or_scan with 300 DPI and verification', () => {
    // Act
    const report = detectDocumentType({
      format: 'png',
      pages: [pageFeatures({ usableTextLayer: false, imageCoverage: 1, textChars: 0 })],
    });
    // Assert
    expect(report).toEqual({
      detected: 'image_or_scan',
      confidence: 0.95,
      rationale: 'A PNG image (1 page): no text layer, every page goes to OCR.',
      suggested_dpi: 300,
      suggested_enable_verification: true,
    });
  });

  it('names a PDF of scanned pages image_or_scan, counting the pages without a text layer', () => {
    // Arrange
    const scans = [1, 2, 3].map(scannedPageFeatures);
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: scans });
    // Assert
    expect(report).toMatchObject({
      detected: 'image_or_scan',
      confidence: 0.95,
      suggested_dpi: 300,
      suggested_enable_verification: true,
    });
    expect(report.rationale).toBe(
      'Scanned images on 3 of 3 pages (median image coverage 100%), no text layer.',
    );
  });

  it('treats an invisible OCR layer over a full-page image as a scan', () => {
    // Arrange: a previous OCR pass left a usable but invisible text layer.
    const page = pageFeatures({ imageCoverage: 1, invisibleCharRatio: 1, textChars: 2800 });
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: [page] });
    // Assert
    expect(report.detected).toBe('image_or_scan');
    expect(report.rationale).toMatch(/1 under an invisible OCR layer/);
  });

  it('lowers the scan confidence when only some pages are scanned', () => {
    // Arrange: 2 scans, 1 born-digital page.
    const mixed = [scannedPageFeatures(1), scannedPageFeatures(2), pageFeatures({ pageNumber: 3 })];
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: mixed });
    // Assert
    expect(report.detected).toBe('image_or_scan');
    expect(report.confidence).toBe(0.8);
  });

  it('counts a page without a text layer and without measured images as a page needing OCR', () => {
    // Arrange: a PDF page that could not be read.
    const unreadable = pageFeatures({ usableTextLayer: false, textChars: 0, imageCoverage: 0 });
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: [unreadable] });
    // Assert
    expect(report.detected).toBe('image_or_scan');
    expect(report.rationale).toMatch(/median image coverage 0%/);
  });

  it('keeps a mostly born-digital document with one scanned page, suggesting 300 DPI and verification', () => {
    // Arrange
    const document = [...pages(5, reportPage), scannedPageFeatures(6)];
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: document });
    // Assert
    expect(report.detected).toBe('report_manual');
    expect(report.suggested_dpi).toBe(300);
    expect(report.suggested_enable_verification).toBe(true);
  });
});

describe('detectDocumentType: slides', () => {
  it('names 16:9 landscape pages with little text a slide deck', () => {
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: pages(12, slide) });
    // Assert
    expect(report).toMatchObject({
      detected: 'slide_deck',
      confidence: 0.95,
      suggested_dpi: 150,
      suggested_enable_verification: false,
    });
    expect(report.rationale).toMatch(/^12 of 12 pages are landscape \(12 at a screen aspect/);
  });

  it('recognises 4:3 slides', () => {
    // Act
    const report = detectDocumentType({
      format: 'pdf',
      pages: pages(3, () => ({ ...slide(), widthPt: 720, heightPt: 540 })),
    });
    // Assert
    expect(report.detected).toBe('slide_deck');
    expect(report.confidence).toBeGreaterThan(0.9);
  });

  it('is less sure of a Letter page turned landscape with dense text than of a 16:9 deck', () => {
    // Arrange: 792 × 612 is not a screen aspect, and 2600 characters are no slide's.
    const landscapePrint = pages(1, () => ({ widthPt: 792, heightPt: 612, textChars: 2600 }));
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: landscapePrint });
    // Assert
    expect(report.detected).toBe('slide_deck');
    expect(report.confidence).toBeLessThan(0.6);
  });

  it('names a PowerPoint file a slide deck by its format', () => {
    // Act
    const report = detectDocumentType({ format: 'pptx', pages: [] });
    // Assert
    expect(report).toMatchObject({ detected: 'slide_deck', confidence: 0.9, suggested_dpi: 150 });
  });
});

describe('detectDocumentType: academic papers', () => {
  it('names dense two-column pages with math fonts a paper, with 200 DPI and verification', () => {
    // Arrange: math fonts on 4 of 12 pages.
    const paper = pages(12, (n) => ({ ...paperPage(), mathCharRatio: n % 3 === 0 ? 0.04 : 0 }));
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: paper });
    // Assert
    expect(report).toMatchObject({
      detected: 'academic_paper',
      confidence: 0.9,
      suggested_dpi: 200,
      suggested_enable_verification: true,
    });
    expect(report.rationale).toBe(
      'Dense text (median 3600 characters per page) on 12 portrait pages, two or more columns on 12 of 12, math fonts on 4 pages, 6 fonts per page.',
    );
  });

  it('names a two-column paper without math a paper at 150 DPI without verification', () => {
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: pages(8, paperPage) });
    // Assert
    expect(report).toMatchObject({
      detected: 'academic_paper',
      suggested_dpi: 150,
      suggested_enable_verification: false,
    });
    expect(report.confidence).toBeGreaterThan(0.6);
  });

  it('caps the confidence of a single two-column page, which may be an excerpt of anything', () => {
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: pages(1, paperPage) });
    // Assert
    expect(report).toMatchObject({ detected: 'academic_paper', confidence: 0.6 });
  });

  it('calls a single dense single-column page in many fonts a paper with low confidence', () => {
    // Act
    const report = detectDocumentType({
      format: 'pdf',
      pages: pages(1, () => ({ ...paperPage(), columnCount: 1 })),
    });
    // Assert
    expect(report.detected).toBe('academic_paper');
    expect(report.confidence).toBeLessThan(0.5);
    expect(report.rationale).toMatch(/single-column, no math fonts/);
  });

  it('does not call a document longer than a paper a paper', () => {
    // Arrange: 80 two-column pages without math are a thesis or a manual, not a paper.
    const long = pages(80, paperPage);
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: long });
    // Assert
    expect(report.detected).toBe('unknown');
    expect(report.rationale).toMatch(/no type fits these features clearly/);
  });

  it('names the close runner-up when a single-column paper with math could be a report', () => {
    // Arrange: 10 single-column dense pages, math on every other one.
    const paper = pages(10, (n) => ({
      ...paperPage(),
      columnCount: 1,
      mathCharRatio: n % 2 ? 0.05 : 0,
    }));
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: paper });
    // Assert
    expect(['academic_paper', 'report_manual']).toContain(report.detected);
    expect(report.rationale).toMatch(/; close to (academic_paper|report_manual) \(/);
    expect(report.confidence).toBeLessThan(0.6);
  });
});

describe('detectDocumentType: invoices and forms', () => {
  it('names one page of short text with rule lines and many fonts a form, at 200 DPI with verification', () => {
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: pages(1, formPage) });
    // Assert
    expect(report).toEqual({
      detected: 'invoice_or_form',
      confidence: 0.8,
      rationale:
        'Short text (median 700 characters) on 1 page with 48 rule lines, 6 fonts and 15% text coverage.',
      suggested_dpi: 200,
      suggested_enable_verification: true,
    });
  });

  it('is less sure of a ruled page in few fonts with dense coverage', () => {
    // Act
    const report = detectDocumentType({
      format: 'pdf',
      pages: pages(2, () => ({ ...formPage(), fontCount: 2, textCoverage: 0.4 })),
    });
    // Assert
    expect(report.detected).toBe('invoice_or_form');
    expect(report.confidence).toBeLessThan(0.65);
  });

  it('does not call short ruled pages a form beyond two pages', () => {
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: pages(3, formPage) });
    // Assert
    expect(report.detected).not.toBe('invoice_or_form');
  });
});

describe('detectDocumentType: reports, manuals and textbooks', () => {
  it('names many single-column pages with headings a report or manual at 150 DPI', () => {
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: pages(40, reportPage) });
    // Assert
    expect(report).toEqual({
      detected: 'report_manual',
      confidence: 0.8,
      rationale: '40 pages, 40 of 40 text pages single-column, 3 fonts per page, no math fonts.',
      suggested_dpi: 150,
      suggested_enable_verification: false,
    });
  });

  it('names a long single-column book with math on many pages a textbook, with limited confidence', () => {
    // Arrange: math fonts on 3 pages in 10.
    const book = pages(400, (n) => ({ ...reportPage(), mathCharRatio: n % 10 < 3 ? 0.05 : 0 }));
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: book });
    // Assert
    expect(report).toMatchObject({
      detected: 'textbook',
      suggested_dpi: 200,
      suggested_enable_verification: true,
    });
    expect(report.confidence).toBeLessThanOrEqual(0.7);
    expect(report.rationale).toMatch(/^400 pages with math fonts on 30% of the text pages/);
  });

  it('prefers report_manual for a long book with math on few pages or none', () => {
    // Arrange: 120 pages with math fonts on 1 page in 10 (headings in no face of their own),
    // and 150 pages without math.
    const someMath = pages(120, (n) => ({
      ...reportPage(),
      fontCount: 2,
      mathCharRatio: n % 10 === 0 ? 0.05 : 0,
    }));
    const noMath = pages(150, reportPage);
    // Act
    const reports = [someMath, noMath].map((p) => detectDocumentType({ format: 'pdf', pages: p }));
    // Assert
    expect(reports.map((r) => r.detected)).toEqual(['report_manual', 'report_manual']);
  });

  it('calls no landscape deck a textbook or a report, whatever its length and math', () => {
    // Arrange
    const deck = pages(400, () => ({ ...slide(), mathCharRatio: 0.05 }));
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: deck });
    // Assert
    expect(report.detected).toBe('slide_deck');
  });

  it('does not call two pages a report', () => {
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: pages(2, reportPage) });
    // Assert
    expect(report.detected).toBe('unknown');
  });
});

describe('detectDocumentType: unknown', () => {
  it('answers unknown for a short born-digital page, with low confidence', () => {
    // Act
    const report = detectDocumentType({
      format: 'pdf',
      pages: [pageFeatures({ textChars: 500, fontCount: 1 })],
    });
    // Assert
    expect(report).toEqual({
      detected: 'unknown',
      confidence: 0.3,
      rationale:
        '1 page of born-digital text (median 500 characters and 1 font per page, no rule lines): no type fits these features clearly.',
      suggested_dpi: 150,
      suggested_enable_verification: false,
    });
  });

  it('answers unknown when nothing was measured or every page is blank', () => {
    // Act
    const none = detectDocumentType({ format: 'docx', pages: [] });
    const blank = detectDocumentType({
      format: 'pdf',
      pages: pages(2, () => ({ textChars: 0, textCoverage: 0 })),
    });
    // Assert
    expect(none).toMatchObject({ detected: 'unknown', confidence: 0.1 });
    expect(none.rationale).toBe('No page with text or images was measured (0 pages).');
    expect(blank.rationale).toBe('No page with text or images was measured (2 pages).');
  });

  it('answers unknown for pages holding only figures with captions', () => {
    // Arrange: a usable text layer of a few words over a figure, on portrait pages.
    const figures = pages(3, () => ({ textChars: 30, imageCoverage: 0.4, textCoverage: 0.02 }));
    // Act
    const report = detectDocumentType({ format: 'pdf', pages: figures });
    // Assert
    expect(report.detected).toBe('unknown');
  });

  it('survives pages without a size', () => {
    // Act
    const report = detectDocumentType({
      format: 'pdf',
      pages: pages(1, () => ({ ...formPage(), widthPt: 0, heightPt: 0 })),
    });
    // Assert
    expect(report.detected).toBe('invoice_or_form');
  });
});

describe('detectDocumentType: report shape', () => {
  it.each([
    ['png', [scannedPageFeatures(1)]],
    ['pdf', pages(12, slide)],
    ['pdf', pages(8, paperPage)],
    ['pdf', pages(1, formPage)],
    ['pdf', pages(40, reportPage)],
    ['pdf', []],
  ] as const)('returns a valid DocumentTypeReport for %s input', (format, input) => {
    // Act
    const report = detectDocumentType({ format, pages: input });
    // Assert
    expect(DocumentTypeReport.parse(report)).toEqual(report);
    expect(report.rationale).toMatch(/^[A-Z0-9].*\.$/);
  });
});
