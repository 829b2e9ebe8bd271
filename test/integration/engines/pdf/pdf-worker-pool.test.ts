import { afterAll, describe, expect, it } from 'vitest';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import { LocalTextProvider } from '../../../../functions/engines/pdf/local-text-provider.js';
import { PdfDocumentCache } from '../../../../functions/engines/pdf/pdf-document-cache.js';
import { PdfEngine } from '../../../../functions/engines/pdf/pdf-engine.js';
import type { PdfPageSource } from '../../../../functions/engines/pdf/pdf-page-source.js';
import { PdfWorkerClient } from '../../../../functions/engines/pdf/pdf-worker-client.js';
import { resetStageTimes, stageTimes } from '../../../../functions/engines/stage-timings.js';
import { CorpusStore } from '../../../support/corpus-store.js';

const store = new CorpusStore();
const pool = new PdfWorkerClient(store, { workers: 2 });
const local = new PdfDocumentCache(store);

afterAll(async () => {
  await Promise.all([pool.close(), local.close()]);
});

/** The in-process cache seen only through `page`: the caller measures the pages itself. */
const pagesOnly = (source: PdfPageSource): PdfPageSource => ({
  pageCount: (ref) => source.pageCount(ref),
  page: (ref, n) => source.page(ref, n),
  render: (ref, n, options) => source.render(ref, n, options),
  close: () => source.close(),
});

describe('PdfWorkerClient with two workers', () => {
  it('inspects and lays out a document as the in-process reader does, each page where it was read', async () => {
    // Arrange: a five-page paper with running headers, headings and tables.
    const key = 'papers/files/docling-multi_page.pdf';
    const ref: DocumentRef = { key, format: 'pdf', hash: 'pool-multi-page' };
    const pages = [1, 2, 3, 4, 5];
    resetStageTimes();
    // Act
    const inspection = await new PdfEngine(pool).inspect(ref, pages);
    const laidOut = await Promise.all(
      pages.map((pageNumber) =>
        new LocalTextProvider(pool).parsePage({
          document: ref,
          pageNumber,
          dpi: 144,
          profile: inspection.profile,
          maintainFormat: true,
        }),
      ),
    );
    // Assert: the same measurements, profile and Markdown as measured and laid out here.
    const expected = await new PdfEngine(pagesOnly(local)).inspect(ref, pages);
    expect(inspection).toEqual(expected);
    for (const pageNumber of pages) {
      const here = await new LocalTextProvider(pagesOnly(local)).parsePage({
        document: ref,
        pageNumber,
        dpi: 144,
        profile: expected.profile,
        maintainFormat: true,
      });
      expect(laidOut[pageNumber - 1]).toEqual(here);
    }
    // Both workers served the document, each opened it once (its bytes were sent once), and no
    // page crossed threads: the pages were measured and laid out where they were read.
    expect(pool.workersStarted).toBe(2);
    const times = stageTimes();
    const opened = [...times].filter(([stage]) => stage.endsWith('(with open)'));
    expect(opened.reduce((n, [, t]) => n + t.calls, 0)).toBe(2);
    expect(times.has('pdf worker: page')).toBe(false);
    expect(times.get('pdf worker: layOut')?.calls).toBe(5);
  });
});

