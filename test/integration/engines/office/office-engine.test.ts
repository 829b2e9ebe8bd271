import { describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  UnsupportedDocumentError,
} from '../../../../functions/core/domain/errors.js';
import { complexityScore, tierFor } from '../../../../functions/core/domain/routing.js';
import type { DocumentFormat } from '../../../../functions/core/domain/schemas.js';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import type { PageParseRequest } from '../../../../functions/core/ports/page-provider.js';
import { loadConfig } from '../../../../functions/config.js';
import { buildEngines } from '../../../../functions/engines/embedded-engines.js';
import { isOfficeFormat } from '../../../../functions/engines/office/office-document.js';
import { OfficeEngine } from '../../../../functions/engines/office/office-engine.js';
import { LocalTextProvider } from '../../../../functions/engines/pdf/local-text-provider.js';
import type { PdfPageSource } from '../../../../functions/engines/pdf/pdf-page-source.js';
import { InMemoryObjectStore } from '../../../support/fakes.js';
import { devFile } from '../../../support/office-fixtures.js';

/** An object store that counts reads. */
class CountingStore extends InMemoryObjectStore {
  reads = 0;
  override get(key: string): Promise<Uint8Array> {
    this.reads++;
    return super.get(key);
  }
}

async function stored(store: InMemoryObjectStore, bytes: Uint8Array, format: DocumentFormat) {
  const ref: DocumentRef = {
    key: `uploads/${format}-${bytes.length}`,
    format,
    hash: `h${bytes.length}`,
  };
  await store.put(ref.key, bytes, 'application/octet-stream');
  return ref;
}

const request = (
  document: DocumentRef,
  pageNumber = 1,
  dpi: number | null = null,
): PageParseRequest => ({
  document,
  pageNumber,
  dpi,
  profile: null,
  maintainFormat: true,
});

describe('OfficeEngine', () => {
  it('converts a document once for open, inspect and every page', async () => {
    // Arrange
    const store = new CountingStore();
    const engine = new OfficeEngine(store);
    const ref = await stored(store, devFile('docling-powerpoint_sample.pptx'), 'pptx');
    // Act
    const opened = await engine.open(ref);
    const inspection = await engine.inspect(ref, [1, 2, 3]);
    await Promise.all([1, 2, 3].map((n) => engine.parsePage(request(ref, n))));
    // Assert
    expect(opened).toEqual({ pageCount: 3 });
    expect(inspection.profile).toEqual({ source: 'office', format: 'pptx', geometry: 'file' });
    expect(store.reads).toBe(1);
  });

  it('measures office pages as text pages without an image, simple enough for the fast tier', async () => {
    // Arrange
    const store = new InMemoryObjectStore();
    const engine = new OfficeEngine(store);
    const refs = await Promise.all([
      stored(store, devFile('docling-word_sample.docx'), 'docx'),
      stored(store, devFile('docling-powerpoint_sample.pptx'), 'pptx'),
      stored(store, devFile('docling-test-01.xlsx'), 'xlsx'),
    ]);
    // Act
    const inspections = await Promise.all(refs.map(async (ref) => engine.inspect(ref, [1])));
    // Assert
    for (const { pages } of inspections) {
      const [features] = pages;
      expect(features).toMatchObject({
        usableTextLayer: true,
        hasPageImage: false,
        garbageRatio: 0,
      });
      expect(features?.textChars).toBeGreaterThan(20);
      const complexity = complexityScore(features ?? pages[0]!);
      expect(tierFor(complexity, { fastCeiling: 0.35, proCeiling: 0.7 })).toBe('fast');
    }
    // The sheet page is all table; the slide's table shares its page with the title.
    expect(inspections[2]?.pages[0]?.tableAlignment).toBeCloseTo(7 / 8, 5);
    expect(inspections[1]?.pages[0]?.tableAlignment).toBeGreaterThan(0.5);
  });

  it('answers a page with boxes in pixels at the requested DPI, the file text as evidence', async () => {
    // Arrange
    const store = new InMemoryObjectStore();
    const engine = new OfficeEngine(store);
    const ref = await stored(store, devFile('docling-powerpoint_with_image.pptx'), 'pptx');
    // Act
    const at144 = await engine.parsePage(request(ref));
    const at72 = await engine.parsePage(request(ref, 1, 72));
    // Assert
    expect(at144).toMatchObject({ dpi: 144, width: 1920, height: 1080, model: 'office-convert-1' });
    expect(at144.evidenceText).toBe('Docling Image test');
    expect(at144.ocrScore).toBeNull();
    const figure144 = at144.elements.find((e) => e.label === 'figure');
    const figure72 = at72.elements.find((e) => e.label === 'figure');
    expect(figure144?.bbox.x).toBeCloseTo((figure72?.bbox.x ?? 0) * 2, 6);
    expect(at72).toMatchObject({ width: 960, height: 540 });
  });

  it('rejects a page outside the document and a format that is not an office one', async () => {
    // Arrange
    const store = new InMemoryObjectStore();
    const engine = new OfficeEngine(store);
    const ref = await stored(store, devFile('docling-word_tables.docx'), 'docx');
    const pdf = await stored(store, devFile('docling-word_tables.docx'), 'pdf');
    // Act
    const outside = await engine.parsePage(request(ref, 5)).catch((e: unknown) => e);
    const inspecting = await engine.inspect(ref, [2]).catch((e: unknown) => e);
    const wrong = await engine.open({ ...pdf, hash: 'other' }).catch((e: unknown) => e);
    // Assert
    expect(outside).toBeInstanceOf(DocumentRejectedError);
    expect(outside).toHaveProperty('message', 'page 5 does not exist: the document has 1');
    expect(inspecting).toBeInstanceOf(RangeError);
    expect(wrong).toBeInstanceOf(UnsupportedDocumentError);
  });

  it('does not keep a failed conversion, and evicts the least recently used documents', async () => {
    // Arrange
    const store = new CountingStore();
    const engine = new OfficeEngine(store, { cacheSize: 1 });
    const broken = await stored(store, new TextEncoder().encode('PK not a zip'), 'docx');
    const a = await stored(store, devFile('docling-unit_test_lists.docx'), 'docx');
    const b = await stored(store, devFile('docling-word_tables.docx'), 'docx');
    // Act
    await expect(engine.open(broken)).rejects.toBeInstanceOf(UnsupportedDocumentError);
    await expect(engine.open(broken)).rejects.toBeInstanceOf(UnsupportedDocumentError);
    await engine.open(a);
    await engine.open(b);
    await engine.open(a);
    // Assert
    expect(store.reads).toBe(5);
  });

  it('converts HTML, Markdown and legacy formats by their declared format', async () => {
    // Arrange
    const store = new InMemoryObjectStore();
    const engine = new OfficeEngine(store);
    const html = await stored(store, new TextEncoder().encode('<h1>Hi</h1><p>there</p>'), 'html');
    const md = await stored(store, new TextEncoder().encode('# Hi\n\nthere\n'), 'md');
    // Act
    const pages = await Promise.all([html, md].map((ref) => engine.parsePage(request(ref))));
    // Assert
    expect(pages.map((p) => p.markdown)).toEqual(['# Hi\n\nthere', '# Hi\n\nthere']);
    expect(pages.map((p) => p.evidenceText)).toEqual([null, '# Hi\n\nthere']);
    expect(
      (['docx', 'pptx', 'xlsx', 'xls', 'html', 'md', 'pdf', 'png'] as const).map(isOfficeFormat),
    ).toEqual([true, true, true, true, true, true, false, false]);
  });
});

