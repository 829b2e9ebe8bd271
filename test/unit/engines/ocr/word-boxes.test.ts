import { describe, expect, it } from 'vitest';
import type { OcrWord } from '../../../../functions/engines/ocr/tesseract-ocr.js';
import {
  checkBoxIn,
  fitWordBoxes,
  markCheckBoxes,
  type InkImage,
} from '../../../../functions/engines/ocr/word-boxes.js';

type Rect = { x: number; y: number; w: number; h: number };

/** A white image with black rectangles, ink under level 128, at the words' scale. */
function image(width: number, height: number, rects: Rect[]): InkImage {
  const pixels = new Uint8Array(width * height).fill(255);
  for (const r of rects) {
    for (let y = r.y; y < r.y + r.h; y++) pixels.fill(0, y * width + r.x, y * width + r.x + r.w);
  }
  return { pixels, width, height, threshold: 128, scale: 1 };
}

/** Letters of a line (bars 3 px wide, `h` tall, every 8 px) from x, tops at y. */
const letters = (x: number, y: number, count: number, h = 10): Rect[] =>
  Array.from({ length: count }, (_, k) => ({ x: x + 8 * k, y, w: 3, h }));

/** The four sides (2 px) of a square box of side `side` at (x, y). */
const square = (x: number, y: number, side: number): Rect[] => [
  { x, y, w: side, h: 2 },
  { x, y: y + side - 2, w: side, h: 2 },
  { x, y, w: 2, h: side },
  { x: x + side - 2, y, w: 2, h: side },
];

const word = (text: string, bbox: Rect, lineId: number, baseline: number): OcrWord => ({
  text,
  confidence: 0.9,
  bbox,
  blockId: lineId,
  paragraphId: lineId,
  lineId,
  baseline,
  fontSize: 14,
});

describe('fitWordBoxes', () => {
  /** Two lines of letters, 20 px apart. */
  const ink = image(300, 100, [...letters(20, 20, 6), ...letters(20, 40, 4)]);
  /**
   * The first line (an underlined one, its underline erased) read with a box reaching 14 px
   * into the line below, which was read with a box of its own.
   */
  const grown = word('Please', { x: 18, y: 18, w: 50, h: 34 }, 1, 46);
  const below = word('Bank:', { x: 18, y: 40, w: 30, h: 10 }, 2, 50);

  it('cuts a box grown over the next line to its own letters, and leaves the others alone', () => {
    // Arrange: a tall box on the first line, apart from both.
    const apart = word('GST', { x: 200, y: 10, w: 30, h: 40 }, 1, 46);
    // Act
    const [fitted, next, alone] = fitWordBoxes([grown, below, apart], ink, 1);
    // Assert: the first word's box is its letters' rows, its baseline inside them; the word
    // below keeps its box, and so does a tall box that overlaps no other line's word.
    expect(fitted?.bbox).toEqual({ x: 18, y: 20, w: 50, h: 10 });
    expect(fitted?.baseline).toBe(30);
    expect(next).toBe(below);
    expect(alone).toBe(apart);
  });

  it('keeps the boxes of handwritten words that overlap words as tall', () => {
    // Arrange: two scribbles of different lines overlapping each other.
    const first = word('LF', { x: 18, y: 18, w: 50, h: 34 }, 1, 46);
    const second = word('ore', { x: 18, y: 30, w: 30, h: 30 }, 2, 58);
    // Act
    const [kept] = fitWordBoxes([first, second], ink, 1);
    // Assert
    expect(kept).toBe(first);
  });

  it('keeps the boxes of words inside a region read inverted', () => {
    // Act
    const [kept] = fitWordBoxes([grown, below], ink, 1, [{ x: 0, y: 0, w: 100, h: 60 }]);
    // Assert
    expect(kept).toBe(grown);
  });
});

describe('checkBoxIn', () => {
  const region = { x: 0, y: 0, w: 60, h: 60 };

  it('tells an empty box from a ticked one', () => {
    expect(checkBoxIn(image(60, 60, square(10, 10, 30)), region)).toBe('empty');
    // A tick reaching past the box's top right corner.
    const tick = [
      { x: 18, y: 28, w: 4, h: 6 },
      { x: 22, y: 30, w: 4, h: 6 },
      { x: 26, y: 22, w: 4, h: 10 },
      { x: 30, y: 14, w: 4, h: 10 },
      { x: 34, y: 6, w: 4, h: 10 },
      { x: 38, y: 2, w: 4, h: 8 },
    ];
    expect(checkBoxIn(image(60, 60, [...square(10, 10, 30), ...tick]), region)).toBe('checked');
  });

  it('takes no letter, bullet or rule for a box', () => {
    // An `n`: an arch and two stems, no bottom side.
    const n = [
      { x: 10, y: 10, w: 24, h: 3 },
      { x: 10, y: 10, w: 3, h: 24 },
      { x: 31, y: 10, w: 3, h: 24 },
    ];
    expect(checkBoxIn(image(60, 60, n), region)).toBeNull();
    // A filled square (a bullet).
    expect(checkBoxIn(image(60, 60, [{ x: 10, y: 10, w: 20, h: 20 }]), region)).toBeNull();
    // A frame far wider than tall (a field of a form).
    const field = [
      { x: 2, y: 20, w: 56, h: 2 },
      { x: 2, y: 32, w: 56, h: 2 },
      { x: 2, y: 20, w: 2, h: 14 },
      { x: 56, y: 20, w: 2, h: 14 },
    ];
    expect(checkBoxIn(image(60, 60, field), region)).toBeNull();
    // A round letter: an octagon-like `O` without corners.
    const o = [
      { x: 16, y: 10, w: 12, h: 3 },
      { x: 16, y: 31, w: 12, h: 3 },
      { x: 10, y: 16, w: 3, h: 12 },
      { x: 31, y: 16, w: 3, h: 12 },
      { x: 13, y: 13, w: 3, h: 3 },
      { x: 28, y: 13, w: 3, h: 3 },
      { x: 13, y: 28, w: 3, h: 3 },
      { x: 28, y: 28, w: 3, h: 3 },
    ];
    expect(checkBoxIn(image(60, 60, o), region)).toBeNull();
  });
});

describe('markCheckBoxes', () => {
  it('makes a box read as a letter a box glyph set in the line of its label', () => {
    // Arrange: a 24 px box read as `O` on a line of its own, its label `By Shipper` beside it.
    const ink = image(300, 80, [...square(10, 20, 24), ...letters(44, 27, 9)]);
    const box = word('O', { x: 10, y: 20, w: 24, h: 24 }, 7, 44);
    const label = word('By', { x: 44, y: 27, w: 12, h: 10 }, 3, 37);
    const letter = word('n', { x: 44, y: 27, w: 3, h: 10 }, 3, 37);
    // Act
    const [marked, same, kept] = markCheckBoxes([box, label, letter], ink);
    // Assert
    expect(marked).toMatchObject({
      text: '☐',
      lineId: 3,
      baseline: 37,
      fontSize: 14,
      bbox: { x: 10, y: 27, w: 24, h: 10 },
    });
    expect(same).toBe(label);
    expect(kept).toBe(letter);
  });
});
