import { describe, expect, it } from 'vitest';
import { buildRows, rowText } from '../../../../functions/engines/layout/lines.js';
import type { TextRun } from '../../../../functions/engines/layout/types.js';

/** An OCR word (it carries a confidence) at (x, baseline), 0.55 em per character. */
const word = (text: string, x: number, baseline: number, fontSize: number): TextRun => ({
  text: `${text} `,
  x,
  y: baseline - 0.7 * fontSize,
  w: text.length * 0.55 * fontSize,
  h: 0.7 * fontSize,
  baseline,
  fontSize,
  fontName: '',
  bold: false,
  italic: false,
  monospace: false,
  confidence: 0.95,
});

/** The words of a line starting at x, a third of an em apart. */
const line = (text: string, x: number, baseline: number, fontSize: number): TextRun[] => {
  const runs: TextRun[] = [];
  let cursor = x;
  for (const t of text.split(' ')) {
    const r = word(t, cursor, baseline, fontSize);
    runs.push(r);
    cursor += r.w + fontSize / 3;
  }
  return runs;
};

describe('rows of OCR words', () => {
  it('keeps two lines of a form apart when a larger label of the other column sits between their baselines', () => {
    // Arrange: a form's right column has two lines 15 px apart (13.5 px words); in the left
    // column, far to the left, a banner label set larger (17.8 px) has its baseline between
    // them, 10.3 px under the first.
    const runs = [
      ...line('Trailer Number:', 379, 225.2, 13.5),
      ...line('Ship To', 171, 235.5, 17.8),
      ...line('Seal Number(s):', 379, 240.3, 13.5),
    ];
    // Act
    const rows = buildRows(runs).map(rowText);
    // Assert
    expect(rows).toContain('Trailer Number:');
    expect(rows.some((r) => r.includes('Seal Number(s):') && !r.includes('Trailer'))).toBe(true);
  });
});
