import type { PageText, Rect, Segment, TextRun } from './types.js';
import { visibleLength } from './white-space.js';

/**
 * Pages whose text runs at a right angle on the page image: a landscape table on a page turned
 * with /Rotate, a page set sideways in a report. The layout reads lines left to right and top to
 * bottom, so such a page is turned upright first (its runs, rules and images), laid out, and
 * every box found is turned back to the page image.
 */

/** Share of a page's visible characters that must run at one right angle for it to be turned. */
const TURNED_SHARE = 0.6;

/** Largest difference (degrees) between a run's angle and a right angle that counts as it. */
const ANGLE_TOLERANCE = 2;

/** A page turned upright, and the way back to the page image. */
export interface UprightPage {
  /** The page as it reads: width and height swapped for a quarter turn, text left to right. */
  page: PageText;
  /** The angle (degrees counter-clockwise on the page image) the text ran at: 90, 180 or 270. */
  angle: number;
  /** A box of the upright page as a box of the page image (pixels, origin top-left). */
  toImage: (box: Rect) => Rect;
}

/**
 * The right angle (90, 180 or 270 degrees counter-clockwise) that at least
 * {@link TURNED_SHARE} of the page's visible characters run at, or 0 (upright, mixed, or
 * text at other angles).
 */
export const turnedAngle = (runs: readonly TextRun[]): number => {
  const chars = new Map<number, number>();
  let total = 0;
  for (const run of runs) {
    const n = visibleLength(run.text);
    total += n;
    const angle = rightAngleOf(run.rotation ?? 0);
    if (angle !== undefined && angle !== 0) chars.set(angle, (chars.get(angle) ?? 0) + n);
  }
  for (const [angle, n] of chars) if (total > 0 && n >= TURNED_SHARE * total) return angle;
  return 0;
};

const rightAngleOf = (rotation: number): number | undefined => {
  const turned = ((rotation % 360) + 360) % 360;
  const nearest = (Math.round(turned / 90) * 90) % 360;
  return Math.abs(((turned - nearest + 540) % 360) - 180) <= ANGLE_TOLERANCE ? nearest : undefined;
};

/**
 * The page turned so that text running at {@link turnedAngle} reads left to right, or
 * undefined when the page needs no turning. Runs at that angle become upright runs (their
 * baseline near the bottom of their turned box); runs at other angles keep the difference.
 */
export const uprightPage = (page: PageText): UprightPage | undefined => {
  const angle = turnedAngle(page.runs);
  if (angle === 0) return undefined;
  const { width: w, height: h } = page;
  // Text at `angle` counter-clockwise is read by turning the page `angle` clockwise.
  const point = (x: number, y: number): [number, number] =>
    angle === 90 ? [h - y, x] : angle === 180 ? [w - x, h - y] : [y, w - x];
  const back = (x: number, y: number): [number, number] =>
    angle === 90 ? [y, h - x] : angle === 180 ? [w - x, h - y] : [w - y, x];
  const turn = (box: Rect, map: (x: number, y: number) => [number, number]): Rect => {
    const [ax, ay] = map(box.x, box.y);
    const [bx, by] = map(box.x + box.w, box.y + box.h);
    return {
      x: Math.min(ax, bx),
      y: Math.min(ay, by),
      w: Math.abs(bx - ax),
      h: Math.abs(by - ay),
    };
  };
  const runs = page.runs.map((run): TextRun => {
    const box = turn(run, point);
    const rotation = ((((run.rotation ?? 0) - angle) % 360) + 360) % 360;
    const upright = rightAngleOf(rotation) === 0;
    const turned: TextRun = {
      ...run,
      ...box,
      baseline: upright ? box.y + 0.8 * box.h : box.y + box.h,
      rotation,
    };
    if (upright) delete turned.rotation;
    return turned;
  });
  const rules = page.rules.map((s): Segment => {
    const [x1, y1] = point(s.x1, s.y1);
    const [x2, y2] = point(s.x2, s.y2);
    return { x1, y1, x2, y2 };
  });
  const quarter = angle !== 180;
  return {
    page: {
      ...page,
      width: quarter ? h : w,
      height: quarter ? w : h,
      runs,
      rules,
      images: page.images.map((image) => turn(image, point)),
    },
    angle,
    toImage: (box) => turn(box, back),
  };
};
