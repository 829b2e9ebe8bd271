import { afterAll, describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  ObjectNotFoundError,
  UnsupportedDocumentError,
} from '../../../../functions/core/domain/errors.js';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import type { ObjectStore } from '../../../../functions/core/ports/object-store.js';
import { LocalTextProvider } from '../../../../functions/engines/pdf/local-text-provider.js';
import { PdfDocumentCache } from '../../../../functions/engines/pdf/pdf-document-cache.js';
import { PdfEngine } from '../../../../functions/engines/pdf/pdf-engine.js';
import { UninterpretablePdfError } from '../../../../functions/engines/pdf/pdf-page-source.js';
import { PdfRasterizer } from '../../../../functions/engines/pdf/pdf-rasterizer.js';
import { PdfWorkerClient } from '../../../../functions/engines/pdf/pdf-worker-client.js';
import { CorpusStore } from '../../../support/corpus-store.js';

const TIMEOUT_MS = 3_000;
const MINIMAL = 'dev/files/pypdf-minimal-document.pdf';
const CYCLE = 'hostile/pdfjs-operator_list_cycle.pdf';

const store = new CorpusStore();
const client = new PdfWorkerClient(store, { timeoutMs: TIMEOUT_MS, maxDocuments: 2 });
/** pdf.js reads text too: it loops forever on CYCLE, which exercises the time budget. */
const pdfjsClient = new PdfWorkerClient(store, {
  timeoutMs: TIMEOUT_MS,
  maxDocuments: 2,
  textReader: 'pdfjs',
});
const ref = (key: string): DocumentRef => ({ key, format: 'pdf', hash: key });

afterAll(async () => {
  await Promise.all([client.close(), pdfjsClient.close()]);
});

