import { describe, expect, it } from 'vitest';
import { texPage, type Glyphs } from '../../../support/tex-pdf.js';

/**
 * CMEX text objects that PDFium's text page leaves out are read as CMEX's code 0x20 (the largest
 * `(`, U+2420 here), which PDFium reads as a space. PDFium also leaves out a glyph drawn again
 * over itself, and many such objects on a page would each become a run of their own.
 */

const cmex = (text: string, x: number, y: number): Glyphs => ({
  text,
  font: 'CMEX10',
  size: 10,
  x,
  y,
});

const BIGG_PAREN = '\u2420';

describe('CMEX glyphs the text page leaves out', () => {
  it('reads a CMEX glyph drawn three times over itself (poor man’s bold) as one glyph', async () => {
    // Arrange: CMEX's 0x50 (a text-style sum) at its place and a third of a point off it.
    const glyphs = [cmex('P', 100, 100), cmex('P', 100.3, 100), cmex('P', 100, 100.3)];
    // Act
    const page = await texPage(glyphs);
    // Assert
    expect(page.runs.map((r) => r.text.trim())).toEqual(['P']);
    expect(page.runs.some((r) => r.text.includes(BIGG_PAREN))).toBe(false);
  });

  it('still reads the largest ( (code 0x20) drawn once', async () => {
    // Act
    const page = await texPage([cmex('P', 100, 100), cmex(' ', 200, 100)]);
    // Assert
    expect(page.runs.filter((r) => r.text === BIGG_PAREN)).toHaveLength(1);
  });

  it('makes at most 100 glyphs of thousands of such objects on one page', async () => {
    // Arrange: 3,000 objects drawing code 0x20, each at a place of its own.
    const glyphs = Array.from({ length: 3_000 }, (_, i) =>
      cmex(' ', 10 + (i % 60) * 6, 10 + Math.floor(i / 60) * 3.6),
    );
    // Act
    const page = await texPage(glyphs);
    // Assert
    const unlisted = page.runs.filter((r) => r.text === BIGG_PAREN && r.w === 0);
    expect(unlisted.length).toBeLessThanOrEqual(100);
  });
});
