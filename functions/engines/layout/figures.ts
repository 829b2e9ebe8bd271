import { CAPTION, type Edges } from './block.js';
import { isRotated, rowText, type Fragment, type Row } from './lines.js';
import type { PageText, Rect, Segment, TextRun } from './types.js';

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

/**
 * Drawn segments within this many of its font sizes of a rotated label, or a third of an inch
 * (small print), put it among graphics.
 */
const LABEL_REACH = 4;
const LABEL_REACH_POINTS = 24;
/** How many drawn segments around a rotated label make it part of a drawing. */
const LABEL_SEGMENTS = 3;

/** A vector drawing's labels and its box (pixels of the page image). */
export interface DrawnFigure {
  box: Rect;
  text: string;
}

/**
 * Rotated labels of vector drawings: a fragment of rotated text only (an axis label or tick
 * value of a plot set up its side), not claimed by a table, with at least three drawn segments
 * within four of its font sizes (a third of an inch at least), is part of a drawing and not body text. Labels whose drawings
 * overlap make one figure; its box spans the labels and the segments around them, its text the
 * labels left to right.
 *
 * @param rows the page's body rows; `skip` tells fragments already placed elsewhere; `scale`
 *   is pixels per point.
 */
export const drawnFigureLabels = (
  rows: readonly Row[],
  rules: readonly Segment[],
  skip: (f: Fragment) => boolean,
  scale: number,
): { figures: DrawnFigure[]; members: Set<Fragment> } => {
  const groups: { box: Edges; labels: Fragment[] }[] = [];
  const members = new Set<Fragment>();
  const labels = rows.flatMap((row) =>
    row.fragments.filter((f) => !skip(f) && f.runs.length > 0 && f.runs.every(isRotated)),
  );
  const rest: Fragment[] = [];
  {
    for (const f of labels) {
      const reach = Math.max(LABEL_REACH * f.fontSize, LABEL_REACH_POINTS * scale);
      const box: Edges = { x0: f.x0, y0: f.y0, x1: f.x1, y1: f.y1 };
      let near = 0;
      for (const s of rules) {
        const sx0 = Math.min(s.x1, s.x2);
        const sx1 = Math.max(s.x1, s.x2);
        const sy0 = Math.min(s.y1, s.y2);
        const sy1 = Math.max(s.y1, s.y2);
        if (sx0 > f.x1 + reach || sx1 < f.x0 - reach || sy0 > f.y1 + reach || sy1 < f.y0 - reach) {
          continue;
        }
        near += 1;
        box.x0 = Math.min(box.x0, sx0);
        box.y0 = Math.min(box.y0, sy0);
        box.x1 = Math.max(box.x1, sx1);
        box.y1 = Math.max(box.y1, sy1);
      }
      if (near < LABEL_SEGMENTS) {
        rest.push(f);
        continue;
      }
      members.add(f);
      let group: { box: Edges; labels: Fragment[] } = { box, labels: [f] };
      // Join every group this label's drawing overlaps (the drawing may link two of them).
      for (let k = groups.length - 1; k >= 0; k -= 1) {
        const g = groups[k];
        if (!g || !overlaps(g.box, group.box)) continue;
        group = { box: union(g.box, group.box), labels: [...g.labels, ...group.labels] };
        groups.splice(k, 1);
      }
      groups.push(group);
    }
  }
  // A label at the end of an axis, past its last tick, lies beside the drawing of the others.
  for (const f of rest) {
    const reach = Math.max(LABEL_REACH * f.fontSize, LABEL_REACH_POINTS * scale);
    const g = groups.find((g) =>
      overlaps(g.box, { x0: f.x0 - reach, y0: f.y0 - reach, x1: f.x1 + reach, y1: f.y1 + reach }),
    );
    if (!g) continue;
    members.add(f);
    g.labels.push(f);
    g.box = union(g.box, f);
  }
  return {
    figures: groups.map((g) => ({
      box: { x: g.box.x0, y: g.box.y0, w: g.box.x1 - g.box.x0, h: g.box.y1 - g.box.y0 },
      text: g.labels
        .slice()
        .sort((a, b) => a.x0 - b.x0 || a.y0 - b.y0)
        .map((f) => f.text.trim())
        .join('\n'),
    })),
    members,
  };
};

