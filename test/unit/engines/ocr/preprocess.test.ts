import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { prepareForOcr } from '../../../../functions/engines/ocr/preprocess.js';

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
    expect(pgmHeader(prepared.image)).toBe('P5 600 400 255');
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
    const header = 'P5\n40 30\n255\n'.length;
    expect(prepared.image.length).toBe(header + 40 * 30);
    expect(prepared.image[header]).toBe(255);
  });
});
