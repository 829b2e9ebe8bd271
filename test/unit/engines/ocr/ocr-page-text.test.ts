import { describe, expect, it } from 'vitest';
import {
  characterWeightedConfidence,
  ocrToPageText,
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

const result = (words: OcrWord[]): OcrResult => ({ width: 1000, height: 800, words, scale: 1 });

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

  it('snaps line sizes close to the body size and keeps larger ones', () => {
    // Arrange
    const ocr = result([
      word('Title', 100, 20, { fontSize: 48, lineId: 1 }),
      word('body', 100, 100, { fontSize: 24, lineId: 2 }),
      word('text', 150, 100, { fontSize: 24, lineId: 2 }),
      word('goes', 200, 100, { fontSize: 24, lineId: 2 }),
      word('on', 100, 140, { fontSize: 25.5, lineId: 3 }),
    ]);
    // Act
    const page = ocrToPageText(ocr, { pageNumber: 1, width: 1000, height: 800, dpi: 300 });
    // Assert
    expect(page.runs.map((run) => run.fontSize)).toEqual([48, 24, 24, 24, 24]);
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
