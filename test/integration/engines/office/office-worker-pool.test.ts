import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DocumentRejectedError } from '../../../../functions/core/domain/errors.js';
import { OfficeWorkerPool } from '../../../../functions/engines/office/office-worker-pool.js';
import type { OfficeWorkerRequest } from '../../../../functions/engines/office/office-worker-protocol.js';
import { devFile, docxOf, para } from '../../../support/office-fixtures.js';

/**
 * The lifecycle of the office pool's workers: released after `idleMs` with no document and
 * started again by the next one; a worker that dies, or a conversion past its budget, costs only
 * the document it was converting, and the documents after it convert.
 */

const IDLE_MS = 300;

/** A Word file of `paragraphs` short paragraphs (20,000 convert in 1.5-3.5 s, 60,000 in 4-7 s). */
const largeDocx = (paragraphs: number): Uint8Array =>
  docxOf(
    Array.from({ length: paragraphs }, (_, i) =>
      para(`Paragraph ${i} with some words to make it longer than trivial text`),
    ).join(''),
  );

const small = (text: string): Uint8Array => docxOf(para(text));

/** The text of a converted document's pages. */
const markdownOf = (document: { pages: { markdown: string }[] }): string =>
  document.pages.map((page) => page.markdown).join('\n');

/** Resolves with the workers of the next `count` calls of `Worker#terminate`, once they exit. */
function nextTerminations(count: number): Promise<Worker[]> {
  const workers: Worker[] = [];
  const exited: Promise<unknown>[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its worker as `this`
  const terminate = Worker.prototype.terminate;
  return new Promise((resolve) => {
    const spy = vi.spyOn(Worker.prototype, 'terminate');
    spy.mockImplementation(function (this: Worker) {
      workers.push(this);
      exited.push(new Promise((done) => this.once('exit', done)));
      if (workers.length === count) {
        spy.mockRestore();
        void Promise.all(exited).then(() => {
          resolve(workers);
        });
      }
      return terminate.call(this);
    });
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('OfficeWorkerPool lifecycle', () => {
  it('releases its workers after idleMs without a document, and starts them again on the next', async () => {
    // Arrange: two places, both used at once
    const pool = new OfficeWorkerPool({ workers: 2, idleMs: IDLE_MS });
    try {
      // Watched from the start: on a loaded machine one worker may go idle (and be released)
      // while the other is still converting.
      const released = nextTerminations(2);
      const first = await Promise.all([
        pool.convert(small('one'), 'docx'),
        pool.convert(small('two'), 'docx'),
      ]);
      // Act: no document for IDLE_MS; then two more
      const workers = await released;
      const again = await Promise.all([
        pool.convert(small('one'), 'docx'),
        pool.convert(small('two'), 'docx'),
      ]);
      // Assert
      expect(new Set(workers).size).toBe(2);
      expect(again.map(markdownOf)).toEqual(first.map(markdownOf));
      expect(pool.workersStarted).toBe(4);
    } finally {
      await pool.close();
    }
  });

  it('keeps a worker while it converts, however long past idleMs', async () => {
    // Arrange: the conversion takes seconds; idleMs is 50 ms
    const pool = new OfficeWorkerPool({ idleMs: 50 });
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    try {
      await pool.warmUp();
      // Act
      const document = await pool.convert(largeDocx(20_000), 'docx');
      // Assert
      expect(document.pages.length).toBeGreaterThan(0);
      expect(terminate).not.toHaveBeenCalled();
      expect(pool.workersStarted).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('rejects only the document whose worker dies under it; the other worker and the next documents convert', async () => {
    // Arrange: two places; the worker given the large document is killed while converting it
    const pool = new OfficeWorkerPool({ workers: 2 });
    const large = largeDocx(20_000);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its worker as `this`
    const postMessage = Worker.prototype.postMessage;
    vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (
      this: Worker,
      message: unknown,
      transfer,
    ) {
      // Read before posting: the bytes are transferred, so empty afterwards.
      if ((message as Partial<OfficeWorkerRequest>).bytes?.length === large.length) {
        setTimeout(() => void this.terminate(), 300);
      }
      postMessage.call(this, message, transfer);
    });
    try {
      // Act
      const [dead, other] = await Promise.allSettled([
        pool.convert(large, 'docx'),
        pool.convert(devFile('docling-word_sample.docx'), 'docx'),
      ]);
      const next = await pool.convert(small('after'), 'docx');
      // Assert
      expect(dead.status).toBe('rejected');
      expect(dead.status === 'rejected' && dead.reason).toBeInstanceOf(DocumentRejectedError);
      expect(dead.status === 'rejected' && (dead.reason as Error).message).toBe(
        'the docx document could not be converted: the converter stopped on it (exit code 1)',
      );
      expect(other.status).toBe('fulfilled');
      expect(markdownOf(next)).toContain('after');
      expect(pool.workersStarted).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it('converts the documents queued behind one that ran past its budget, and any later one', async () => {
    // Arrange: one place; 60,000 paragraphs take 4-7 s against a 1.5 s budget
    const pool = new OfficeWorkerPool({ timeoutMs: 1500 });
    try {
      await pool.warmUp();
      // Act: the small documents wait in the queue while the large one runs out of time
      const [timedOut, ...queued] = await Promise.allSettled([
        pool.convert(largeDocx(60_000), 'docx'),
        pool.convert(small('queued one'), 'docx'),
        pool.convert(small('queued two'), 'docx'),
      ]);
      const later = await pool.convert(small('later'), 'docx');
      // Assert
      expect(timedOut.status === 'rejected' && timedOut.reason).toBeInstanceOf(
        DocumentRejectedError,
      );
      expect(queued.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
      expect(
        queued.map((result) => (result.status === 'fulfilled' ? markdownOf(result.value) : '')),
      ).toEqual([expect.stringContaining('queued one'), expect.stringContaining('queued two')]);
      expect(markdownOf(later)).toContain('later');
      expect(pool.workersStarted).toBe(2);
    } finally {
      await pool.close();
    }
  });
});
