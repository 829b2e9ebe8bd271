import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import { ImageRasterizer } from '../../../../functions/engines/image/image-rasterizer.js';
import { LocalOcrProvider } from '../../../../functions/engines/ocr/local-ocr-provider.js';
import { TesseractOcr } from '../../../../functions/engines/ocr/tesseract-ocr.js';
import { InMemoryObjectStore } from '../../../support/fakes.js';
import { corpusPath } from '../../../support/corpus.js';

const FILES = corpusPath('dev/files');

const ocr = new TesseractOcr();
afterAll(() => ocr.terminate());

describe('LocalOcrProvider', () => {
  it('turns a form image into Markdown with elements inside the page', async () => {
    // Arrange: zerox-0011 is a 753 × 853 bill of lading (WebP)
    const store = new InMemoryObjectStore();
    await store.put('bol', readFileSync(join(FILES, 'zerox-0011.png')), 'image/webp');
    const document: DocumentRef = { key: 'bol', format: 'webp', hash: 'bol' };
    const provider = new LocalOcrProvider(new ImageRasterizer(store), ocr);
    // Act
    const result = await provider.parsePage({
      document,
      pageNumber: 1,
      dpi: null,
      profile: null,
      maintainFormat: true,
    });
    // Assert
    expect(result.markdown).toContain('Bill of Lading');
    expect(result.markdown).toMatch(/Freight\s?era/);
    // Its check boxes are boxes, the ticked one ticked, in the lines of their labels.
    expect(result.markdown).toMatch(/☐ Prepaid ☐ [Cc]ollect ☑ 3rd Party/);
    expect(result).toMatchObject({
      width: 753,
      height: 853,
      model: 'tesseract-5-lstm',
      tokens: { input: 0, output: 0 },
      evidenceText: null,
    });
    expect(result.dpi).toBeGreaterThan(0);
    expect(result.ocrScore).toBeGreaterThan(0.5);
    expect(result.ocrScore).toBeLessThanOrEqual(1);
    expect(result.layoutScore).toBeGreaterThan(0);
    expect(result.elements.length).toBeGreaterThan(5);
    for (const { bbox } of result.elements) {
      expect(bbox.w).toBeGreaterThan(0);
      expect(bbox.h).toBeGreaterThan(0);
      expect(bbox.x + bbox.w).toBeLessThanOrEqual(753);
      expect(bbox.y + bbox.h).toBeLessThanOrEqual(853);
    }
  }, 60_000);
});
