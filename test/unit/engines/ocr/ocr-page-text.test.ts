import { describe, expect, it } from 'vitest';
import {
  characterWeightedConfidence,
  glyphSpanShare,
  ocrToPageText,
  withoutRuleGlyphs,
} from '../../../../functions/engines/ocr/ocr-page-text.js';
import type { OcrResult, OcrWord } from '../../../../functions/engines/ocr/tesseract-ocr.js';

function word(text: string, x: number, y: number, overrides: Partial<OcrWord> = {}): OcrWord {
  return {
    text,
    confidence: 0.9,
    bbox: { x, y, w: text.length * 10, h: 20 },
    blockId: 1,
    paragraphId: 1,
    lineId: 1,
    baseline: y + 16,
    fontSize: 24,
    ...overrides,
  };
}

const result = (words: OcrWord[]): OcrResult => ({
  width: 1000,
  height: 800,
  words,
  scale: 1,
  rules: [],
});

describe('ocrToPageText', () => {
  it('makes one run per word with its box, baseline and confidence', () => {
    // Arrange
    const ocr = result([word('Hello', 100, 50, { confidence: 0.5 }), word('world', 170, 50)]);
    // Act
    const page = ocrToPageText(ocr, { pageNumber: 3, width: 1000, height: 800, dpi: 300 });
    // Assert
    expect(page).toMatchObject({ pageNumber: 3, width: 1000, height: 800, dpi: 300 });
    expect(page.runs).toEqual([
      expect.objectContaining({ text: 'Hello ', x: 100, y: 50, w: 50, h: 20, baseline: 66 }),
      expect.objectContaining({ text: 'world ', x: 170, confidence: 0.9 }),
    ]);
    expect(page.runs[0]).toMatchObject({ confidence: 0.5, bold: false, italic: false });
    expect(page.rules).toEqual([]);
  });

  it('keeps the rules the OCR found, in pixels of the page image', () => {
    // Arrange: a column separator of a shaded header row, read on an image half the page's size.
    const ocr = { ...result([word('Cubic', 100, 50)]), width: 500, height: 400 };
    ocr.rules = [{ x1: 120, y1: 40, x2: 120, y2: 60 }];
    // Act
    const page = ocrToPageText(ocr, { pageNumber: 1, width: 1000, height: 800, dpi: 300 });
    // Assert
    expect(page.rules).toEqual([{ x1: 240, y1: 80, x2: 240, y2: 120 }]);
  });

  it('restores the slashes of dates in a column of dates that were read as digits', () => {
    // Arrange: a column of right-aligned dates, three read with 1 or 7 for a slash; a number
    // beside them and a digit run that fits no date form stay as they are.
    const column = ['11172017', '2/2/2017', '4/412017', '6/6/2017', '511512017', '70712017'];
    const ocr = result([
      ...column.map((text, k) =>
        word(text, 190 - text.length * 10, 100 + 30 * k, {
          lineId: k + 1,
          bbox: { x: 190 - text.length * 10, y: 100 + 30 * k, w: text.length * 10, h: 20 },
        }),
      ),
      word('11172017', 400, 100, { lineId: 1 }),
    ]);
    // Act
    const page = ocrToPageText(ocr, { pageNumber: 1, width: 1000, height: 800, dpi: 300 });
    // Assert
    expect(page.runs.map((run) => run.text.trim())).toEqual([
      '1/1/2017',
      '2/2/2017',
      '4/4/2017',
      '6/6/2017',
      '5/15/2017',
      '70712017',
      '11172017',
    ]);
  });

  it('snaps line sizes close to the body size and keeps larger ones', () => {
    // Arrange
    const ocr = result([
      word('Title', 100, 20, { fontSize: 48, lineId: 1, bbox: { x: 100, y: 20, w: 100, h: 40 } }),
      word('body', 100, 100, { fontSize: 24, lineId: 2 }),
      word('text', 150, 100, { fontSize: 24, lineId: 2 }),
      word('goes', 200, 100, { fontSize: 24, lineId: 2 }),
      word('on', 100, 140, { fontSize: 25.5, lineId: 3, bbox: { x: 100, y: 140, w: 20, h: 11 } }),
    ]);
    // Act
    const page = ocrToPageText(ocr, { pageNumber: 1, width: 1000, height: 800, dpi: 300 });
    // Assert: sizes in units of the body's row height (24); the title is about twice the body.
    const [title, ...rest] = page.runs.map((run) => run.fontSize);
    expect(title).toBeGreaterThan(2 * 24 * 0.95);
    expect(rest).toEqual([24, 24, 24, 24]);
  });

  it('reads noisy row heights as one size when the glyph heights agree', () => {
    // Arrange: tesseract's row heights vary by line; the word boxes do not.
    const ocr = result(
      [24, 31, 22, 27, 36, 24].map((fontSize, i) =>
        word('Body', 100, 40 * i, { fontSize, lineId: i + 1 }),
      ),
    );
    // Act
    const page = ocrToPageText(ocr, { pageNumber: 1, width: 1000, height: 800, dpi: 300 });
    // Assert
    expect(new Set(page.runs.map((run) => run.fontSize)).size).toBe(1);
  });

  it('keeps a line at body size when only a few of its boxes are tall', () => {
    // Arrange: boxes touching a table rule are taller than the glyphs.
    const tall = { h: 40 };
    const ocr = result([
      word('Bold', 100, 20, { lineId: 1 }),
      word('Text', 200, 20, { lineId: 1 }),
      word('Date', 100, 60, { lineId: 2, fontSize: 40, bbox: { x: 100, y: 60, w: 40, ...tall } }),
      word('From', 200, 60, { lineId: 2, fontSize: 40 }),
      word('Sort', 300, 60, { lineId: 2, fontSize: 40 }),
      word('Rate', 400, 60, { lineId: 2, fontSize: 40 }),
    ]);
    // Act
    const page = ocrToPageText(ocr, { pageNumber: 1, width: 1000, height: 800, dpi: 300 });
    // Assert
    expect(new Set(page.runs.map((run) => run.fontSize)).size).toBe(1);
  });

  it('keeps at most three size classes above the body size', () => {
    // Arrange: five larger lines, each about 1.4 times the next smaller one.
    const sizes = [20, 28, 40, 56, 78, 110];
    const ocr = result(
      sizes.flatMap((h, i) =>
        Array.from({ length: i === 0 ? 20 : 1 }, (_, k) =>
          word('Hi', 30 * k, 120 * i, {
            lineId: i + 1,
            fontSize: h * 1.2,
            bbox: { x: 30 * k, y: 120 * i, w: 20, h: h * 0.74 },
          }),
        ),
      ),
    );
    // Act
    const page = ocrToPageText(ocr, { pageNumber: 1, width: 1000, height: 800, dpi: 300 });
    // Assert
    const distinct = [...new Set(page.runs.map((run) => Math.round(run.fontSize)))];
    expect(distinct.sort((a, b) => a - b)).toEqual([24, 67, 94, 132]);
  });

  it('scales boxes when the page image differs in size from the recognised one', () => {
    // Arrange
    const ocr = result([word('Scaled', 100, 50)]);
    // Act
    const page = ocrToPageText(ocr, { pageNumber: 1, width: 2000, height: 1600, dpi: 600 });
    // Assert
    expect(page.runs[0]).toMatchObject({ x: 200, y: 100, w: 120, h: 40, fontSize: 48 });
  });
});

