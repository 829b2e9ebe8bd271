import type { Fragment } from './lines.js';
import type { PageText, Rect } from './types.js';

/**
 * Figures stage: the placed raster images of a page read as figures, i.e. neither page-sized
 * (scans, backgrounds: half the page or more) nor icons (8 pt or less on a side). Rects in pixels
 * of the page image; `scale` is pixels per point.
 */
export const placedFigures = (page: PageText, scale: number): Rect[] =>
  page.images.filter(
    (im) => im.w * im.h < page.width * page.height * 0.5 && im.w > 8 * scale && im.h > 8 * scale,
  );

/** Whether the centre of `f` lies inside one of `figures` (text drawn over a figure is part of it). */
export const insideFigure = (f: Fragment, figures: readonly Rect[]): boolean => {
  const cx = (f.x0 + f.x1) / 2;
  const cy = (f.y0 + f.y1) / 2;
  return figures.some((im) => cx > im.x && cx < im.x + im.w && cy > im.y && cy < im.y + im.h);
};
