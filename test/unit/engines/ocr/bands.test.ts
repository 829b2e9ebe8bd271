import { describe, expect, it } from 'vitest';
import { otsuThreshold, splitIntoBands } from '../../../../functions/engines/ocr/bands.js';

const WIDTH = 200;

/** A white page `height` rows tall with dark text-like rows in the given [from, to) ranges. */
function page(height: number, inked: [number, number][], rules: number[] = []): Uint8Array {
  const pixels = new Uint8Array(WIDTH * height).fill(250);
  for (const [from, to] of inked) {
    for (let y = from; y < to; y++) {
      for (let x = 10; x < WIDTH - 10; x += 3) pixels[y * WIDTH + x] = 20;
    }
  }
  for (const x of rules) for (let y = 0; y < height; y++) pixels[y * WIDTH + x] = 10;
  return pixels;
}

/** Text lines 10 rows tall separated by 12 blank rows, from row 10 to row `height - 10`. */
function lines(height: number): [number, number][] {
  const out: [number, number][] = [];
  for (let y = 10; y + 10 <= height - 10; y += 22) out.push([y, y + 10]);
  return out;
}

describe('splitIntoBands', () => {
  it('cuts a page of text lines into two bands with about half the ink each, between lines', () => {
    // Arrange
    const inked = lines(400);
    const pixels = page(400, inked);
    // Act
    const bands = splitIntoBands(pixels, WIDTH, 400, { parts: 2, minGap: 8 });
    // Assert
    expect(bands).toHaveLength(2);
    expect(bands[0]!.top).toBe(0);
    expect(bands[0]!.height + bands[1]!.height).toBe(400);
    const cut = bands[1]!.top;
    expect(inked.some(([from, to]) => cut >= from && cut < to)).toBe(false);
    expect(Math.abs(cut - 200)).toBeLessThan(25);
  });

  it('keeps one band when the gaps are shorter than minGap', () => {
    // Arrange: 12-row gaps, 20 required
    const pixels = page(400, lines(400));
    // Act
    const bands = splitIntoBands(pixels, WIDTH, 400, { parts: 2, minGap: 20 });
    // Assert
    expect(bands).toEqual([{ top: 0, height: 400 }]);
  });

  it('cuts through a frame of two rules only when told their length', () => {
    // Arrange: two 2-pixel rules from top to bottom, more ink per row than a blank row may have
    const pixels = page(400, lines(400), [2, 3, 196, 197]);
    // Act
    const withoutRules = splitIntoBands(pixels, WIDTH, 400, { parts: 2, minGap: 8 });
    const ignoringRules = splitIntoBands(pixels, WIDTH, 400, {
      parts: 2,
      minGap: 8,
      ruleLength: 60,
    });
    // Assert
    expect(withoutRules).toHaveLength(1);
    expect(ignoringRules).toHaveLength(2);
  });

  it('never cuts between the rows of a table with four or more column rules', () => {
    // Arrange
    const pixels = page(400, lines(400), [2, 3, 70, 130, 196, 197]);
    // Act
    const bands = splitIntoBands(pixels, WIDTH, 400, { parts: 2, minGap: 8, ruleLength: 60 });
    // Assert
    expect(bands).toHaveLength(1);
  });

  it('does not cut off a band with almost no ink', () => {
    // Arrange: all text at the top, one short line at the bottom
    const pixels = page(400, [...lines(200), [380, 385]]);
    // Act
    const bands = splitIntoBands(pixels, WIDTH, 400, { parts: 2, minGap: 8 });
    // Assert: the only cut that balances the ink lies inside the text block
    expect(bands.length === 1 || bands[1]!.top < 200).toBe(true);
  });

  it('returns the whole page for a blank image or a single part', () => {
    const blank = new Uint8Array(WIDTH * 100).fill(255);
    expect(splitIntoBands(blank, WIDTH, 100, { parts: 2, minGap: 4 })).toEqual([
      { top: 0, height: 100 },
    ]);
    expect(splitIntoBands(page(400, lines(400)), WIDTH, 400, { parts: 1, minGap: 4 })).toEqual([
      { top: 0, height: 400 },
    ]);
  });
});

describe('otsuThreshold', () => {
  it('separates dark ink from light paper', () => {
    const pixels = Uint8Array.from([
      ...Array<number>(50).fill(30),
      ...Array<number>(200).fill(220),
    ]);
    const threshold = otsuThreshold(pixels);
    expect(threshold).toBeGreaterThan(30);
    expect(threshold).toBeLessThanOrEqual(220);
  });
});

describe('splitIntoBands with horizontal rules', () => {
  it('never cuts between the top and bottom rules of a table without column rules', () => {
    // Arrange: text lines with full-width rules at rows 150 and 260 around the middle
    const pixels = page(400, lines(400));
    for (const y of [150, 260]) pixels.fill(0, y * WIDTH, (y + 1) * WIDTH);
    // Act
    const bands = splitIntoBands(pixels, WIDTH, 400, { parts: 2, minGap: 8 });
    // Assert
    const cuts = bands.slice(1).map((b) => b.top);
    expect(cuts.every((cut) => cut < 150 || cut > 260)).toBe(true);
  });
});
