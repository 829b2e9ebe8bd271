import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { prepareForOcr, toPgm } from '../../../../functions/engines/ocr/preprocess.js';

async function page(width: number, height: number): Promise<Uint8Array> {
  return sharp({
    create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
  })
    .png()
    .toBuffer();
}

function pgmHeader(image: Uint8Array): string {
  return new TextDecoder().decode(image.subarray(0, 20)).split('\n').slice(0, 3).join(' ');
}

describe('prepareForOcr', () => {
  it('upscales a low-resolution image to the minimum OCR resolution', async () => {
    // Arrange
    const png = await page(300, 200);
    // Act
    const prepared = await prepareForOcr(png, { dpi: 75, minDpi: 150, maxDpi: 200 });
    // Assert
    expect(prepared).toMatchObject({ width: 600, height: 400, scale: 2 });
    expect(prepared.pixels.length).toBe(600 * 400);
  });

  it('does not upscale a low-resolution image that is already large (a big page)', async () => {
    // Arrange: 96 DPI but 2500 × 3000 pixels
    const png = await page(2500, 3000);
    // Act
    const prepared = await prepareForOcr(png, { dpi: 96, minDpi: 150, maxDpi: 200 });
    // Assert
    expect(prepared).toMatchObject({ width: 2500, height: 3000, scale: 1 });
  });

  it('downscales a 300-DPI render to the maximum OCR resolution', async () => {
    // Arrange
    const png = await page(900, 600);
    // Act
    const prepared = await prepareForOcr(png, { dpi: 300, minDpi: 150, maxDpi: 200 });
    // Assert
    expect(prepared).toMatchObject({ width: 600, height: 400 });
    expect(prepared.scale).toBeCloseTo(2 / 3, 10);
  });

  it('keeps an image already in range and flattens transparency on white', async () => {
    // Arrange
    const png = await page(40, 30);
    // Act
    const prepared = await prepareForOcr(png, { dpi: 180 });
    // Assert
    expect(prepared).toMatchObject({ width: 40, height: 30, scale: 1 });
    expect(prepared.pixels.length).toBe(40 * 30);
    expect(prepared.pixels.every((value) => value === 255)).toBe(true);
  });
});

describe('toPgm', () => {
  it('writes a binary PGM of the requested rows only', () => {
    // Arrange: 3 × 4 image whose rows are 0, 1, 2, 3
    const pixels = Uint8Array.from([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
    // Act
    const pgm = toPgm(pixels, 3, 1, 2);
    // Assert
    expect(pgmHeader(pgm)).toBe('P5 3 2 255');
    expect([...pgm.subarray(pgm.length - 6)]).toEqual([1, 1, 1, 2, 2, 2]);
    expect(pgm.length).toBe('P5\n3 2\n255\n'.length + 6);
  });
});
