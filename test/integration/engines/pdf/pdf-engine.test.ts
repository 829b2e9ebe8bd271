import { afterAll, describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  UnsupportedDocumentError,
} from '../../../../functions/core/domain/errors.js';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import { LocalTextProvider } from '../../../../functions/engines/pdf/local-text-provider.js';
import { PdfDocumentCache } from '../../../../functions/engines/pdf/pdf-document-cache.js';
import { PdfEngine } from '../../../../functions/engines/pdf/pdf-engine.js';
import type { PdfPageSource } from '../../../../functions/engines/pdf/pdf-page-source.js';
import { PdfRasterizer } from '../../../../functions/engines/pdf/pdf-rasterizer.js';
import { CorpusStore } from '../../../support/corpus-store.js';

const store = new CorpusStore();
const cache = new PdfDocumentCache(store);
const engine = new PdfEngine(cache);
const provider = new LocalTextProvider(cache);
const ref = (key: string): DocumentRef => ({ key, format: 'pdf', hash: key });

const parse = async (key: string, pageNumber = 1, dpi: number | null = null) => {
  const document = ref(key);
  const { pageCount } = await engine.open(document);
  const inspection = await engine.inspect(
    document,
    Array.from({ length: pageCount }, (_, i) => i + 1),
  );
  const result = await provider.parsePage({
    document,
    pageNumber,
    dpi,
    profile: inspection.profile,
    maintainFormat: true,
  });
  return { inspection, result };
};

afterAll(async () => {
  await cache.close();
});

