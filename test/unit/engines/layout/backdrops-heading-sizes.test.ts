import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, Rect, TextRun } from '../../../../functions/engines/layout/types.js';

const SIZE = 10;
const CHAR = 5;

/** A run of text at (x, baseline) in a 72 DPI page, 10 px font, 5 px per character. */
const run = (text: string, x: number, baseline: number, extra: Partial<TextRun> = {}): TextRun => {
  const size = extra.fontSize ?? SIZE;
  return {
    text,
    x,
    y: baseline - 0.8 * size,
    w: text.length * CHAR * (size / SIZE),
    h: size,
    baseline,
    fontSize: size,
    fontName: 'Body',
    bold: false,
    italic: false,
    monospace: false,
    ...extra,
  };
};

const page = (runs: TextRun[], images: Rect[] = [], pageNumber = 1): PageText => ({
  pageNumber,
  width: 612,
  height: 792,
  dpi: 72,
  runs,
  rules: [],
  images,
});

const layout = (p: PageText) => layoutPage(p, buildLayoutProfile([p])).markdown;

/** Body lines of a paragraph from `baseline` down, 12 px apart. */
const paragraph = (
  x: number,
  baseline: number,
  n: number,
  words = 'the body text goes on',
): TextRun[] =>
  Array.from({ length: n }, (_, i) =>
    run(`Line ${i} of ${words} here with several more words to fill`, x, baseline + i * 12),
  );

describe('text over a backdrop image', () => {
  it('keeps a section title drawn on a shaded band', () => {
    // Arrange: the band is an image two lines high behind `1 Introduction`.
    const runs = [
      run('1', 60, 100, { fontSize: 13, bold: true }),
      run('Introduction', 80, 100, { fontSize: 13, bold: true }),
      ...paragraph(50, 130, 6),
    ];
    const band = { x: 50, y: 85, w: 240, h: 28 };
    // Act
    const markdown = layout(page(runs, [band]));
    // Assert
    expect(markdown).toMatch(/^## 1 Introduction\n\nLine 0/);
  });

  it('still reads the labels of a picture as part of the figure', () => {
    // Arrange
    const runs = [run('Nut case', 420, 460), ...paragraph(50, 100, 4)];
    const picture = { x: 400, y: 400, w: 190, h: 110 };
    // Act
    const markdown = layout(page(runs, [picture]));
    // Assert
    expect(markdown).not.toContain('Nut case');
  });
});

describe('buildLayoutProfile heading sizes', () => {
  it('leaves out sizes found on one page only, except the largest', () => {
    // Arrange: a cover with display sizes, then pages with 14 pt section titles.
    const cover = page([
      run('Big Title', 50, 100, { fontSize: 40 }),
      run('Cover slogan one', 50, 160, { fontSize: 30 }),
      ...paragraph(50, 200, 3),
    ]);
    const body = (n: number) =>
      page([run('1.1 Section', 50, 100, { fontSize: 14 }), ...paragraph(50, 130, 10)], [], n);
    // Act
    const profile = buildLayoutProfile([cover, body(2), body(3)]);
    // Assert
    expect(profile.headingSizes).toEqual([40, 14]);
  });
});
