import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, TextRun } from '../../../../functions/engines/layout/types.js';

const BODY = 20;
const CHAR = 9;

/** The runs of a text-layer line at (x, baseline), 9 px per character at body size. */
const line = (text: string, x: number, baseline: number, fontSize = BODY): TextRun[] => [
  {
    text,
    x,
    y: baseline - 0.75 * fontSize,
    w: text.length * CHAR * (fontSize / BODY),
    h: fontSize,
    baseline,
    fontSize,
    fontName: 'Body',
    bold: false,
    italic: false,
    monospace: false,
  },
];

const markdownOf = (runs: TextRun[]): string => {
  const p: PageText = {
    pageNumber: 1,
    width: 1700,
    height: 2200,
    dpi: 200,
    runs,
    rules: [],
    images: [],
  };
  return layoutPage(p, buildLayoutProfile([p])).markdown;
};

/** Lines of body text from x = 100. */
const prose = (top: number, count: number): TextRun[] =>
  Array.from({ length: count }, (_, i) =>
    line(
      'the quick brown fox jumps over the lazy dog and keeps on running across the field',
      100,
      top + i * 24,
    ),
  ).flat();

describe('larger lines that start in lowercase', () => {
  it('are not headings: they end a wrapped line', () => {
    // Arrange: a blurb set larger than the body, its second line on its own.
    const runs = [
      ...line('Leverage Row Permissions on', 100, 200, 28),
      ...line('the database', 100, 300, 28),
      ...prose(400, 8),
    ];

    // Act
    const md = markdownOf(runs);

    // Assert
    expect(md).toMatch(/^#+ Leverage Row Permissions on$/m);
    expect(md).not.toMatch(/^#+ the database$/m);
  });
});
