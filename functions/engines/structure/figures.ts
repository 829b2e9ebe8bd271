import type { TextBlock } from '../layout/layout-page.js';
import type { Rect } from '../layout/types.js';
import { connectedGroups } from '../connected-groups.js';

/** A caption that names a figure (or a table set as an image): `Figure 2:`, `Fig. 3.`, `Table 1`. */
const FIGURE_CAPTION = /^(?:fig(?:ure)?\.?|table)\s*(?:[\dIVX]+|[A-Z]\.?\d*)/i;
/** Captions starting with `Table` are a figure's only when no `Figure` caption is as close. */
const TABLE_CAPTION = /^table/i;

/**
 * Pairs figures with their captions: for each figure, the nearest caption block starting with
 * "Figure", "Fig." or "Table" directly below or above it (within the figure's height, at most a
 * third of the page), overlapping it horizontally. Closest pairs are made first and each caption
 * serves one figure; a "Table" caption loses against a "Figure" one up to twice its distance
 * (tables usually carry their own caption).
 *
 * @returns the caption text of each figure, in the order of `figures` ('' when none).
 */
export const matchCaptions = (
  figures: readonly Rect[],
  captions: readonly TextBlock[],
  pageHeight: number,
): string[] => {
  const candidates: { figure: number; caption: number; score: number }[] = [];
  figures.forEach((f, fi) => {
    const reach = Math.min(Math.max(f.h, 0.05 * pageHeight), pageHeight / 3);
    captions.forEach((c, ci) => {
      const text = c.text.trim();
      if (!FIGURE_CAPTION.test(text)) return;
      const overlap = Math.min(f.x + f.w, c.x1) - Math.max(f.x, c.x0);
      if (overlap <= 0) return;
      const below = c.y0 - (f.y + f.h);
      const above = f.y - c.y1;
      // A caption may touch or slightly overlap its figure's box.
      const distance = below >= -0.1 * f.h ? below : above >= -0.1 * f.h ? above : null;
      if (distance === null || distance > reach) return;
      const score = Math.max(0, distance) * (TABLE_CAPTION.test(text) ? 2 : 1);
      candidates.push({ figure: fi, caption: ci, score });
    });
  });
  candidates.sort((a, b) => a.score - b.score);
  const out = figures.map(() => '');
  const taken = new Set<number>();
  const done = new Set<number>();
  for (const { figure, caption } of candidates) {
    if (done.has(figure) || taken.has(caption)) continue;
    out[figure] = (captions[caption]?.text ?? '').replace(/\s+/g, ' ').trim();
    done.add(figure);
    taken.add(caption);
  }
  return out;
};

/**
 * Joins the images of one figure: images that overlap, or touch within `tolerance` pixels
 * (a picture stored as strips or tiles, a photo with an inset, the same image drawn twice),
 * become one figure with their union box.
 *
 * @returns the figures, top to bottom.
 */
export const groupFigures = (images: readonly Rect[], tolerance: number): Rect[] => {
  const groups = connectedGroups(images, (a, b) => {
    const gapX = Math.max(a.x, b.x) - Math.min(a.x + a.w, b.x + b.w);
    const gapY = Math.max(a.y, b.y) - Math.min(a.y + a.h, b.y + b.h);
    return gapX <= tolerance && gapY <= tolerance;
  });
  return groups
    .map((group) => {
      const x0 = Math.min(...group.map((r) => r.x));
      const y0 = Math.min(...group.map((r) => r.y));
      const x1 = Math.max(...group.map((r) => r.x + r.w));
      const y1 = Math.max(...group.map((r) => r.y + r.h));
      return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
    })
    .sort((a, b) => a.y - b.y || a.x - b.x);
};
