import { rowText, type Fragment, type Row } from './lines.js';
import type { PageText, Rect, TextRun } from './types.js';

/** Text boxes covering at least this share of an image make it a backdrop of the text. */
const BACKDROP_COVER = 0.15;
/** An image at most this many times as high as the text on it is a band behind a line or two. */
const BAND_LINES = 3;

const inside = (x: number, y: number, im: Rect): boolean =>
  x > im.x && x < im.x + im.w && y > im.y && y < im.y + im.h;

/**
 * Whether `im` is a backdrop rather than a picture: a shaded box or band drawn as an image behind
 * text (a numbered section title on a coloured band, an abstract in a tinted box, a back cover's
 * blurb over a photograph), whose text is page text. It is when the runs centred on it cover at
 * least 15% of its area, or when it is at most three times as high as their largest font size.
 * Labels on a chart or a photograph cover far less.
 */
const isBackdrop = (im: Rect, runs: readonly TextRun[]): boolean => {
  let area = 0;
  let size = 0;
  for (const r of runs) {
    if (r.text.trim() === '' || !inside(r.x + r.w / 2, r.y + r.h / 2, im)) continue;
    area += r.w * r.h;
    size = Math.max(size, r.fontSize);
  }
  return size > 0 && (area >= BACKDROP_COVER * im.w * im.h || im.h <= BAND_LINES * size);
};

/**
 * Figures stage: the placed raster images of a page read as figures, i.e. neither page-sized
 * (scans, backgrounds: half the page or more) nor icons (8 pt or less on a side) nor backdrops
 * of text (see {@link isBackdrop}). Rects in pixels of the page image; `scale` is pixels per
 * point.
 */
export const placedFigures = (page: PageText, scale: number): Rect[] =>
  page.images.filter(
    (im) =>
      im.w * im.h < page.width * page.height * 0.5 &&
      im.w > 8 * scale &&
      im.h > 8 * scale &&
      !isBackdrop(im, page.runs),
  );

/** The index in `figures` of the figure holding the centre of `f`, -1 when none does. */
const figureOf = (f: Fragment, figures: readonly Rect[]): number =>
  figures.findIndex((im) => inside((f.x0 + f.x1) / 2, (f.y0 + f.y1) / 2, im));

/** A caption's opening: `Figure 3-11`, `Fig. 2`, `Table IV`, `Chart 1`. */
const CAPTION = /^(?:Figure|Fig\.|Table|Chart|Exhibit|Plate|Scheme|Listing)\s*[\dIVX]/;

/**
 * The text drawn over each figure, and the fragments it takes out of the page's body: a
 * fragment whose centre lies inside a figure is part of it (a label on a diagram, a name on a
 * cover picture), kept as the figure's text. A caption row (`Figure 3-11 Selecting …`) set
 * inside the figure's top or bottom edge, within two of its lines of the edge, stays page text.
 *
 * @param rows the page's body rows, top to bottom.
 * @returns per figure (same order as `figures`) its text, rows joined by line breaks, and the
 *   fragments taken into the figures.
 */
export const figureTexts = (
  rows: readonly Row[],
  figures: readonly Rect[],
): { texts: string[]; members: Set<Fragment> } => {
  const lines: string[][] = figures.map(() => []);
  const members = new Set<Fragment>();
  for (const row of rows) {
    const first = row.fragments[0];
    if (!first) continue;
    const home = figureOf(first, figures);
    const im = figures[home];
    const edge = 2 * row.fontSize;
    if (
      im &&
      CAPTION.test(rowText(row).trim()) &&
      (row.y0 - im.y < edge || im.y + im.h - row.y1 < edge)
    ) {
      continue;
    }
    const parts = new Map<number, string[]>();
    for (const f of row.fragments) {
      const k = figureOf(f, figures);
      if (k < 0) continue;
      members.add(f);
      parts.set(k, [...(parts.get(k) ?? []), f.text.trim()]);
    }
    for (const [k, texts] of parts) lines[k]?.push(texts.join(' '));
  }
  return { texts: lines.map((l) => l.filter((t) => t !== '').join('\n')), members };
};
