import { describe, expect, it } from 'vitest';
import type { TextRun } from '../../../../functions/engines/layout/types.js';
import { pageFeatures } from '../../../../functions/engines/pdf/page-features.js';
import type { ExtractedPage } from '../../../../functions/engines/pdf/page-text.js';

const run = (text: string, y: number): TextRun => ({
  text,
  x: 72,
  y,
  w: 6 * text.length,
  h: 12,
  baseline: y + 10,
  fontSize: 10,
  fontName: 'Times-Roman',
  bold: false,
  italic: false,
  monospace: false,
});

/** A Letter page at 72 DPI whose text layer reads `rawText`, `garbageChars` of it unreadable. */
const page = (rawText: string, garbageChars: number): ExtractedPage => {
  const lines = rawText.split('\n');
  const chars = rawText.replace(/\s/g, '').length;
  return {
    text: {
      pageNumber: 1,
      width: 612,
      height: 792,
      dpi: 72,
      runs: lines.map((l, i) => run(l, 72 + 14 * i)),
      rules: [],
      images: [],
    },
    stats: {
      chars,
      garbageChars,
      mathChars: 0,
      glyphs: chars,
      invisibleGlyphs: 0,
      paintedPaths: 0,
      ruleCount: 0,
      fonts: ['Times-Roman'],
      rawText,
      scanDpi: null,
    },
    widthPt: 612,
    heightPt: 792,
  };
};

const PROSE = 'The shaded regions show the 15th and 85th percentiles of the simulated galaxies.';

describe('pageFeatures', () => {
  it('keeps the text layer of a page whose chart labels are read without a Unicode mapping', () => {
    // Arrange: a third of the characters come from a chart font without ToUnicode; they read
    // as digits, so none of them is a private-use or replacement character.
    const labels = Array.from({ length: 40 }, (_, i) => `10 ${String(35 + i)}`).join('\n');
    const text = `${labels}\n${PROSE}\n${PROSE}`;
    const chars = text.replace(/\s/g, '').length;
    // Act
    const features = pageFeatures(page(text, Math.round(chars * 0.34)));
    // Assert
    expect(features.usableTextLayer).toBe(true);
    expect(features.garbageRatio).toBeCloseTo(0.34, 2);
  });

  it('refuses the text layer of a page whose characters are all read without a mapping', () => {
    // Arrange
    const text = `${PROSE}\n${PROSE}`;
    // Act
    const features = pageFeatures(page(text, text.replace(/\s/g, '').length));
    // Assert
    expect(features.usableTextLayer).toBe(false);
  });

  it('refuses the text layer of a page where a quarter of the characters are private-use glyphs', () => {
    // Arrange
    const unreadable = '\ue001\ue002\ue003\ue004\ue005'.repeat(8);
    const text = `${PROSE}\n${unreadable}`;
    // Act
    const features = pageFeatures(page(text, unreadable.length));
    // Assert
    expect(features.usableTextLayer).toBe(false);
  });
});