describe('PdfWorkerClient', () => {
  it('starts no worker for a call still reading its document from the store when closed', async () => {
    // Arrange: a store whose reads wait until released.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reading = (): void => undefined;
    const read = new Promise<void>((resolve) => {
      reading = resolve;
    });
    const slow: ObjectStore = {
      get: async (key) => {
        reading();
        await held;
        return store.get(key);
      },
      put: (key, body, type) => store.put(key, body, type),
      exists: (key) => store.exists(key),
      delete: (key) => store.delete(key),
    };
    const closing = new PdfWorkerClient(slow, { timeoutMs: TIMEOUT_MS });
    const counted = closing.pageCount(ref(MINIMAL));
    await read;
    // Act
    const closed = closing.close();
    release();
    await closed;
    // Assert
    await expect(counted).rejects.toThrow('the PDF reader was closed');
    expect(closing.workersStarted).toBe(0);
  });

  it('reads pages in the worker exactly as the in-process cache does', async () => {
    // Arrange
    const local = new PdfDocumentCache(store);
    const key = 'dev/files/zerox-0004.pdf';
    try {
      // Act
      const [count, page] = await Promise.all([
        client.pageCount(ref(key)),
        client.page(ref(key), 1),
      ]);
      // Assert
      expect(count).toBe(await local.pageCount(ref(key)));
      expect(page).toEqual(await local.page(ref(key), 1));
    } finally {
      await local.close();
    }
  });

  it('lays pages out in the worker exactly as the text provider does in this thread', async () => {
    // Arrange: a multi-column paper page with a table, with its document profile.
    const local = new PdfDocumentCache(store);
    const document = ref('dev/files/docling-2305.03393v1-pg9.pdf');
    const { profile } = await new PdfEngine(local).inspect(document, [1]);
    const request = { document, pageNumber: 1, dpi: 144, profile, maintainFormat: true };
    const inThread = new LocalTextProvider(local);
    const inWorker = new LocalTextProvider(client);
    let laidOut = 0;
    const layOut = client.layOut.bind(client);
    client.layOut = (...args) => {
      laidOut++;
      return layOut(...args);
    };
    try {
      // Act
      const [expected, actual] = await Promise.all([
        inThread.parsePage(request),
        inWorker.parsePage(request),
      ]);
      // Assert
      expect(laidOut).toBe(1);
      expect(actual.markdown).toContain('<table>');
      expect(actual).toEqual(expected);
    } finally {
      client.layOut = layOut;
      await local.close();
    }
  });

  it('serves the engine, the text provider and the rasterizer', async () => {
    // Arrange
    const engine = new PdfEngine(client);
    const provider = new LocalTextProvider(client);
    const rasterizer = new PdfRasterizer(client, { maxPixels: 1_000_000 });
    const document = ref('dev/files/docling-2305.03393v1-pg9.pdf');
    // Act
    const { pageCount } = await engine.open(document);
    const inspection = await engine.inspect(document, [1]);
    const result = await provider.parsePage({
      document,
      pageNumber: 1,
      dpi: null,
      profile: inspection.profile,
      maintainFormat: true,
    });
    const raster = await rasterizer.rasterize(document, 1, null);
    // Assert
    expect(pageCount).toBe(1);
    expect(result.markdown).toMatch(/^#{1,6} 5\.1 Hyper Parameter Optimization$/m);
    expect(raster.width * raster.height).toBeLessThanOrEqual(1_000_000);
    expect([...raster.png.slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
  });

  it('renders a scanned page at most at the resolution of its image when the DPI is automatic', async () => {
    // Arrange: the letter is a 2449 × 3023 image at 96 ppi on a 25.5 × 31.5 inch page;
    // docling-ocr_test is a 600 ppi scan on an A4 page.
    const rasterizer = new PdfRasterizer(client, { defaultDpi: 200 });
    const letter = ref('dev/files/olmocr-lincoln_letter.pdf');
    const scan = ref('dev/files/docling-ocr_test.pdf');
    // Act
    const [letterPage, letterRaster, scanPage] = await Promise.all([
      client.page(letter, 1),
      rasterizer.rasterize(letter, 1, null),
      client.page(scan, 1),
    ]);
    // Assert
    expect(letterPage.stats.scanDpi).toBe(96);
    expect(letterRaster.dpi).toBe(96);
    expect(Math.abs(letterRaster.width - 2449)).toBeLessThanOrEqual(2);
    expect(scanPage.stats.scanDpi).toBe(600);
    expect((await client.page(ref(MINIMAL), 1)).stats.scanDpi).toBeNull();
  });

  it('sends a document again after the worker evicted it', async () => {
    // Arrange: maxDocuments is 2, so the third document evicts the first.
    const first = ref(MINIMAL);
    await client.page(first, 1);
    await client.pageCount(ref('dev/files/zerox-0003.pdf'));
    await client.pageCount(ref('dev/files/zerox-0004.pdf'));
    // Act
    const page = await client.page(first, 1);
    // Assert
    expect(page.stats.rawText.length).toBeGreaterThan(0);
  });

  it('abandons a PDF on which pdf.js loops, then serves the next document with a new worker', async () => {
    // Arrange: opening is fast; reading the page loops forever.
    const hostile = ref(CYCLE);
    expect(await pdfjsClient.pageCount(hostile)).toBe(1);
    // Act
    const started = Date.now();
    const failure = await pdfjsClient.page(hostile, 1).catch((error: unknown) => error);
    const elapsed = Date.now() - started;
    // Assert
    expect(failure).toBeInstanceOf(DocumentRejectedError);
    expect((failure as Error).message).toMatch(/^page 1 took longer than the 3 s per-page budget/);
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 2_000);
    const page = await pdfjsClient.page(ref(MINIMAL), 1);
    expect(page.stats.rawText.length).toBeGreaterThan(0);
  });

  it('reads the self-drawing form with PDFium, which stops the recursion', async () => {
    // Act
    const page = await client.page(ref(CYCLE), 1);
    // Assert
    expect(page.widthPt).toBeGreaterThan(0);
    expect(page.text.runs).toEqual([]);
  });

  it('refuses a document it abandoned without trying it again', async () => {
    // Act
    const started = Date.now();
    const failure = pdfjsClient.pageCount(ref(CYCLE));
    // Assert
    await expect(failure).rejects.toThrow(UninterpretablePdfError);
    await expect(failure).rejects.toThrow(/page 1 took longer than the 3 s per-page budget/);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('makes the engine reject the whole document when a page cannot be interpreted', async () => {
    // Arrange
    const own = new PdfWorkerClient(store, { timeoutMs: TIMEOUT_MS, textReader: 'pdfjs' });
    try {
      // Act / Assert
      await expect(new PdfEngine(own).inspect(ref(CYCLE), [1])).rejects.toThrow(
        /page 1 took longer than the 3 s per-page budget/,
      );
    } finally {
      await own.close();
    }
  });

  it('keeps the class and message of errors thrown in the worker', async () => {
    // Arrange
    await store.put(
      'garbage-worker.pdf',
      new TextEncoder().encode('hello, this is not a PDF'),
      'application/pdf',
    );
    // Act / Assert
    await expect(client.pageCount(ref('garbage-worker.pdf'))).rejects.toThrow(
      UnsupportedDocumentError,
    );
    await expect(client.pageCount(ref('garbage-worker.pdf'))).rejects.toThrow(/PDF header/);
    await expect(client.pageCount(ref('hostile/encrypted-aes256-userpw.pdf'))).rejects.toThrow(
      DocumentRejectedError,
    );
    await expect(client.pageCount(ref('hostile/encrypted-aes256-userpw.pdf'))).rejects.toThrow(
      /user password/,
    );
    await expect(client.page(ref(MINIMAL), 99)).rejects.toThrow(/page 99 does not exist/);
    await expect(client.pageCount(ref('missing/nothing.pdf'))).rejects.toThrow(ObjectNotFoundError);
  });

  it('rejects a page too large to render even at the lowest DPI', async () => {
    await expect(
      new PdfRasterizer(client).rasterize(ref('hostile/huge-mediabox.pdf'), 1, null),
    ).rejects.toThrow(DocumentRejectedError);
  });

  describe('memory', () => {
    const BOMB = 'hostile/rt-pdf-flate-bomb-1GB.pdf';
    const PAPER = 'papers/files/readoc-arxiv-2206.11906.pdf';

    it('refuses a page whose content inflates past the budget, and reads the next documents with a new worker', async () => {
      // Arrange: PDFium may grow to 128 MB; the bomb's content stream inflates to 1 GB.
      const own = new PdfWorkerClient(store, { maxMemoryMb: 256, timeoutMs: 20_000 });
      try {
        expect(await own.pageCount(ref(BOMB))).toBe(1);
        // Act: a call for another document waits behind the bomb in the queue.
        const [bomb, queued] = await Promise.allSettled([
          own.page(ref(BOMB), 1),
          own.page(ref(MINIMAL), 1),
        ]);
        const paper = await own.page(ref(PAPER), 1);
        // Assert
        expect(bomb.status).toBe('rejected');
        const reason = (bomb as PromiseRejectedResult).reason as Error;
        expect(reason).toBeInstanceOf(UninterpretablePdfError);
        expect(reason.message).toMatch(
          /^page 1's content inflates past the 128 MB memory budget of the PDF reader/,
        );
        expect(queued.status).toBe('fulfilled');
        expect(paper.stats.rawText.length).toBeGreaterThan(1000);
        expect(own.workersStarted).toBe(2);
      } finally {
        await own.close();
      }
    });

    it('replaces a worker whose memory passed the bound after its call, which still succeeds', async () => {
      // Arrange: a bound below what any worker holds once pdf.js and PDFium are loaded.
      const own = new PdfWorkerClient(store, { maxMemoryMb: 1, maxHeapMb: 256, pdfiumMaxMb: 256 });
      try {
        // Act
        const first = await own.page(ref(MINIMAL), 1);
        const second = await own.page(ref('dev/files/zerox-0004.pdf'), 1);
        // Assert
        expect(first.stats.rawText.length).toBeGreaterThan(0);
        expect(second.stats.rawText.length).toBeGreaterThan(0);
        expect(own.workersStarted).toBe(2);
      } finally {
        await own.close();
      }
    });
  });
});
