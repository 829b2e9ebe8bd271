import { CAPTION, type Edges } from './block.js';
import { connectedGroups } from '../connected-groups.js';
import type { Fragment, Row } from './lines.js';
import type { Segment } from './types.js';
import type { DrawnFigure } from './figures.js';

/** Tick marks that make a region a plot's axes rather than a table's rules. */
export const PLOT_TICKS = 8;
/** Tick marks on one rule that make it a plot's axis. */
const AXIS_TICKS = 4;
/** How far (in body font sizes) from its axes a plot's tick values and axis titles are set. */
const LABEL_REACH_EM = 2.5;
/** Most words with letters in a label outside the axes (`no. log-posterior samples`). */
const LABEL_WORDS = 4;

const length = (s: Segment): number => Math.hypot(s.x2 - s.x1, s.y2 - s.y1);
const flat = (s: Segment, scale: number): boolean => Math.abs(s.y1 - s.y2) <= scale / 2;
const upright = (s: Segment, scale: number): boolean => Math.abs(s.x1 - s.x2) <= scale / 2;
const between = (v: number, a: number, b: number, tol: number): boolean =>
  v >= Math.min(a, b) - tol && v <= Math.max(a, b) + tol;

/**
 * For each long rule (an inch or more, horizontal or vertical) among `segments`, the tick marks
 * on it: short segments (half a point to six points) set square to it and touching it at one
 * end only, where no other long rule holds their other end.
 */
const ticksPerAxis = (segments: readonly Segment[], scale: number): Map<Segment, number> => {
  const tol = 1.5 * scale;
  const axes = segments.filter(
    (s) => length(s) >= 72 * scale && (flat(s, scale) || upright(s, scale)),
  );
  const ticks = new Map<Segment, number>(axes.map((a) => [a, 0]));
  if (axes.length === 0) return ticks;
  // Axes by the band (a tolerance wide) of their y (horizontal) or x (vertical): a tick's end
  // looks in its own band and the two beside it, not through every rule of the page.
  const band = (v: number) => Math.floor(v / tol);
  const flats = new Map<number, Segment[]>();
  const uprights = new Map<number, Segment[]>();
  for (const axis of axes) {
    const [index, at] = flat(axis, scale) ? [flats, axis.y1] : [uprights, axis.x1];
    const list = index.get(band(at));
    if (list) list.push(axis);
    else index.set(band(at), [axis]);
  }
  const near = (index: Map<number, Segment[]>, v: number): Segment[] => [
    ...(index.get(band(v) - 1) ?? []),
    ...(index.get(band(v)) ?? []),
    ...(index.get(band(v) + 1) ?? []),
  ];
  const axisAt = (x: number, y: number, tick: Segment): Segment | undefined =>
    (upright(tick, scale)
      ? near(flats, y).find(
          (axis) => Math.abs(y - axis.y1) <= tol && between(x, axis.x1, axis.x2, tol),
        )
      : undefined) ??
    (flat(tick, scale)
      ? near(uprights, x).find(
          (axis) => Math.abs(x - axis.x1) <= tol && between(y, axis.y1, axis.y2, tol),
        )
      : undefined);
  for (const s of segments) {
    const l = length(s);
    if (l < 0.5 * scale || l > 6 * scale) continue;
    const a = axisAt(s.x1, s.y1, s);
    const b = axisAt(s.x2, s.y2, s);
    const axis = a && !b ? a : b && !a ? b : undefined;
    if (axis) ticks.set(axis, (ticks.get(axis) ?? 0) + 1);
  }
  return ticks;
};

/**
 * Tick marks on the rules of a box: short segments (half a point to six points) set square to
 * a long rule (an inch or more) and touching it at one end only, as a plot's axes carry them.
 * A table's rules have none: a cell border meets rules at both ends, a dashed rule's pieces lie
 * along their line. Measured on the test corpora, ruled and rule-bounded tables have 0, plots
 * 12 to 336. Ticks may point out of the frame: the box reaches one tick length past it.
 *
 * @param box the region (pixels of the page image); `scale` is pixels per point.
 */
