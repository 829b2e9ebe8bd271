import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  UnsupportedDocumentError,
} from '../../../../functions/core/domain/errors.js';
import type { DocumentFormat } from '../../../../functions/core/domain/schemas.js';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import { ImageEngine } from '../../../../functions/engines/image/image-engine.js';
import { ImageRasterizer } from '../../../../functions/engines/image/image-rasterizer.js';
import { estimateDpi } from '../../../../functions/engines/image/image-source.js';
import { InMemoryObjectStore } from '../../../support/fakes.js';
import { corpusPath } from '../../../support/corpus.js';

const HOSTILE = corpusPath('hostile');
const DEV = corpusPath('dev/files');

let store: InMemoryObjectStore;
let engine: ImageEngine;

async function stored(
  bytes: Uint8Array,
  format: DocumentFormat,
  key = 'doc',
): Promise<DocumentRef> {
  await store.put(key, bytes, 'application/octet-stream');
  return { key, format, hash: `hash-of-${key}` };
}

const hostile = (file: string): Uint8Array => readFileSync(join(HOSTILE, file));

/** A TIFF whose pages are 200 × 100 pixels in different greys. */
async function multiPageTiff(pages: number): Promise<Uint8Array> {
  const images = await Promise.all(
    Array.from({ length: pages }, (_, i) =>
      sharp({
        create: { width: 200, height: 100, channels: 3, background: { r: i * 40, g: 0, b: 0 } },
      })
        .png()
        .toBuffer(),
    ),
  );
  return sharp(images, { join: { animated: true } })
    .tiff()
    .toBuffer();
}

beforeEach(() => {
  store = new InMemoryObjectStore();
  engine = new ImageEngine(store);
});

