import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker as NodeWorker } from 'node:worker_threads';
import sharp from 'sharp';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ProviderUnavailableError } from '../../../../functions/core/domain/errors.js';
import { TesseractOcr } from '../../../../functions/engines/ocr/tesseract-ocr.js';
import { corpusPath } from '../../../support/corpus.js';

/**
 * Called after a worker's `setParameters` ends and before its next message (see the stop test),
 * with the worker's thread; `started` counts the workers created.
 */
const hooks: {
  afterSetParameters?: (thread: NodeWorker) => void;
  started: number;
} = { started: 0 };

vi.mock('tesseract.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('tesseract.js')>();
  return {
    ...real,
    createWorker: async (...args: Parameters<typeof real.createWorker>) => {
      const worker = await real.createWorker(...args);
      hooks.started++;
      const thread = (worker as unknown as { worker: NodeWorker }).worker;
      const setParameters = worker.setParameters.bind(worker);
      worker.setParameters = async (parameters) => {
        const result = await setParameters(parameters);
        hooks.afterSetParameters?.(thread);
        return result;
      };
      return worker;
    },
  };
});

const CORPUS = corpusPath('dev');

/** Words of five letters or more of the ground truth, lower-cased. */
function groundTruthWords(id: string): string[] {
  const markdown = readFileSync(join(CORPUS, 'gt', `${id}.md`), 'utf8');
  return [...new Set(markdown.match(/[A-Za-z]{5,}/g) ?? [])].map((w) => w.toLowerCase());
}

const ocr = new TesseractOcr();
afterAll(() => ocr.terminate());