describe('LocalTextProvider with office documents', () => {
  it('answers office pages from the office engine and PDF pages from the PDF reader', async () => {
    // Arrange
    const store = new InMemoryObjectStore();
    const office = new OfficeEngine(store);
    const pdfReads: number[] = [];
    const pdf = {
      page: (_ref: DocumentRef, pageNumber: number) => {
        pdfReads.push(pageNumber);
        return Promise.reject(new DocumentRejectedError('no PDF here'));
      },
    } as unknown as PdfPageSource;
    const provider = new LocalTextProvider(pdf, office);
    const docx = await stored(store, devFile('docling-word_tables.docx'), 'docx');
    // Act
    const page = await provider.parsePage(request(docx));
    const pdfPage = await provider
      .parsePage(request({ key: 'x', format: 'pdf', hash: 'p' }, 2))
      .catch((e: unknown) => e);
    // Assert
    expect(page.markdown.startsWith('# Test with tables')).toBe(true);
    expect(pdfPage).toHaveProperty('message', 'no PDF here');
    expect(pdfReads).toEqual([2]);
  });
});

describe('the embedded engines and office formats', () => {
  it('open office formats with the office engine and render no page image for them', async () => {
    // Arrange
    const store = new InMemoryObjectStore();
    const engines = buildEngines(loadConfig({ RUNTIME_MODE: 'local', PORT: '0' }), store);
    const docx = await stored(store, devFile('docling-word_tables.docx'), 'docx');
    try {
      // Act
      const rendering = await engines.runtime.rasterizer
        .rasterize(docx, 1, null)
        .catch((e: unknown) => e);
      const page = await engines.runtime.local.get('local-text')?.parsePage(request(docx));
      // Assert
      expect(
        (['docx', 'pptx', 'xlsx', 'xls', 'html', 'md'] as const).map(
          (f) => engines.engineFor(f) instanceof OfficeEngine,
        ),
      ).toEqual([true, true, true, true, true, true]);
      expect(engines.engineFor('pdf')).not.toBeInstanceOf(OfficeEngine);
      expect(rendering).toBeInstanceOf(UnsupportedDocumentError);
      expect(rendering).toHaveProperty(
        'message',
        expect.stringMatching(/^docx pages have no page image/) as unknown,
      );
      expect(page?.model).toBe('office-convert-1');
    } finally {
      await engines.close();
    }
  });
});