describe('ImageEngine.open', () => {
  it('rejects a 40000 × 40000 decompression bomb quickly without decoding it', async () => {
    // Arrange
    const ref = await stored(hostile('png-bomb-40000x40000.png'), 'png');
    const started = performance.now();
    // Act
    const opening = engine.open(ref);
    // Assert
    await expect(opening).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(opening).rejects.toThrow(/40000 × 40000 pixels \(1600 Mpx\), above the 100 Mpx/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('rejects an image above a configured pixel cap', async () => {
    // Arrange
    const small = new ImageEngine(store, { maxPixels: 10_000 });
    const png = await sharp({
      create: { width: 200, height: 100, channels: 3, background: '#fff' },
    })
      .png()
      .toBuffer();
    const ref = await stored(png, 'png');
    // Act
    const opening = small.open(ref);
    // Assert
    await expect(opening).rejects.toThrow(DocumentRejectedError);
    await expect(opening).rejects.toThrow(/200 × 100 pixels/);
  });

  it('rejects a 1 × 10,000,000 strip from its header, under the pixel cap but above the side cap', async () => {
    // Arrange: 10 Mpx passes the 100 Mpx cap; no decoder or OCR engine can use the strip
    const ref = await stored(hostile('rt-png-1x10000000.png'), 'png');
    const started = performance.now();
    // Act
    const opening = engine.open(ref);
    // Assert
    await expect(opening).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(opening).rejects.toThrow(
      /1 × 10000000 pixels: its height is above the limit of 30000 pixels per side/,
    );
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('rejects a page whose sides are too unequal, and accepts one within the ratio', async () => {
    // Arrange: 3 × 2000 is a 667:1 strip of 6000 pixels; 40 × 2000 is 50:1
    const png = (width: number) =>
      sharp({ create: { width, height: 2000, channels: 3, background: '#fff' } })
        .png()
        .toBuffer();
    const strip = await stored(await png(3), 'png', 'strip');
    const receipt = await stored(await png(40), 'png', 'receipt');
    // Act
    const opening = engine.open(strip);
    // Assert
    await expect(opening).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(opening).rejects.toThrow(
      /3 × 2000 pixels, a ratio of sides of 667:1, above the 100:1 limit/,
    );
    await expect(engine.open(receipt)).resolves.toEqual({ pageCount: 1 });
  });

  it('rejects a side above a configured cap before decoding', async () => {
    // Arrange
    const narrow = new ImageEngine(store, { maxSide: 150 });
    const png = await sharp({
      create: { width: 200, height: 100, channels: 3, background: '#fff' },
    })
      .png()
      .toBuffer();
    const ref = await stored(png, 'png');
    // Act
    const opening = narrow.open(ref);
    // Assert
    await expect(opening).rejects.toThrow(/its width is above the limit of 150 pixels per side/);
  });

  it('refuses a 5000-page TIFF at once from its first header, as a PDF over the page cap is', async () => {
    // Arrange: 1.7 MB, 5000 pages of 16 × 16; probing page by page took minutes
    const ref = await stored(hostile('rt-tiff-5000-pages.tif'), 'tiff');
    const started = performance.now();
    // Act
    const opening = engine.open(ref);
    // Assert
    await expect(opening).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(opening).rejects.toThrow(
      /the TIFF image has 5000 pages; at most 1000 are accepted/,
    );
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('refuses a TIFF with more pages than a configured cap', async () => {
    // Arrange
    const capped = new ImageEngine(store, { maxPages: 2 });
    const ref = await stored(await multiPageTiff(3), 'tiff');
    // Act
    const opening = capped.open(ref);
    // Assert
    await expect(opening).rejects.toThrow(/the TIFF image has 3 pages; at most 2 are accepted/);
  });

  it.each([
    ['png-truncated.png', 'png', /^the PNG image is truncated or corrupt: /],
    ['jpeg-header-only.jpg', 'jpeg', /^the JPEG image is truncated or corrupt: /],
  ] as const)('rejects %s as a truncated image', async (file, format, message) => {
    // Arrange
    const ref = await stored(hostile(file), format);
    // Act
    const opening = engine.open(ref);
    // Assert
    await expect(opening).rejects.toBeInstanceOf(UnsupportedDocumentError);
    await expect(opening).rejects.toThrow(message);
  });

  it('opens a JPEG whose scan data is damaged, as the decoder recovers the picture', async () => {
    // Arrange
    const ref = await stored(hostile('jpeg-corrupt-scan.jpg'), 'jpeg');
    // Act
    const opened = await engine.open(ref);
    // Assert
    expect(opened).toEqual({ pageCount: 1 });
  });

  it('rejects bytes that are not an image and says what they are', async () => {
    // Arrange
    const ref = await stored(hostile('text-named.pdf'), 'png');
    // Act
    const opening = engine.open(ref);
    // Assert
    await expect(opening).rejects.toBeInstanceOf(UnsupportedDocumentError);
    await expect(opening).rejects.toThrow(/not a readable PNG image \(its content is plain text\)/);
  });

  it('rejects a HEIC container without a decodable image', async () => {
    // Arrange
    const header = Uint8Array.from([0, 0, 0, 0x18, ...Buffer.from('ftypheic\0\0\0\0mif1heic')]);
    const ref = await stored(Uint8Array.from([...header, ...new Uint8Array(64)]), 'heic');
    // Act
    const opening = engine.open(ref);
    // Assert
    await expect(opening).rejects.toThrow(/^the HEIC image is truncated or corrupt: /);
  });

  it('opens a 1 × 1 image as one page', async () => {
    // Arrange
    const ref = await stored(hostile('tiny-1x1.png'), 'png');
    // Act
    const opened = await engine.open(ref);
    // Assert
    expect(opened).toEqual({ pageCount: 1 });
  });

  it('counts every page of a multi-page TIFF', async () => {
    // Arrange
    const ref = await stored(await multiPageTiff(3), 'tiff');
    // Act
    const opened = await engine.open(ref);
    // Assert
    expect(opened).toEqual({ pageCount: 3 });
  });

  it('decodes by content when the declared image format is wrong', async () => {
    // Arrange: the corpus's zerox-0011.png is a WebP image
    const ref = await stored(readFileSync(join(DEV, 'zerox-0011.png')), 'png');
    // Act
    const opened = await engine.open(ref);
    // Assert
    expect(opened).toEqual({ pageCount: 1 });
  });
});

describe('ImageEngine.inspect', () => {
  it('describes image pages as full-page pictures without a text layer', async () => {
    // Arrange
    const ref = await stored(await multiPageTiff(2), 'tiff');
    // Act
    const inspection = await engine.inspect(ref, [2]);
    // Assert
    expect(inspection.pages).toEqual([
      expect.objectContaining({
        pageNumber: 2,
        widthPt: 200,
        heightPt: 100,
        textChars: 0,
        imageCoverage: 1,
        usableTextLayer: false,
      }),
    ]);
    expect(inspection.profile).toMatchObject({ source: 'image', format: 'tiff' });
  });
});

describe('ImageRasterizer', () => {
  it('returns the requested TIFF page as a PNG at its own size', async () => {
    // Arrange
    const ref = await stored(await multiPageTiff(3), 'tiff');
    const rasterizer = new ImageRasterizer(store);
    // Act
    const page = await rasterizer.rasterize(ref, 3, null);
    // Assert
    const { data, info } = await sharp(page.png).raw().toBuffer({ resolveWithObject: true });
    expect(info.format).toBe('raw');
    expect(await sharp(page.png).metadata()).toMatchObject({ format: 'png', width: 200 });
    expect({ width: page.width, height: page.height }).toEqual({ width: 200, height: 100 });
    expect(data[0]).toBe(80);
  });

  it('uses the density of the file as the DPI when it is plausible', async () => {
    // Arrange
    const png = await sharp({
      create: { width: 850, height: 1100, channels: 3, background: '#fff' },
    })
      .withMetadata({ density: 100 })
      .png()
      .toBuffer();
    const ref = await stored(png, 'png');
    // Act
    const page = await new ImageRasterizer(store).rasterize(ref, 1, null);
    // Assert
    expect(page).toMatchObject({ width: 850, height: 1100, dpi: 100 });
  });

  it('resamples the page to a requested DPI', async () => {
    // Arrange
    const png = await sharp({
      create: { width: 850, height: 1100, channels: 3, background: '#fff' },
    })
      .withMetadata({ density: 100 })
      .png()
      .toBuffer();
    const ref = await stored(png, 'png');
    // Act
    const page = await new ImageRasterizer(store).rasterize(ref, 1, 200);
    // Assert
    expect(page).toMatchObject({ width: 1700, height: 2200, dpi: 200 });
  });

  it('rejects a requested DPI that would exceed the pixel cap', async () => {
    // Arrange
    const png = await sharp({
      create: { width: 850, height: 1100, channels: 3, background: '#fff' },
    })
      .withMetadata({ density: 100 })
      .png()
      .toBuffer();
    const ref = await stored(png, 'png');
    const rasterizer = new ImageRasterizer(store, { maxPixels: 2_000_000 });
    // Act
    const rendering = rasterizer.rasterize(ref, 1, 300);
    // Assert
    await expect(rendering).rejects.toBeInstanceOf(DocumentRejectedError);
  });
});

describe('estimateDpi', () => {
  it.each([
    [{ width: 2550, height: 3300 }, null, 300],
    [{ width: 1275, height: 1650 }, 72, 150],
    [{ width: 753, height: 853 }, null, 78],
    [{ width: 2480, height: 3508 }, 300, 300],
    [{ width: 100, height: 50 }, null, 72],
    [{ width: 20000, height: 20000 }, 150, 600],
  ])('estimates %o with density %s as %i DPI', (size, density, dpi) => {
    // Act
    const estimate = estimateDpi(size, density);
    // Assert
    expect(estimate).toBe(dpi);
  });
});
