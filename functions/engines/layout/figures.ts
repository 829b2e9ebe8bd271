import type { Fragment } from './lines.js';
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

/** Whether the centre of `f` lies inside one of `figures` (text drawn over a figure is part of it). */
export const insideFigure = (f: Fragment, figures: readonly Rect[]): boolean => {
  const cx = (f.x0 + f.x1) / 2;
  const cy = (f.y0 + f.y1) / 2;
  return figures.some((im) => inside(cx, cy, im));
};
