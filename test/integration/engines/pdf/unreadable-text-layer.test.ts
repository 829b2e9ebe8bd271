/**
 * Text layers that do not say what the page shows: glyphs mapped to bidirectional overrides or
 * zero-width controls, to combining marks with no letter under them, or text set off the page.
 * Their text is left out or counted as garbage (which sends the page to OCR, and lowers its
 * `ocr_score`), so that they are never graded as a faithful reading.
 */
import { describe, expect, it } from 'vitest';
import { extractPdfiumPage } from '../../../../functions/engines/pdf/pdfium-page-text.js';
import { loadPdfium, PdfiumDocument } from '../../../../functions/engines/pdf/pdfium.js';
import { textPdf } from '../../../support/builders.js';

const SENTENCE = 'The quarterly revenue was 4210 dollars';
const BODY = `BT /F1 12 Tf 72 700 Td (${SENTENCE}) Tj ET`;

const extract = async (bytes: Uint8Array) => {
  const reader = PdfiumDocument.open(await loadPdfium(), bytes);
  try {
    return extractPdfiumPage(reader, 1, 72);
  } finally {
    reader.close();
  }
};

/** A ToUnicode map of every ASCII letter to `map(code)` (UTF-16BE hex), digits to themselves. */
const lettersTo = (map: (code: number) => string): Map<number, string> => {
  const entries = new Map<number, string>();
  for (let c = 0x20; c < 0x7f; c++) {
    const letter = /[A-Za-z]/.test(String.fromCharCode(c));
    entries.set(c, letter ? map(c) : c.toString(16).toUpperCase().padStart(4, '0'));
  }
  return entries;
};
const hex4 = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');

describe('a text layer that does not say what the page shows', () => {
  it('leaves out bidirectional overrides and zero-width spaces, and counts them as garbage', async () => {
    // Arrange: each letter maps to RIGHT-TO-LEFT OVERRIDE, the letter, ZERO WIDTH SPACE.
    const pdf = textPdf(
      BODY,
      lettersTo((c) => `202E${hex4(c)}200B`),
    );
    // Act
    const page = await extract(pdf);
    // Assert
    const text = page.text.runs.map((r) => r.text).join(' ');
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b]/u);
    expect(text).toContain('quarterly');
    expect(page.stats.garbageChars / page.stats.chars).toBeGreaterThan(0.4);
  });

  it('counts combining marks with no letter under them as garbage', async () => {
    // Arrange: every letter maps to COMBINING ACUTE ACCENT.
    const page = await extract(
      textPdf(
        BODY,
        lettersTo(() => '0301'),
      ),
    );
    // Assert
    expect(page.stats.garbageChars / page.stats.chars).toBeGreaterThan(0.8);
  });

  it('keeps marks that sit on a letter (Devanagari vowel signs) as text, not garbage', async () => {
    // Arrange: upper-case letters map to KA (a letter), lower-case ones to the vowel sign AA.
    const page = await extract(
      textPdf(
        BODY,
        lettersTo((c) => (c < 0x61 ? '0915' : '0915093E')),
      ),
    );
    // Assert
    expect(page.stats.garbageChars).toBe(0);
    expect(page.text.runs.map((r) => r.text).join('')).toContain('\u0915\u093e');
  });

  it('leaves out text set wholly off the page, counted as invisible', async () => {
    // Arrange: the sentence at (-5000, -5000), and one line on the page.
    const pdf = textPdf(
      `BT /F1 12 Tf -5000 -5000 Td (${SENTENCE}) Tj ET BT /F1 12 Tf 72 700 Td (On the page) Tj ET`,
    );
    // Act
    const page = await extract(pdf);
    // Assert
    expect(page.text.runs.map((r) => r.text)).toEqual(['On the page']);
    expect(page.stats.invisibleGlyphs).toBeGreaterThanOrEqual(SENTENCE.replace(/ /g, '').length);
  });
});