export const plotTicks = (segments: readonly Segment[], box: Edges, scale: number): number => {
  const margin = 7.5 * scale;
  const within = segments.filter(
    (s) =>
      Math.min(s.x1, s.x2) >= box.x0 - margin &&
      Math.max(s.x1, s.x2) <= box.x1 + margin &&
      Math.min(s.y1, s.y2) >= box.y0 - margin &&
      Math.max(s.y1, s.y2) <= box.y1 + margin,
  );
  let total = 0;
  for (const n of ticksPerAxis(within, scale).values()) total += n;
  return total;
};

const wordsWithLetters = (text: string): number =>
  text.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;

/**
 * Plots drawn as vector graphics: axes (long rules with four tick marks or more) that touch or
 * cross make one plot. Its labels are the fragments inside the axes' box (legends, panel
 * titles) and, within two and a half body font sizes around it, the short ones (tick values,
 * axis titles: at most four words with letters), captions excepted. They are the figure's text
 * (a grounding element), not page text.
 *
 * @param rows the page's body rows; `skip` tells fragments already placed elsewhere; `scale`
 *   is pixels per point; `body` the body font size in pixels.
 */
export const plotLabels = (
  rows: readonly Row[],
  segments: readonly Segment[],
  skip: (f: Fragment) => boolean,
  scale: number,
  body: number,
): { figures: DrawnFigure[]; members: Set<Fragment> } => {
  const members = new Set<Fragment>();
  const tol = 1.5 * scale;
  const axes = [...ticksPerAxis(segments, scale)]
    .filter(([, n]) => n >= AXIS_TICKS)
    .map(([axis]) => ({
      x0: Math.min(axis.x1, axis.x2),
      y0: Math.min(axis.y1, axis.y2),
      x1: Math.max(axis.x1, axis.x2),
      y1: Math.max(axis.y1, axis.y2),
    }));
  const plots = connectedGroups(
    axes,
    (a, b) => a.x0 <= b.x1 + tol && b.x0 <= a.x1 + tol && a.y0 <= b.y1 + tol && b.y0 <= a.y1 + tol,
  ).map((group) => ({
    x0: Math.min(...group.map((a) => a.x0)),
    y0: Math.min(...group.map((a) => a.y0)),
    x1: Math.max(...group.map((a) => a.x1)),
    y1: Math.max(...group.map((a) => a.y1)),
  }));
  const reach = LABEL_REACH_EM * body;
  const figures = plots.map((plot) => {
    const box = { ...plot };
    const labels: Fragment[] = [];
    for (const row of rows) {
      for (const f of row.fragments) {
        if (skip(f) || members.has(f)) continue;
        const cx = (f.x0 + f.x1) / 2;
        const cy = (f.y0 + f.y1) / 2;
        const within = cx > plot.x0 && cx < plot.x1 && cy > plot.y0 && cy < plot.y1;
        const near =
          f.x1 > plot.x0 - reach &&
          f.x0 < plot.x1 + reach &&
          f.y1 > plot.y0 - reach &&
          f.y0 < plot.y1 + reach &&
          wordsWithLetters(f.text) <= LABEL_WORDS;
        if (!(within || near) || CAPTION.test(f.text.trim())) continue;
        members.add(f);
        labels.push(f);
        box.x0 = Math.min(box.x0, f.x0);
        box.y0 = Math.min(box.y0, f.y0);
        box.x1 = Math.max(box.x1, f.x1);
        box.y1 = Math.max(box.y1, f.y1);
      }
    }
    return {
      box: { x: box.x0, y: box.y0, w: box.x1 - box.x0, h: box.y1 - box.y0 },
      text: labels
        .sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0)
        .map((f) => f.text.trim())
        .join('\n'),
    };
  });
  return { figures, members };
};
