import type { MathRun } from '../../../../functions/engines/math/latex.js';

/** A glyph run at (x, baseline): `size` px font, half an em per character, 0.75 em ascent. */
export const glyphs = (
  text: string,
  x: number,
  baseline: number,
  size = 10,
  fontName = 'CMMI10',
): MathRun => ({
  text,
  x,
  y: baseline - 0.75 * size,
  w: Array.from(text).length * 0.5 * size,
  h: size,
  baseline,
  fontSize: size,
  fontName,
  bold: false,
  italic: false,
  monospace: false,
});
