import { describe, expect, it } from 'vitest';
import type { OcrWord } from '../../../../functions/engines/ocr/tesseract-ocr.js';
import { isRecovered } from '../../../../functions/engines/ocr/tesseract-ocr.js';
import { paddedCrop } from '../../../../functions/engines/ocr/grey-image.js';
import { eraseRules, findUncoveredInk } from '../../../../functions/engines/ocr/uncovered.js';

/** A white grey image with black rectangles. */
function image(
  width: number,
  height: number,
  rects: { x: number; y: number; w: number; h: number }[],
): Uint8Array {
  const pixels = new Uint8Array(width * height).fill(255);
  for (const r of rects) {
    for (let y = r.y; y < r.y + r.h; y++) pixels.fill(0, y * width + r.x, y * width + r.x + r.w);
  }
  return pixels;
}

/** A word of `count` letters (bars 3 px wide, 14 px tall, every 8 px) from x on a line at y. */
const letters = (x: number, y: number, count: number) =>
  Array.from({ length: count }, (_, k) => ({ x: x + 8 * k, y, w: 3, h: 14 }));

const word = (text: string, x: number, y: number, confidence = 0.9): OcrWord => ({
  text,
  confidence,
  bbox: { x, y, w: 40, h: 14 },
  blockId: 1,
  paragraphId: 1,
  lineId: 1,
  baseline: y + 12,
  fontSize: 14,
});

describe('findUncoveredInk', () => {
  it('finds the word no recognised word covers, not the words read nor a speck', () => {
    // Arrange: two words on a line; the first was read (its box is covered), the second not;
    // a 2 × 2 speck below.
    const pixels = image(300, 120, [
      ...letters(20, 30, 6),
      ...letters(160, 30, 7),
      { x: 100, y: 90, w: 2, h: 2 },
    ]);
    const covered = [{ x: 16, y: 26, w: 52, h: 22 }];
    // Act
    const regions = findUncoveredInk(pixels, 300, 120, covered, { cell: 6 });
    // Assert: one region around the second word (to the cell grid, with a cell of margin)
    expect(regions).toHaveLength(1);
    const [region] = regions;
    expect(region?.x).toBeGreaterThanOrEqual(148);
    expect(region?.x).toBeLessThanOrEqual(160);
    expect((region?.x ?? 0) + (region?.w ?? 0)).toBeGreaterThanOrEqual(211);
    expect((region?.x ?? 0) + (region?.w ?? 0)).toBeLessThanOrEqual(224);
    expect(region?.y).toBeLessThanOrEqual(30);
    expect((region?.y ?? 0) + (region?.h ?? 0)).toBeGreaterThanOrEqual(44);
  });

  it('finds nothing when every word is covered', () => {
    // Arrange
    const pixels = image(300, 120, letters(20, 30, 6));
    // Act
    const regions = findUncoveredInk(pixels, 300, 120, [{ x: 16, y: 26, w: 52, h: 22 }], {
      cell: 6,
    });
    // Assert
    expect(regions).toEqual([]);
  });
});

describe('eraseRules', () => {
  it('paints a long rule and a dotted rule white and keeps the letters', () => {
    // Arrange: a word over a solid rule 200 px long, and a dotted vertical rule (2 on, 1 off).
    const dots = Array.from({ length: 40 }, (_, k) => ({ x: 250, y: 10 + 3 * k, w: 2, h: 2 }));
    const pixels = image(300, 140, [
      ...letters(20, 30, 6),
      { x: 10, y: 50, w: 200, h: 2 },
      ...dots,
    ]);
    // Act
    const erased = eraseRules(pixels, 300, 140, 60);
    // Assert
    expect(erased[51 * 300 + 100]).toBe(255);
    expect(erased[40 * 300 + 250]).toBe(255);
    expect(erased[36 * 300 + 21]).toBe(0);
    expect(pixels[51 * 300 + 100]).toBe(0);
  });
});

describe('paddedCrop', () => {
  it('copies the region inside a white margin', () => {
    // Arrange
    const pixels = image(50, 50, [{ x: 10, y: 10, w: 5, h: 5 }]);
    // Act
    const crop = paddedCrop(pixels, 50, { x: 10, y: 10, w: 5, h: 5 }, 3);
    // Assert
    expect(crop.width).toBe(11);
    expect(crop.height).toBe(11);
    expect(crop.pixels[0]).toBe(255);
    expect(crop.pixels[3 * 11 + 3]).toBe(0);
    expect(crop.pixels[7 * 11 + 7]).toBe(0);
    expect(crop.pixels[8 * 11 + 8]).toBe(255);
  });
});

describe('isRecovered', () => {
  const region = { x: 100, y: 20, w: 80, h: 30 };

  it('keeps a confident word centred in the region', () => {
    expect(isRecovered(word('Shipper', 110, 25), region, 1)).toBe(true);
  });

  it('drops marks, unsure words and words centred in the margin', () => {
    expect(isRecovered(word('|', 110, 25), region, 1)).toBe(false);
    expect(isRecovered(word('Shipper', 110, 25, 0.4), region, 1)).toBe(false);
    expect(isRecovered(word('Shipper', 40, 25), region, 1)).toBe(false);
  });

  it('compares in pixels of the prepared image', () => {
    // Words are boxed in the original image; the region is in the prepared one (scale 2).
    expect(isRecovered(word('Shipper', 55, 12), region, 2)).toBe(true);
  });
});