describe('PdfWorkerClient sharing pages out with two workers', () => {
  it('gives new pages to the free worker, not behind a slow call, and keeps each page with its worker', async () => {
    // Arrange: page 1 rendered at 400 DPI keeps one worker busy far longer than an inspection.
    const key = 'papers/files/docling-multi_page.pdf';
    const ref: DocumentRef = { key, format: 'pdf', hash: 'pool-free-worker' };
    const finished: string[] = [];
    const render = pool
      .render(ref, 1, { dpi: 400, maxPixels: 40_000_000, minDpi: 50 })
      .then(() => finished.push('render 1'));
    // Act: pages 3 and 5 would have queued behind page 1 had pages gone to workers by number.
    const inspections = [3, 5].map((n) =>
      pool.inspectPage(ref, n).then(() => finished.push(`inspect ${String(n)}`)),
    );
    await Promise.all([render, ...inspections]);
    const before = pool.workerOf(ref, 3);
    await pool.layOut(ref, 3, 144, undefined);
    // Assert
    expect(finished).toEqual(['inspect 3', 'inspect 5', 'render 1']);
    expect(pool.workerOf(ref, 1)).not.toBe(pool.workerOf(ref, 3));
    expect(pool.workerOf(ref, 5)).toBe(pool.workerOf(ref, 3));
    expect(pool.workerOf(ref, 3)).toBe(before);
  });

  it('remembers where the pages of the 64 most recently used documents were read', async () => {
    // Arrange: a document read first and used again later, among 65 others read once.
    const key = 'dev/files/zerox-0004.pdf';
    const ref = (hash: string): DocumentRef => ({ key, format: 'pdf', hash });
    const kept = ref('pool-lru-kept');
    await pool.inspectPage(kept, 1);
    // Act
    for (let i = 0; i < 65; i++) {
      await pool.inspectPage(ref(`pool-lru-${String(i)}`), 1);
      if (i === 40) await pool.layOut(kept, 1, 144, undefined);
    }
    // Assert: the document used after the 41st other is still placed; the first other is not.
    expect(pool.workerOf(kept, 1)).toBeDefined();
    expect(pool.workerOf(ref('pool-lru-0'), 1)).toBeUndefined();
    expect(pool.workerOf(ref('pool-lru-64'), 1)).toBeDefined();
  });

  it('asks a worker for the page count of a document once', async () => {
    // Arrange
    const ref: DocumentRef = { key: 'dev/files/zerox-0004.pdf', format: 'pdf', hash: 'pool-count' };
    resetStageTimes();
    // Act
    const counts = await Promise.all([pool.pageCount(ref), pool.pageCount(ref)]);
    const again = await pool.pageCount(ref);
    // Assert
    expect(counts).toEqual([again, again]);
    expect(again).toBeGreaterThan(0);
    const asked = [...stageTimes()].filter(([stage]) => stage.startsWith('pdf worker: pageCount'));
    expect(asked.reduce((n, [, t]) => n + t.calls, 0)).toBe(1);
  });
});

describe('PdfWorkerClient rendering with two workers', () => {
  it('renders a page in the worker that loads pdf.js on first need as the in-process reader does', async () => {
    // Arrange: page 2 goes to the second worker, which does not load pdf.js before it is ready.
    const key = 'papers/files/docling-multi_page.pdf';
    const ref: DocumentRef = { key, format: 'pdf', hash: 'pool-render-lazy' };
    const options = { dpi: 100, maxPixels: 4_000_000, minDpi: 50 };
    // Act
    const [first, second] = await Promise.all([
      pool.render(ref, 1, options),
      pool.render(ref, 2, options),
    ]);
    // Assert
    const here = await Promise.all([local.render(ref, 1, options), local.render(ref, 2, options)]);
    expect(Buffer.from(first.png).equals(Buffer.from(here[0].png))).toBe(true);
    expect(Buffer.from(second.png).equals(Buffer.from(here[1].png))).toBe(true);
  });
});

describe('PdfEngine with a reader that measures pages itself', () => {
  it('asks it for the measurements of each page, never for the page, when prefetching and inspecting', async () => {
    // Arrange
    const ref: DocumentRef = {
      key: 'dev/files/zerox-0004.pdf',
      format: 'pdf',
      hash: 'pool-measures-itself',
    };
    const asked: string[] = [];
    const source: PdfPageSource = {
      pageCount: (r) => local.pageCount(r),
      page: (r, n) => {
        asked.push(`page ${n}`);
        return local.page(r, n);
      },
      inspectPage: (r, n) => {
        asked.push(`inspect ${n}`);
        return local.inspectPage(r, n);
      },
      render: (r, n, options) => local.render(r, n, options),
      close: () => Promise.resolve(),
    };
    const engine = new PdfEngine(source);
    // Act
    engine.prefetch(ref, [1, 2, 3]);
    const inspection = await engine.inspect(ref, [1, 2, 3]);
    // Assert
    expect(asked.filter((a) => a.startsWith('page'))).toEqual([]);
    expect(asked.filter((a) => a.startsWith('inspect')).sort()).toEqual([
      'inspect 1',
      'inspect 2',
      'inspect 3',
    ]);
    expect(inspection).toEqual(await new PdfEngine(pagesOnly(local)).inspect(ref, [1, 2, 3]));
  });
});
