import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  UnsupportedDocumentError,
} from '../../../../functions/core/domain/errors.js';
import type { DocumentFormat } from '../../../../functions/core/domain/schemas.js';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import { convertDocument } from '../../../../functions/engines/office/convert-document.js';
import type { OfficeFormat } from '../../../../functions/engines/office/office-document.js';
import {
  OfficeEngine,
  type OfficeEngineOptions,
} from '../../../../functions/engines/office/office-engine.js';
import { OfficeWorkerPool } from '../../../../functions/engines/office/office-worker-pool.js';
import { InMemoryObjectStore } from '../../../support/fakes.js';
import { devFile, docxOf, HOSTILE, para } from '../../../support/office-fixtures.js';

/**
 * A Word file of `paragraphs` short paragraphs (57 KB for 20,000): mammoth and turndown convert
 * 20,000 in 1.5-3.5 s on this machine, most of it in one synchronous turndown call that blocked
 * the event loop for 1.7 s when the conversion ran on the main thread.
 */
const largeDocx = (paragraphs: number): Uint8Array =>
  docxOf(
    Array.from({ length: paragraphs }, (_, i) =>
      para(`Paragraph ${i} with some words to make it longer than trivial text`),
    ).join(''),
  );

const engines: OfficeEngine[] = [];
/** An office engine over a fresh store, closed after the suite. */
const engineWith = (options: OfficeEngineOptions = {}) => {
  const store = new InMemoryObjectStore();
  const engine = new OfficeEngine(store, options);
  engines.push(engine);
  let n = 0;
  const stored = async (bytes: Uint8Array, format: DocumentFormat): Promise<DocumentRef> => {
    const ref: DocumentRef = { key: `uploads/${++n}.${format}`, format, hash: `h${n}` };
    await store.put(ref.key, bytes, 'application/octet-stream');
    return ref;
  };
  return { engine, stored };
};

afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

/**
 * Runs `work` while a 10 ms interval timer measures the event loop: the longest gap between two
 * ticks, in milliseconds (the loop is sampled for 50 ms more after `work` settles, so that a
 * block at its very end is counted).
 */
async function longestTickGap(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 10);
  try {
    await work().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    clearInterval(timer);
  }
  return longest;
}

describe('OfficeEngine conversion in a worker thread', () => {
  it('converts in the worker exactly as in this thread', async () => {
    // Arrange
    const { engine, stored } = engineWith();
    const files: [string, OfficeFormat][] = [
      ['docling-word_sample.docx', 'docx'],
      ['docling-powerpoint_sample.pptx', 'pptx'],
      ['docling-test-01.xlsx', 'xlsx'],
    ];
    // Act
    const converted = await Promise.all(
      files.map(async ([name, format]) => engine.document(await stored(devFile(name), format))),
    );
    // Assert
    for (const [i, [name, format]] of files.entries()) {
      expect(converted[i]).toEqual(await convertDocument(devFile(name), format));
    }
  });

  it('keeps the event loop answering while a large Word file converts', async () => {
    // Arrange: the worker is started first, so that only the conversion is measured
    const { engine, stored } = engineWith();
    await engine.warmUp();
    const ref = await stored(largeDocx(20_000), 'docx');
    // Act
    let pages = 0;
    const gap = await longestTickGap(async () => {
      pages = (await engine.open(ref)).pageCount;
    });
    // Assert
    expect(pages).toBeGreaterThan(0);
    expect(gap).toBeLessThan(500);
  });

  it("passes the converter's DocumentRejectedError (422) and UnsupportedDocumentError (400) through", async () => {
    // Arrange
    const { engine, stored } = engineWith();
    const nested = await stored(
      readFileSync(join(HOSTILE, 'rt-docx-nested-tables-3000.docx')),
      'docx',
    );
    const broken = await stored(new TextEncoder().encode('PK not a zip'), 'xlsx');
    // Act
    const rejected = await engine.open(nested).catch((e: unknown) => e);
    const unsupported = await engine.open(broken).catch((e: unknown) => e);
    // Assert
    expect(rejected).toBeInstanceOf(DocumentRejectedError);
    expect(rejected).toHaveProperty('message', expect.stringMatching(/nest/) as unknown);
    expect(unsupported).toBeInstanceOf(UnsupportedDocumentError);
  });

  it('rejects a conversion past its time budget with a 422 naming it, and converts the next', async () => {
    // Arrange: 60,000 paragraphs take 4-7 s
    const { engine, stored } = engineWith({ timeoutMs: 1500 });
    await engine.warmUp();
    const large = await stored(largeDocx(60_000), 'docx');
    const small = await stored(docxOf(para('Hello')), 'docx');
    // Act
    const timedOut = await engine.open(large).catch((e: unknown) => e);
    const next = await engine.open(small);
    // Assert
    expect(timedOut).toBeInstanceOf(DocumentRejectedError);
    expect(timedOut).toHaveProperty(
      'message',
      'the docx document could not be converted within the 1.5 s budget of the office converter (it is too large or too complex)',
    );
    expect(next.pageCount).toBe(1);
  });

  it('rejects only the document that exhausts the worker heap, and converts the next in a new worker', async () => {
    // Arrange: 64 MB of heap loads the converters, not mammoth's tree of 200,000 paragraphs
    const pool = new OfficeWorkerPool({ maxHeapMb: 64 });
    try {
      await pool.warmUp();
      // Act
      const crashed = await pool.convert(largeDocx(200_000), 'docx').catch((e: unknown) => e);
      const next = await pool.convert(devFile('docling-word_tables.docx'), 'docx');
      // Assert
      expect(crashed).toBeInstanceOf(DocumentRejectedError);
      expect(crashed).toHaveProperty(
        'message',
        "the docx document could not be converted: it exhausted the converter's memory (a 64 MB heap)",
      );
      expect(next.pages).toHaveLength(1);
      expect(pool.workersStarted).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('replaces its worker after the configured number of documents', async () => {
    // Arrange
    const pool = new OfficeWorkerPool({ recycleAfterDocuments: 2 });
    const html = new TextEncoder().encode('<h1>Hi</h1>');
    try {
      // Act
      for (let i = 0; i < 5; i++) await pool.convert(html, 'html');
      // Assert: documents 1-2, 3-4 and 5
      expect(pool.workersStarted).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it('replaces its worker after a conversion that leaves it holding more than the bound', async () => {
    // Arrange: any worker holds more than 1 MB (its heap alone)
    const pool = new OfficeWorkerPool({ recycleAboveMb: 1 });
    const html = new TextEncoder().encode('<h1>Hi</h1>');
    try {
      // Act
      const converted = [await pool.convert(html, 'html'), await pool.convert(html, 'html')];
      // Assert
      expect(converted.map((d) => d.pages.length)).toEqual([1, 1]);
      expect(pool.workersStarted).toBe(2);
    } finally {
      await pool.close();
    }
  });
});
