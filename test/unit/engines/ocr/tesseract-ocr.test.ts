import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ProviderUnavailableError } from '../../../../functions/core/domain/errors.js';
import { TesseractOcr } from '../../../../functions/engines/ocr/tesseract-ocr.js';

/** Called after a worker's `setParameters` ends and before its next message: see the stop test. */
const hooks: { afterSetParameters?: () => void } = {};

vi.mock('tesseract.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('tesseract.js')>();
  return {
    ...real,
    createWorker: async (...args: Parameters<typeof real.createWorker>) => {
      const worker = await real.createWorker(...args);
      const setParameters = worker.setParameters.bind(worker);
      worker.setParameters = async (parameters) => {
        const result = await setParameters(parameters);
        hooks.afterSetParameters?.();
        return result;
      };
      return worker;
    },
  };
});

const CORPUS = join(import.meta.dirname, '../../../../../shared/corpus/dev');

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
});
