import type { PageText } from './types.js';

/**
 * Rescales a page's geometry to another DPI (boxes, baselines, font sizes, rules, images).
 *
 * @returns a new PageText at `dpi`; `page` is left unchanged.
 */
export const scalePageText = (page: PageText, dpi: number): PageText => {
  const k = dpi / page.dpi;
  if (k === 1) return page;
  return {
    pageNumber: page.pageNumber,
    width: Math.max(1, Math.round(page.width * k)),
    height: Math.max(1, Math.round(page.height * k)),
    dpi,
    runs: page.runs.map((r) => ({
      ...r,
      x: r.x * k,
      y: r.y * k,
      w: r.w * k,
      h: r.h * k,
      baseline: r.baseline * k,
      fontSize: r.fontSize * k,
    })),
    rules: page.rules.map((s) => ({ x1: s.x1 * k, y1: s.y1 * k, x2: s.x2 * k, y2: s.y2 * k })),
    images: page.images.map((im) => ({ x: im.x * k, y: im.y * k, w: im.w * k, h: im.h * k })),
  };
};
