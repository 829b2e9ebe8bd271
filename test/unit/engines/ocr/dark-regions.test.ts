import { describe, expect, it } from 'vitest';
import {
  findDarkRegions,
  invertedCrop,
  rulesInRegion,
} from '../../../../functions/engines/ocr/dark-regions.js';
import type { OcrWord } from '../../../../functions/engines/ocr/tesseract-ocr.js';
import { replaceInRegions } from '../../../../functions/engines/ocr/tesseract-ocr.js';

/** A white grey image with rectangles painted at the given levels. */
function image(
  width: number,
  height: number,
  rects: { x: number; y: number; w: number; h: number; level: number }[],
): Uint8Array {
  const pixels = new Uint8Array(width * height).fill(255);
  for (const r of rects) {
    for (let y = r.y; y < r.y + r.h; y++)
      pixels.fill(r.level, y * width + r.x, y * width + r.x + r.w);
  }
  return pixels;
}

/** Light letters (bars 3 px wide, 14 px tall) set on a line from x, every 9 px. */
const letters = (x: number, y: number, count: number) =>
  Array.from({ length: count }, (_, k) => ({ x: x + 9 * k, y, w: 3, h: 14, level: 250 }));

const word = (text: string, x: number, y: number): OcrWord => ({
  text,
  confidence: 0.9,
  bbox: { x, y, w: 40, h: 12 },
  blockId: 1,
  paragraphId: 1,
  lineId: 1,
  baseline: y + 10,
  fontSize: 14,
});

describe('findDarkRegions', () => {
  it('finds a dark banner with light text, not the frame rule touching it nor a bold letter', () => {
    // Arrange: a 360 × 40 banner (grey 60) with light letters, a page frame rule 3 px wide down
    // the whole left side touching the banner, and a bold black `L` (strokes 8 px) below.
    const pixels = image(400, 200, [
      { x: 20, y: 40, w: 360, h: 40, level: 60 },
      ...letters(120, 53, 12),
      { x: 17, y: 0, w: 3, h: 200, level: 0 },
      { x: 60, y: 110, w: 8, h: 40, level: 0 },
      { x: 60, y: 142, w: 30, h: 8, level: 0 },
    ]);
    // Act
    const regions = findDarkRegions(pixels, 400, 200, { cell: 6 });
    // Assert: one region, the banner (to the cell grid)
    expect(regions).toHaveLength(1);
    const [band] = regions;
    expect(band?.x).toBeGreaterThanOrEqual(12);
    expect(band?.x).toBeLessThanOrEqual(24);
    expect((band?.x ?? 0) + (band?.w ?? 0)).toBeLessThanOrEqual(386);
    expect(band?.y).toBeGreaterThanOrEqual(36);
    expect(band?.y).toBeLessThanOrEqual(42);
    expect((band?.y ?? 0) + (band?.h ?? 0)).toBeGreaterThanOrEqual(78);
    expect((band?.y ?? 0) + (band?.h ?? 0)).toBeLessThanOrEqual(84);
  });

  it('finds nothing on a page of dark text on white', () => {
    const pixels = image(
      300,
      100,
      letters(20, 20, 25).map((r) => ({ ...r, level: 0 })),
    );
    expect(findDarkRegions(pixels, 300, 100, { cell: 6 })).toEqual([]);
  });
});

describe('invertedCrop', () => {
  it('turns light text on a dark fill into dark text on white, inside a white margin', () => {
    // Arrange: a 4 × 2 region of fill 60 with one light pixel (240)
    const pixels = image(6, 4, [
      { x: 1, y: 1, w: 4, h: 2, level: 60 },
      { x: 2, y: 1, w: 1, h: 1, level: 240 },
    ]);
    // Act
    const crop = invertedCrop(pixels, 6, { x: 1, y: 1, w: 4, h: 2 }, 2);
    // Assert
    expect(crop).toMatchObject({ width: 8, height: 6 });
    const at = (x: number, y: number) => crop.pixels[y * crop.width + x];
    expect(at(0, 0)).toBe(255);
    expect(at(2, 2)).toBe(255); // the fill
    expect(at(3, 2)).toBeLessThan(40); // the letter
  });
});

describe('replaceInRegions', () => {
  it("replaces the page's words inside a dark region by those read from it inverted", () => {
    // Arrange: the page read `LETEY` (Date, light on dark) inside the region and `MASCOT` below
    const page = [word('LETEY', 80, 331), word('MASCOT', 212, 367)];
    const region = { x: 60, y: 320, w: 500, h: 30 };
    // Act
    const words = replaceInRegions(page, [{ region, words: [word('Date', 80, 331)] }], 1);
    // Assert
    expect(words.map((w) => w.text)).toEqual(['MASCOT', 'Date']);
  });

  it('keeps the words of a region whose inverted read found nothing', () => {
    const page = [word('Client', 501, 170)];
    const region = { x: 440, y: 160, w: 160, h: 24 };
    expect(replaceInRegions(page, [{ region, words: [] }], 1)).toEqual(page);
  });

  it('compares word boxes (original pixels) with regions in pixels of the prepared image', () => {
    // Arrange: the image was upscaled twice for OCR; the word's centre (100, 106) is (200, 212)
    const page = [word('Ship', 80, 100)];
    const region = { x: 150, y: 200, w: 200, h: 30 };
    // Act
    const words = replaceInRegions(page, [{ region, words: [word('Ship', 80, 100)] }], 2);
    // Assert
    expect(words).toHaveLength(1);
  });
});

describe('rulesInRegion', () => {
  it('finds the column separators across a shaded header row, not its letters or its frame', () => {
    // Arrange: a 360 × 40 band (grey 90) framed by black sides, light letters 14 px tall, a
    // black separator 1 px wide and a light one 2 px wide, each across the band's height.
    const band = { x: 20, y: 40, w: 360, h: 40 };
    const pixels = image(400, 120, [
      { ...band, level: 90 },
      { x: 20, y: 40, w: 2, h: 40, level: 0 },
      { x: 378, y: 40, w: 2, h: 40, level: 0 },
      ...letters(60, 53, 8),
      { x: 150, y: 40, w: 1, h: 40, level: 5 },
      ...letters(170, 53, 8),
      { x: 260, y: 40, w: 2, h: 40, level: 240 },
      ...letters(280, 53, 8),
    ]);
    // Act
    const rules = rulesInRegion(pixels, 400, band);
    // Assert
    expect(rules).toEqual([
      { x: 150, y: 40, w: 1, h: 40 },
      { x: 260, y: 40, w: 2, h: 40 },
    ]);
  });
});
