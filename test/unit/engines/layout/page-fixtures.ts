import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, TextRun } from '../../../../functions/engines/layout/types.js';

/** Font size (px) of {@link run}'s text unless given. */
export const SIZE = 10;
/** Advance (px) of one character at {@link SIZE}. */
export const CHAR = 5;

/**
 * A run of text at (x, baseline) on a 72 DPI page: 10 px font, 5 px per character (scaled with
 * `extra.fontSize`), box from 0.8 em above the baseline, regular `Body` font unless `extra` says.
 */
export const run = (
  text: string,
  x: number,
  baseline: number,
  extra: Partial<TextRun> = {},
): TextRun => {
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

/** A US Letter page at 72 DPI (612 × 792 px) holding `runs`, without rules or images unless given. */
export const page = (runs: TextRun[], extra: Partial<PageText> = {}): PageText => ({
  pageNumber: 1,
  width: 612,
  height: 792,
  dpi: 72,
  runs,
  rules: [],
  images: [],
  ...extra,
});

/** Body lines of a paragraph at `x` from `baseline` down, 12 px apart. */
export const paragraph = (
  x: number,
  baseline: number,
  n: number,
  words = 'the body text goes on',
): TextRun[] =>
  Array.from({ length: n }, (_, i) =>
    run(`Line ${i} of ${words} here with several more words to fill`, x, baseline + i * 12),
  );

/** The Markdown of a page of `runs` ({@link page}, `extra` overriding) laid out with its own profile. */
export const markdownOf = (runs: TextRun[], extra: Partial<PageText> = {}): string => {
  const p = page(runs, extra);
  return layoutPage(p, buildLayoutProfile([p])).markdown;
};