const overlaps = (a: Edges, b: Edges): boolean =>
  a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

const union = (a: Edges, b: Edges): Edges => ({
  x0: Math.min(a.x0, b.x0),
  y0: Math.min(a.y0, b.y0),
  x1: Math.max(a.x1, b.x1),
  y1: Math.max(a.y1, b.y1),
});

/** A figure caption's opening (`Figure 3-1`, `Fig. 2:`), not a table's or a listing's. */
const FIGURE_CAPTION =
  /^(?:[Ff]igure|FIGURE|[Ff]ig\.)\s*(?:\d+|[IVX]+)(?:[-.–]\d+)*(?:\s*[.:—–-]|\s+\S|\s*$)/u;

/**
 * Figures drawn as vector graphics inside a frame: a rectangle drawn as four rules (or a shaded
 * box), at most half the page, with a figure caption (`Figure 3-1 …`) set just below or above
 * it, within two of the caption's lines. The text inside is the drawing's (a diagram's labels
 * and callouts, a screenshot of a dialogue drawn as text), like text over a placed image.
 *
 * @param rows the page's body rows (fragments in tables left out), top to bottom.
 * @param rules the page's rule segments; `scale` is pixels per point.
 * @returns the frames, as rects in pixels of the page image.
 */
export const framedFigures = (
  rows: readonly Row[],
  rules: readonly Segment[],
  page: { width: number; height: number },
  scale: number,
): Rect[] => {
  const tol = 2 * scale;
  const horizontal = rules.filter((s) => Math.abs(s.y1 - s.y2) <= tol / 2);
  const vertical = rules.filter((s) => Math.abs(s.x1 - s.x2) <= tol / 2);
  const spans = (s: Segment, from: number, to: number, horizontalSide: boolean): boolean => {
    const a = horizontalSide ? Math.min(s.x1, s.x2) : Math.min(s.y1, s.y2);
    const b = horizontalSide ? Math.max(s.x1, s.x2) : Math.max(s.y1, s.y2);
    return a <= from + tol && b >= to - tol;
  };
  // Rows run across the page: a caption is a fragment of one (the column beside it goes on).
  const captions = rows
    .flatMap((r) => r.fragments)
    .filter((f) => FIGURE_CAPTION.test(f.text.trim()));
  const long = horizontal.filter((s) => Math.abs(s.x2 - s.x1) >= 72 * scale);
  const frames: Rect[] = [];
  if (captions.length === 0) return frames;
  for (const top of long) {
    const x0 = Math.min(top.x1, top.x2);
    const x1 = Math.max(top.x1, top.x2);
    const y0 = top.y1;
    for (const bottom of long) {
      const y1 = bottom.y1;
      if (y1 - y0 < 36 * scale || !spans(bottom, x0, x1, true) || !spans(top, x0, x1, true))
        continue;
      if (Math.abs(Math.min(bottom.x1, bottom.x2) - x0) > tol) continue;
      if (Math.abs(Math.max(bottom.x1, bottom.x2) - x1) > tol) continue;
      if ((x1 - x0) * (y1 - y0) > 0.5 * page.width * page.height) continue;
      const side = (x: number) =>
        vertical.some((s) => Math.abs(s.x1 - x) <= tol && spans(s, y0, y1, false));
      if (!side(x0) || !side(x1)) continue;
      const captioned = captions.some((r) => {
        const reach = 2.5 * r.fontSize;
        const below = r.y0 >= y1 - tol && r.y0 - y1 <= reach;
        const above = r.y1 <= y0 + tol && y0 - r.y1 <= reach;
        return (below || above) && r.x0 >= x0 - reach && r.x0 <= x1;
      });
      if (!captioned) continue;
      if (frames.some((f) => f.x === x0 && f.y === y0 && f.w === x1 - x0 && f.h === y1 - y0))
        continue;
      frames.push({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 });
    }
  }
  // Frames inside another one (a box drawn within the figure) are part of it.
  return frames.filter(
    (f) =>
      !frames.some(
        (g) =>
          g !== f &&
          g.x <= f.x + tol &&
          g.y <= f.y + tol &&
          g.x + g.w >= f.x + f.w - tol &&
          g.y + g.h >= f.y + f.h - tol &&
          g.w * g.h > f.w * f.h,
      ),
  );
};
