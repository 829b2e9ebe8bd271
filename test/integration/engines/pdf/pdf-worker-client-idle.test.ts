import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import type { ExtractedPage } from '../../../../functions/engines/pdf/page-text.js';
import { PdfWorkerClient } from '../../../../functions/engines/pdf/pdf-worker-client.js';
import { CorpusStore } from '../../../support/corpus-store.js';

/**
 * The idle release of the PDF reader's worker: past `idleMs` with no call, the worker is
 * terminated (its WebAssembly memory given back); the next call, including one that arrives while
 * the worker is being terminated, starts a new worker and sends its document again.
 */

const IDLE_MS = 300;
const MINIMAL = 'dev/files/pypdf-minimal-document.pdf';
const ZEROX = 'dev/files/zerox-0004.pdf';
const store = new CorpusStore();
const ref = (key: string): DocumentRef => ({ key, format: 'pdf', hash: key });

/**
 * Resolves with `this` of the next `Worker#terminate` call, after running `during` inside that
 * call, before the thread is actually asked to stop.
 */
function nextTermination(during: () => void = () => undefined): Promise<Worker> {
  return new Promise((resolve) => {
    const spy = vi.spyOn(Worker.prototype, 'terminate').mockImplementation(function (this: Worker) {
      spy.mockRestore();
      during();
      resolve(this);
      // Restored: this is the real terminate.
      return this.terminate();
    });
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('PdfWorkerClient idle release', () => {
  it('terminates a worker idle past idleMs, and the next call reopens its document in a new one', async () => {
    // Arrange
    const client = new PdfWorkerClient(store, { idleMs: IDLE_MS, timeoutMs: 20_000 });
    try {
      const first = await client.page(ref(MINIMAL), 1);
      const terminated = nextTermination();
      // Act: no call for IDLE_MS; then the same document (the new worker never saw it).
      const worker = await terminated;
      const exited = await new Promise<number>((resolve) => worker.once('exit', resolve));
      const again = await client.page(ref(MINIMAL), 1);
      // Assert
      expect(exited).toBeTypeOf('number');
      expect(client.workersStarted).toBe(2);
      expect(again).toEqual(first);
    } finally {
      await client.close();
    }
  });

  it('serves a call that arrives while the idle worker is being terminated', async () => {
    // Arrange
    const client = new PdfWorkerClient(store, { idleMs: IDLE_MS, timeoutMs: 20_000 });
    try {
      await client.pageCount(ref(MINIMAL));
      let racing: Promise<ExtractedPage> | undefined;
      // Act: the call is made inside terminate(), before the old thread has stopped.
      await nextTermination(() => {
        racing = client.page(ref(MINIMAL), 1);
      });
      const page = await racing;
      // Assert
      expect(page?.stats.rawText.length).toBeGreaterThan(0);
      expect(client.workersStarted).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('keeps a worker busy with calls, however long they run together', async () => {
    // Arrange: calls queued back to back, for far longer than idleMs in total (starting the
    // worker alone takes longer).
    const client = new PdfWorkerClient(store, { idleMs: 50, timeoutMs: 20_000 });
    try {
      // Act
      const pages = await Promise.all(
        Array.from({ length: 12 }, (_, i) => client.page(ref(i % 2 === 0 ? MINIMAL : ZEROX), 1)),
      );
      // Assert
      expect(pages.every((page) => page.stats.rawText.length > 0)).toBe(true);
      expect(client.workersStarted).toBe(1);
    } finally {
      await client.close();
    }
  });
});
