import type { PageText, TextRun } from '../../../../functions/engines/layout/types.js';

/** Font size (px) of a scanned page's body words at 200 DPI. */
export const OCR_SIZE = 20;
/** Advance (px) of one character at {@link OCR_SIZE}. */
export const OCR_CHAR = 9;
/** Gap (px) between the words of a line at {@link OCR_SIZE}. */
export const WORD_GAP = 8;

/** Options of {@link ocrWord} and {@link ocrLine}. */
export interface WordOptions {
  /** Font size (px); widths and gaps scale with it. */
  fontSize?: number;
  /** An OCR word (it carries a confidence, no font name), else a text-layer run. */
  ocr?: boolean;
}

/** A word at (x, baseline) on a 200 DPI scan, 9 px per character at 20 px, box from 0.75 em up. */
export const ocrWord = (
  text: string,
  x: number,
  baseline: number,
  { fontSize = OCR_SIZE, ocr = true }: WordOptions = {},
): TextRun => ({
  text: `${text} `,
  x,
  y: baseline - 0.75 * fontSize,
  w: text.length * OCR_CHAR * (fontSize / OCR_SIZE),
  h: fontSize,
  baseline,
  fontSize,
  fontName: ocr ? '' : 'Body',
  bold: false,
  italic: false,
  monospace: false,
  ...(ocr ? { confidence: 0.9 } : {}),
});

/** The words of a line starting at x, separated by normal word gaps. */
export const ocrLine = (
  text: string,
  x: number,
  baseline: number,
  options: WordOptions = {},
): TextRun[] => {
  const scale = (options.fontSize ?? OCR_SIZE) / OCR_SIZE;
  const runs: TextRun[] = [];
  let cursor = x;
  for (const t of text.split(' ')) {
    const r = ocrWord(t, cursor, baseline, options);
    runs.push(r);
    cursor += r.w + WORD_GAP * scale;
  }
  return runs;
};

/** A US Letter page scanned at 200 DPI (1700 × 2200 px) holding `runs`. */
export const scanPage = (runs: TextRun[]): PageText => ({
  pageNumber: 1,
  width: 1700,
  height: 2200,
  dpi: 200,
  runs,
  rules: [],
  images: [],
});
