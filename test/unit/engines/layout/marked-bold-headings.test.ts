import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, TextRun } from '../../../../functions/engines/layout/types.js';

const SIZE = 16;
const CHAR = 8;

/** A text-layer run at (x, baseline), 8 px per character. */
const run = (
  text: string,
  x: number,
  baseline: number,
  bold: boolean,
  fontName: string,
): TextRun => ({
  text,
  x,
  y: baseline - 0.8 * SIZE,
  w: text.length * CHAR,
  h: SIZE,
  baseline,
  fontSize: SIZE,
  fontName,
  bold,
  italic: false,
  monospace: false,
});

/** Runs set one after the other from x. */
const row = (x: number, baseline: number, parts: [string, boolean, string][]): TextRun[] => {
  let cursor = x;
  return parts.map(([text, bold, font]) => {
    const r = run(text, cursor, baseline, bold, font);
    cursor += r.w;
    return r;
  });
};

const markdownOf = (runs: TextRun[]): string => {
  const p: PageText = {
    pageNumber: 1,
    width: 1190,
    height: 1684,
    dpi: 144,
    runs,
    rules: [],
    images: [],
  };
  return layoutPage(p, buildLayoutProfile([p])).markdown;
};

const prose = (top: number, count: number): TextRun[] =>
  Array.from({ length: count }, (_, i) =>
    row(100, top + i * 22, [
      [
        'the quick brown fox jumps over the lazy dog and keeps on running across the field',
        false,
        'Arial',
      ],
    ]),
  ).flat();

describe('bold lines behind a dingbat marker', () => {
  it('are headings of their own, though the marker and a symbol in them are not bold', () => {
    // Arrange: two bold lines, each behind an unmapped Webdings glyph; the first holds a `√`
    // and a `*` from a plain CJK font.
    const runs = [
      ...prose(200, 6),
      ...row(85, 400, [
        ['\u001f', false, 'Webdings'],
        ['Rated Continuous Working Voltage(RCWV) = ', true, 'Arial-BoldMT'],
        ['√', false, 'PMingLiU'],
        ['P', true, 'Arial-BoldMT'],
        ['*', false, 'PMingLiU'],
        ['R', true, 'Arial-BoldMT'],
      ]),
      ...row(85, 423, [
        ['\u001f', false, 'Webdings'],
        ['Storage Temperature: 25±3°C; Humidity < 80%RH', true, 'Arial-BoldMT'],
      ]),
      ...prose(480, 6),
    ];

    // Act
    const md = markdownOf(runs);

    // Assert
    expect(md).toMatch(/^#+ Rated Continuous Working Voltage\(RCWV\) = √P\\\*R$/m);
    expect(md).toMatch(/^#+ Storage Temperature: 25±3°C; Humidity < 80%RH$/m);
  });

  it('make plain lines behind them list items that keep their first word', () => {
    // Arrange
    const runs = [
      ...prose(200, 6),
      ...row(85, 400, [
        ['\u001f', false, 'Webdings'],
        ['Apply the rated voltage for one minute at room temperature', false, 'Arial'],
      ]),
      ...row(85, 423, [
        ['\u001f', false, 'Webdings'],
        ['Keep the parts dry and away from direct sunlight', false, 'Arial'],
      ]),
      ...prose(480, 6),
    ];

    // Act
    const md = markdownOf(runs);

    // Assert
    expect(md).toMatch(/^- Apply the rated voltage for one minute at room temperature$/m);
    expect(md).toMatch(/^- Keep the parts dry and away from direct sunlight$/m);
  });
});