describe('glyphSpanShare', () => {
  it('gives the share of the ascender-to-descender span a word covers', () => {
    // Act / Assert
    expect(glyphSpanShare('Type')).toBe(1);
    expect(glyphSpanShare('Table')).toBe(0.74);
    expect(glyphSpanShare('gray')).toBe(0.76);
    expect(glyphSpanShare('one')).toBe(0.5);
    expect(glyphSpanShare('--')).toBeNull();
  });
});

describe('characterWeightedConfidence', () => {
  it('weights each word by its characters', () => {
    // Arrange
    const words = [word('a', 0, 0, { confidence: 0.1 }), word('abcd', 20, 0, { confidence: 0.6 })];
    // Act
    const confidence = characterWeightedConfidence(words);
    // Assert
    expect(confidence).toBeCloseTo((0.1 + 4 * 0.6) / 5, 10);
  });

  it('is null when nothing was recognised', () => {
    // Act
    const confidence = characterWeightedConfidence([]);
    // Assert
    expect(confidence).toBeNull();
  });
});

describe('withoutRuleGlyphs', () => {
  const geometry = { pageNumber: 1, width: 1000, height: 800, dpi: 300 };
  // A table row between vertical rules at x = 95, 205 and 315, as tesseract reads it.
  const rules = [
    { x1: 95, y1: 0, x2: 95, y2: 200 },
    { x1: 205, y1: 0, x2: 205, y2: 200 },
    { x1: 315, y1: 0, x2: 315, y2: 200 },
  ];
  const row = () =>
    ocrToPageText(
      result([
        word('|', 92, 40, { bbox: { x: 92, y: 40, w: 6, h: 45 } }),
        word('|0.931|', 100, 50),
        word('[0.859', 210, 50),
        word('(Type', 320, 50),
        word('(a)', 400, 50),
        word('[x]', 500, 50),
      ]),
      geometry,
    );

  it('cuts bars off words and unbalanced brackets next to a vertical rule', () => {
    // Act
    const page = withoutRuleGlyphs(row(), rules);
    // Assert: a lone bar stays (the layout splits cells at it)
    expect(page.runs.map((r) => r.text)).toEqual([
      '| ',
      '0.931 ',
      '0.859 ',
      'Type ',
      '(a) ',
      '[x] ',
    ]);
    expect(page.runs[1]).toMatchObject({ x: 110, w: 50 });
    expect(page.runs[2]).toMatchObject({ x: 220, w: 50 });
    expect(page.rules).toEqual(rules);
  });

  it('adds the rules found on the image to those the OCR found', () => {
    // Arrange
    const own = { x1: 700, y1: 30, x2: 700, y2: 70 };
    const page = { ...row(), rules: [own] };
    // Act
    const cleaned = withoutRuleGlyphs(page, rules);
    // Assert
    expect(cleaned.rules).toEqual([own, ...rules]);
  });

  it('keeps unbalanced brackets away from rules and cuts bars off words without rules', () => {
    // Act
    const page = withoutRuleGlyphs(row(), []);
    // Assert
    expect(page.runs.map((r) => r.text)).toEqual([
      '| ',
      '0.931 ',
      '[0.859 ',
      '(Type ',
      '(a) ',
      '[x] ',
    ]);
  });
});