describe('PdfEngine and LocalTextProvider on born-digital PDFs', () => {
  it('emits the section headings of a paper page as Markdown headings', async () => {
    // Act
    const { result } = await parse('dev/files/docling-2305.03393v1-pg9.pdf');
    // Assert
    expect(result.markdown).toMatch(/^#{1,6} 5\.1 Hyper Parameter Optimization$/m);
    expect(result.markdown).toMatch(/^#{1,6} 5\.2 Quantitative Results$/m);
  });

  it('emits the ruled table of a datasheet as a table with its header cells', async () => {
    // Act
    const { result } = await parse('dev/files/zerox-0003.pdf');
    // Assert
    const header = result.markdown.split('\n').find((l) => l.includes('Requirement'));
    expect(header).toMatch(/Item.*Requirement.*Test Method/);
    expect(result.elements.some((e) => e.label === 'table')).toBe(true);
  });

  it('gives the text layer inside each table region, one entry per table element', async () => {
    // Act
    const { result } = await parse('dev/files/olmocr-earnings.pdf');
    // Assert
    const tables = result.elements.filter((e) => e.label === 'table');
    expect(tables.length).toBeGreaterThan(0);
    expect(result.tableRegionText).toHaveLength(tables.length);
    expect(result.tableRegionText?.join(' ')).toContain('1,136');
    expect(result.tableRegionText?.join(' ')).not.toContain('Financial Accounting Standards');
  });

  it('keeps running footers out of the Markdown and reports them as footer elements', async () => {
    // Arrange
    const key = 'dev/files/docling-redp5110_sampled.pdf';
    const { inspection } = await parse(key);
    // Act
    const results = await Promise.all(
      inspection.pages.map((p) =>
        provider.parsePage({
          document: ref(key),
          pageNumber: p.pageNumber,
          dpi: 72,
          profile: inspection.profile,
          maintainFormat: true,
        }),
      ),
    );
    // Assert
    const withFooter = results.filter((r) =>
      r.elements.some((e) => e.label === 'footer' && /Access Control/.test(e.text)),
    );
    expect(withFooter.length).toBeGreaterThan(2);
    for (const r of withFooter) {
      const footer = r.elements.find((e) => e.label === 'footer' && /Access Control/.test(e.text));
      expect(r.markdown).not.toContain(footer!.text);
    }
  });

  it('returns boxes inside the page at the default 144 DPI', async () => {
    // Act
    const { result } = await parse('dev/files/zerox-0004.pdf', 1);
    // Assert
    expect(result).toMatchObject({ dpi: 144, width: 1190, height: 1684, ocrScore: null });
    expect(result.elements.length).toBeGreaterThan(5);
    for (const { bbox } of result.elements) {
      expect(bbox.w).toBeGreaterThan(0);
      expect(bbox.h).toBeGreaterThan(0);
      expect(bbox.x + bbox.w).toBeLessThanOrEqual(result.width);
      expect(bbox.y + bbox.h).toBeLessThanOrEqual(result.height);
    }
    expect(result.evidenceText).toContain('Focused ReAct');
  });

  it('measures a text page as having a usable text layer', async () => {
    // Act
    const inspection = await engine.inspect(ref('dev/files/zerox-0004.pdf'), [1]);
    // Assert
    expect(inspection.pages[0]).toMatchObject({
      pageNumber: 1,
      usableTextLayer: true,
      garbageRatio: 0,
      columnCount: 2,
    });
  });

  it('sends an image-only scan to OCR', async () => {
    // Act
    const inspection = await engine.inspect(ref('dev/files/docling-ocr_test.pdf'), [1]);
    // Assert
    expect(inspection.pages[0]).toMatchObject({ usableTextLayer: false });
    expect(inspection.pages[0]?.imageCoverage).toBeGreaterThan(0.5);
  });
});

describe('PdfEngine reading ahead', () => {
  /**
   * The cache, recording the pages asked of it: as extracted pages (the engine then measures
   * them itself), or as measurements when the source offers `inspectPage`.
   */
  const recording = (asks: 'page' | 'inspectPage' = 'page') => {
    const asked: number[] = [];
    const source: PdfPageSource = {
      pageCount: (r) => cache.pageCount(r),
      page: (r, n) => {
        if (asks === 'page') asked.push(n);
        return cache.page(r, n);
      },
      ...(asks === 'inspectPage' && {
        inspectPage: (r, n) => {
          asked.push(n);
          return cache.inspectPage(r, n);
        },
      }),
      render: (r, n, o) => cache.render(r, n, o),
      close: () => Promise.resolve(),
    };
    return { asked, engine: new PdfEngine(source) };
  };

  it('prefetches at most the first 8 pages, and inspect measures them all', async () => {
    // Arrange
    const { asked, engine: reader } = recording();
    const document = ref('dev/files/docling-redp5110_sampled.pdf');
    const pages = Array.from({ length: 18 }, (_, i) => i + 1);
    // Act
    reader.prefetch(document, pages);
    const prefetched = [...asked];
    const inspection = await reader.inspect(document, pages);
    // Assert
    expect(prefetched).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(inspection.pages.map((p) => p.pageNumber)).toEqual(pages);
    expect(new Set(asked)).toEqual(new Set(pages));
  });

  it('measures each page once when inspect follows a prefetch', async () => {
    // Arrange
    const { asked: measured, engine: reader } = recording('inspectPage');
    const document = ref('dev/files/docling-redp5110_sampled.pdf');
    const pages = Array.from({ length: 18 }, (_, i) => i + 1);
    // Act
    reader.prefetch(document, pages);
    const inspection = await reader.inspect(document, pages);
    // Assert
    expect(measured.toSorted((a, b) => a - b)).toEqual(pages);
    expect(inspection.pages.map((p) => p.pageNumber)).toEqual(pages);
  });

  it('measures the pages again when the document is inspected a second time', async () => {
    // Arrange
    const { asked: measured, engine: reader } = recording('inspectPage');
    const document = ref('dev/files/docling-redp5110_sampled.pdf');
    // Act
    reader.prefetch(document, [1, 2]);
    await reader.inspect(document, [1, 2]);
    await reader.inspect(document, [1, 2]);
    // Assert
    expect(measured).toEqual([1, 2, 1, 2]);
  });
});

describe('PdfEngine on hostile PDFs', () => {
  it('rejects a PDF encrypted with a user password', async () => {
    await expect(engine.open(ref('hostile/encrypted-aes256-userpw.pdf'))).rejects.toThrow(
      DocumentRejectedError,
    );
  });

  it('opens a PDF protected by an owner password only', async () => {
    // Act
    const opened = await engine.open(ref('hostile/encrypted-owner-only-noextract.pdf'));
    // Assert
    expect(opened.pageCount).toBeGreaterThan(0);
  });

  it('rejects bytes that are not a PDF as unsupported', async () => {
    // Arrange
    await store.put(
      'garbage.pdf',
      new TextEncoder().encode('hello, this is not a PDF'),
      'application/pdf',
    );
    // Act / Assert
    await expect(engine.open(ref('garbage.pdf'))).rejects.toThrow(UnsupportedDocumentError);
  });

  it('rejects a damaged PDF as unsupported and says it is damaged', async () => {
    await expect(engine.open(ref('hostile/garbage-after-header.pdf'))).rejects.toThrow(/damaged/);
  });

  it('counts the pages of a 5000-page PDF without reading them', async () => {
    // Act
    const started = Date.now();
    const opened = await engine.open(ref('hostile/pages-5000.pdf'));
    // Assert
    expect(opened.pageCount).toBe(5000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('PdfRasterizer', () => {
  it('lowers the DPI to stay under the pixel cap', async () => {
    // Arrange
    const rasterizer = new PdfRasterizer(cache, { maxPixels: 1_000_000 });
    // Act
    const page = await rasterizer.rasterize(ref('dev/files/pypdf-minimal-document.pdf'), 1, null);
    // Assert
    expect(page.width * page.height).toBeLessThanOrEqual(1_000_000);
    expect(page.dpi).toBeLessThan(300);
    expect([...page.png.slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
  });

  it('rejects a page too large to render even at the lowest DPI', async () => {
    // Arrange
    const rasterizer = new PdfRasterizer(cache);
    // Act / Assert
    await expect(rasterizer.rasterize(ref('hostile/huge-mediabox.pdf'), 1, null)).rejects.toThrow(
      DocumentRejectedError,
    );
  });
});
