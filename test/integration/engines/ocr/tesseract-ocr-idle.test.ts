import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TesseractOcr, type OcrResult } from '../../../../functions/engines/ocr/tesseract-ocr.js';

/**
 * The idle release of the OCR pool: a tesseract.js worker idle past `idleMs` is terminated (its
 * WebAssembly memory, model included, given back); the next call, including one that arrives
 * while the worker's thread is being terminated, starts a new worker and recognises as before.
 */

const IDLE_MS = 300;

/** A white 600 × 120 PNG with one line of black text. */
const textImage = (): Promise<Buffer> =>
  sharp(
    Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="120"><rect width="100%" height="100%" fill="white"/><text x="20" y="75" font-family="DejaVu Sans, sans-serif" font-size="40" fill="black">Invoice total due</text></svg>',
    ),
  )
    .png()
    .toBuffer();

/**
 * Resolves with `this` of the next `Worker#terminate` call (tesseract.js stops a worker by
 * terminating its thread), after running `during` inside that call, before the thread is
 * actually asked to stop.
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

const words = (result: OcrResult | undefined): string =>
  (result?.words ?? []).map((word) => word.text.toLowerCase()).join(' ');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('TesseractOcr idle release', () => {
  it('terminates a worker idle past idleMs, and the next call starts a new one', async () => {
    // Arrange
    const ocr = new TesseractOcr({ workers: 1, idleMs: IDLE_MS });
    const image = await textImage();
    try {
      const first = await ocr.recognize(image, { dpi: 150 });
      const terminated = nextTermination();
      // Act: no call for IDLE_MS.
      const worker = await terminated;
      const exited = await new Promise<number>((resolve) => worker.once('exit', resolve));
      const again = await ocr.recognize(image, { dpi: 150 });
      // Assert
      expect(exited).toBeTypeOf('number');
      expect(ocr.workersStarted).toBe(2);
      expect(words(first)).toContain('invoice');
      expect(words(again)).toBe(words(first));
    } finally {
      await ocr.terminate();
    }
  });

  it('serves a call that arrives while the idle worker is being terminated', async () => {
    // Arrange
    const ocr = new TesseractOcr({ workers: 1, idleMs: IDLE_MS });
    const image = await textImage();
    try {
      await ocr.recognize(image, { dpi: 150 });
      let racing: Promise<OcrResult> | undefined;
      // Act: the call is made inside terminate(), before the old thread has stopped.
      await nextTermination(() => {
        racing = ocr.recognize(image, { dpi: 150 });
      });
      const result = await racing;
      // Assert
      expect(words(result)).toContain('invoice');
      expect(ocr.workersStarted).toBe(2);
    } finally {
      await ocr.terminate();
    }
  });
});
