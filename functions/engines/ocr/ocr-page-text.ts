import type { PageText, TextRun } from '../layout/types.js';
import type { OcrResult, OcrWord } from './tesseract-ocr.js';

/** The page image the OCR result refers to. */
export interface OcrPageGeometry {
  pageNumber: number;
  /** Page image size in pixels (the size of the image that was recognised). */
  width: number;
  height: number;
  dpi: number;
}

/**
 * Turns OCR words into the input of the shared layout analysis: one run per word (followed by a
 * space), in pixels of the page image, with the word's confidence.
 *
 * Font sizes come from the line height (see {@link OcrWord.fontSize}); within a line they are
 * made equal, and sizes within 8% of the page's median line size are snapped to it, so that OCR
 * jitter does not read as headings. Style flags are false: tesseract's LSTM engine does not
 * report bold, italic or monospace.
 *
 * @returns a PageText with no rules and no images.
 */
export function ocrToPageText(result: OcrResult, geometry: OcrPageGeometry): PageText {
  const sx = result.width > 0 ? geometry.width / result.width : 1;
  const sy = result.height > 0 ? geometry.height / result.height : 1;
  const bodySize = median(characterSizes(result.words)) * sy;

  const runs = result.words.map((word): TextRun => {
    let fontSize = word.fontSize * sy;
    if (bodySize > 0 && Math.abs(fontSize - bodySize) <= bodySize * 0.08) fontSize = bodySize;
    return {
      // OCR words are whole words: the trailing space keeps narrow word gaps (small print) from
      // being read as letter spacing when the layout joins runs.
      text: `${word.text} `,
      x: word.bbox.x * sx,
      y: word.bbox.y * sy,
      w: word.bbox.w * sx,
      h: word.bbox.h * sy,
      baseline: word.baseline * sy,
      fontSize,
      fontName: '',
      bold: false,
      italic: false,
      monospace: false,
      confidence: word.confidence,
    };
  });
  return {
    pageNumber: geometry.pageNumber,
    width: geometry.width,
    height: geometry.height,
    dpi: geometry.dpi,
    runs,
    rules: [],
    images: [],
  };
}

/**
 * Mean word confidence weighted by characters, in [0, 1]; null when nothing was recognised.
 */
export function characterWeightedConfidence(words: readonly OcrWord[]): number | null {
  let chars = 0;
  let sum = 0;
  for (const word of words) {
    const n = Array.from(word.text).length;
    chars += n;
    sum += n * word.confidence;
  }
  return chars === 0 ? null : sum / chars;
}

/** The font size of every recognised character (a size weighted by characters). */
function characterSizes(words: readonly OcrWord[]): number[] {
  const sizes: number[] = [];
  for (const word of words) {
    for (let i = 0; i < word.text.length; i++) sizes.push(word.fontSize);
  }
  return sizes;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