describe('TesseractOcr', () => {
  it('recognises most words of an invoice image, with boxes inside the image', async () => {
    // Arrange: zerox-0012 is a 1033 × 800 WebP screenshot of an invoice (about 94 DPI)
    const png = await sharp(readFileSync(join(CORPUS, 'files', 'zerox-0012.png')))
      .png()
      .toBuffer();
    const expected = groundTruthWords('zerox-0012');
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    // Act
    const result = await ocr.recognize(png, { dpi: 94 });
    // Assert
    const text = result.words.map((w) => w.text.toLowerCase()).join(' ');
    const found = expected.filter((w) => text.includes(w));
    expect(found.length / expected.length).toBeGreaterThan(0.7);
    expect(text).toContain('subtotal');
    expect({ width: result.width, height: result.height }).toEqual({ width: 1033, height: 800 });
    for (const { bbox, confidence } of result.words) {
      expect(bbox.x).toBeGreaterThanOrEqual(0);
      expect(bbox.y).toBeGreaterThanOrEqual(0);
      expect(bbox.w).toBeGreaterThan(0);
      expect(bbox.h).toBeGreaterThan(0);
      expect(bbox.x + bbox.w).toBeLessThanOrEqual(1033);
      expect(bbox.y + bbox.h).toBeLessThanOrEqual(800);
      expect(confidence).toBeGreaterThanOrEqual(0);
      expect(confidence).toBeLessThanOrEqual(1);
    }
    const total = result.words.find((w) => w.text === 'SUBTOTAL');
    expect(total?.bbox.y).toBeGreaterThan(800 * 0.6);
    expect(fetchSpy).not.toHaveBeenCalled();
  }, 60_000);

  it('reads the header row set light on a dark fill, in its place on the page', async () => {
    // Arrange: the item table of zerox-0012 has its header row (Date, Cust Ref, ..., Total) in
    // white on olive; read as it is, Date comes out `LETEY` and Descrip is lost.
    const png = await sharp(readFileSync(join(CORPUS, 'files', 'zerox-0012.png')))
      .png()
      .toBuffer();
    // Act
    const result = await ocr.recognize(png, { dpi: 94 });
    // Assert: the header words, once each, on the band (y 325-350 of 800)
    const header = result.words.filter((w) => w.bbox.y > 320 && w.bbox.y + w.bbox.h < 355);
    const texts = header.map((w) => w.text);
    for (const expected of ['Date', 'Descrip', 'Cubic', 'Weight', 'Rate', 'Extras', 'Total']) {
      expect(texts.filter((t) => t === expected)).toHaveLength(1);
    }
    expect(new Set(header.map((w) => w.lineId)).size).toBe(1);
    const date = header.find((w) => w.text === 'Date');
    expect(date?.bbox.x).toBeGreaterThan(60);
    expect(date?.bbox.x).toBeLessThan(100);
  }, 60_000);

  it('reads again the words its page layout left out beside check boxes', async () => {
    // Arrange: zerox-0011's "Freight Loaded" column lists `By Shipper` and `By Driver` beside
    // check boxes (x 255-300, y 745-790 of 853); the page's reading leaves both out.
    const png = readFileSync(join(CORPUS, 'files', 'zerox-0011.png'));
    // Act
    const result = await ocr.recognize(png, { dpi: 78 });
    // Assert: both labels, in their place
    const column = result.words.filter(
      (w) => w.bbox.x > 260 && w.bbox.x < 320 && w.bbox.y > 740 && w.bbox.y < 790,
    );
    expect(column.map((w) => w.text)).toEqual(
      expect.arrayContaining(['By', 'Shipper', 'By', 'Driver']),
    );
    const shipper = column.find((w) => w.text === 'Shipper');
    const driver = column.find((w) => w.text === 'Driver');
    expect(shipper?.bbox.y).toBeLessThan(driver?.bbox.y ?? 0);
  }, 60_000);

  it('lets recognitions in progress end before it stops the workers', async () => {
    // Arrange: a pool of its own, stopped from inside its first job
    const own = new TesseractOcr();
    const png = readFileSync(join(CORPUS, 'files', 'zerox-0012.png'));
    let stopped: Promise<void> | undefined;
    hooks.afterSetParameters = () => {
      // Between two messages of the job: tesseract.js would throw outside any promise.
      hooks.afterSetParameters = undefined;
      stopped = own.terminate();
    };
    // Act
    const result = await own.recognize(png, { dpi: 94 });
    await stopped;
    // Assert
    expect(stopped).toBeDefined();
    expect(result.words.length).toBeGreaterThan(50);
  });

  it('fails with ProviderUnavailableError instead of downloading missing language data', async () => {
    // Arrange
    const empty = mkdtempSync(join(tmpdir(), 'no-tessdata-'));
    const offline = new TesseractOcr({ langPath: empty });
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    // Act
    const recognising = offline.recognize(png);
    // Assert
    await expect(recognising).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(recognising).rejects.toThrow(/language data not found/);
    expect(fetchSpy).not.toHaveBeenCalled();
    await offline.terminate();
  });

  describe('when tesseract fails on an image', () => {
    const invoice = () => readFileSync(join(CORPUS, 'files', 'zerox-0012.png'));
    const strip = () =>
      sharp({ create: { width: 1, height: 100_000, channels: 3, background: '#fff' } })
        .png()
        .toBuffer();

    it('rejects the call, not the process, and the next image is recognised', async () => {
      // Arrange: a 1 × 100,000 strip that sharp reads but tesseract's image reader refuses
      // ("Error attempting to read image", thrown from tesseract.js's message listener)
      const own = new TesseractOcr({ workers: 1 });
      const uncaught = vi.fn();
      process.on('uncaughtException', uncaught);
      try {
        // Act
        const failing = own.recognize(await strip(), { dpi: 300 });
        // Assert
        await expect(failing).rejects.toBeInstanceOf(ProviderUnavailableError);
        await expect(failing).rejects.toThrow(/tesseract failed on the page image/);
        const next = await own.recognize(invoice(), { dpi: 94 });
        expect(next.words.length).toBeGreaterThan(50);
        expect(uncaught).not.toHaveBeenCalled();
      } finally {
        process.off('uncaughtException', uncaught);
        await own.terminate();
      }
    }, 60_000);

    it('rejects the call when the worker thread dies during the job, then starts a new worker', async () => {
      // Arrange: the thread ends between two messages of the first job (as a WebAssembly abort
      // would); tesseract.js never answers that job
      const own = new TesseractOcr({ workers: 1 });
      hooks.afterSetParameters = (thread) => {
        hooks.afterSetParameters = undefined;
        void thread.terminate();
      };
      try {
        // Act
        const failing = own.recognize(invoice(), { dpi: 94 });
        // Assert
        await expect(failing).rejects.toBeInstanceOf(ProviderUnavailableError);
        await expect(failing).rejects.toThrow(/worker thread exited/);
        const next = await own.recognize(invoice(), { dpi: 94 });
        expect(next.words.length).toBeGreaterThan(50);
      } finally {
        hooks.afterSetParameters = undefined;
        await own.terminate();
      }
    }, 60_000);
  });

  it('replaces a worker after an image above the recycling size, as its memory never shrinks', async () => {
    // Arrange: a pool of one worker that recycles after any band above 1000 pixels
    const own = new TesseractOcr({ workers: 1, recycleAfterPixels: 1000 });
    const small = await sharp({
      create: { width: 20, height: 20, channels: 3, background: '#fff' },
    })
      .png()
      .toBuffer();
    // One band of 10,000 pixels (a page image with no dark regions, so one job).
    const large = await sharp({
      create: { width: 100, height: 100, channels: 3, background: '#fff' },
    })
      .png()
      .toBuffer();
    const before = hooks.started;
    try {
      // Act
      await own.recognize(small, { dpi: 150 });
      await own.recognize(small, { dpi: 150 });
      const afterSmall = hooks.started - before;
      await own.recognize(large, { dpi: 150 });
      await own.recognize(small, { dpi: 150 });
      // Assert: the small images share one worker; the large one's worker is not reused
      expect(afterSmall).toBe(1);
      expect(hooks.started - before).toBe(2);
    } finally {
      await own.terminate();
    }
  }, 60_000);
});
