/** A box taking part in the reading-order cut. */
export interface CutItem {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Font size in pixels (em for gap thresholds). */
  size: number;
  /** Visible characters. */
  chars: number;
  /** True for prose-like items (several words); column gutters separate prose. */
  prose: boolean;
}

/** Options of {@link xyCut}. */
export interface XyCutOptions {
  /** Narrowest vertical gutter, in em. */
  minColumnGap: number;
  /** Smallest horizontal gap that separates blocks, in em. */
  minRowGap: number;
  /**
   * Vertical rules (x, from y0 to y1): a gutter of any width that a rule runs down, over at least
   * 90% of the items' height, may separate columns (form boxes set close together).
   */
  rules?: readonly { x: number; y0: number; y1: number }[];
}

const DEFAULTS: XyCutOptions = { minColumnGap: 1.0, minRowGap: 0.45 };

const medianSize = (items: readonly CutItem[]): number => {
  const sizes = items.map((i) => i.size).sort((a, b) => a - b);
  return sizes[Math.floor(sizes.length / 2)] ?? 1;
};

/** Empty bands along one axis: [start, end) pairs between the merged item intervals. */
const gapsAlong = (items: readonly CutItem[], axis: 'x' | 'y'): [number, number][] => {
  const spans = items
    .map((i): [number, number] => (axis === 'x' ? [i.x0, i.x1] : [i.y0, i.y1]))
    .sort((a, b) => a[0] - b[0]);
  const gaps: [number, number][] = [];
  let end = spans[0]?.[1] ?? 0;
  for (const [s, e] of spans.slice(1)) {
    if (s > end) gaps.push([end, s]);
    end = Math.max(end, e);
  }
  return gaps;
};

const proseShare = (items: readonly CutItem[]): number => {
  let prose = 0;
  let total = 0;
  for (const i of items) {
    total += i.chars;
    if (i.prose) prose += i.chars;
  }
  return total === 0 ? 0 : prose / total;
};

/**
 * Whether `side` is not a column but labels set in the margin of `other` (a heading hung in the
 * left margin of a report, `Authors` beside the text it heads): not mostly prose, and each of
 * its items in a gap between the lines of `other` (no item of `other` at its height). They are
 * read in their place from top to bottom, not all before or after the text.
 */
const marginLabels = (side: readonly CutItem[], other: readonly CutItem[]): boolean =>
  proseShare(side) < 0.5 && side.every((i) => other.every((o) => o.y1 <= i.y0 || o.y0 >= i.y1));

/**
 * Recursive XY-cut (Nagy and Seth, 1984): orders items for reading by splitting the set at empty
 * bands, columns first (a vertical gutter at least `minColumnGap` em wide, or one a rule of
 * `rules` runs down, with prose on at least one side, so that the columns of a table stay
 * together, and not only labels in the margin of the other side: {@link marginLabels}), otherwise at the widest horizontal band; left before
 * right, top before bottom.
 *
 * @returns the leaves (groups of items with no further cut) in reading order.
 */
export const xyCut = <T extends CutItem>(
  items: readonly T[],
  options: Partial<XyCutOptions> = {},
): T[][] => {
  const opts = { ...DEFAULTS, ...options };
  const out: T[][] = [];
  const visit = (group: readonly T[]): void => {
    if (group.length <= 1) {
      if (group.length === 1) out.push([...group]);
      return;
    }
    const em = medianSize(group);
    const top = Math.min(...group.map((i) => i.y0));
    const bottom = Math.max(...group.map((i) => i.y1));
    const ruled = ([s, e]: [number, number]): boolean =>
      (opts.rules ?? []).some(
        (r) =>
          r.x >= s &&
          r.x <= e &&
          Math.min(r.y1, bottom) - Math.max(r.y0, top) >= 0.9 * (bottom - top),
      );
    const vertical = gapsAlong(group, 'x')
      .filter((gap) => gap[1] - gap[0] >= opts.minColumnGap * em || ruled(gap))
      .sort((a, b) => b[1] - b[0] - (a[1] - a[0]));
    for (const [s] of vertical) {
      const left = group.filter((i) => i.x1 <= s + 0.01);
      const right = group.filter((i) => i.x1 > s + 0.01);
      if (left.length === 0 || right.length === 0) continue;
      if (Math.max(proseShare(left), proseShare(right)) < 0.5) continue;
      if (marginLabels(left, right) || marginLabels(right, left)) continue;
      visit(left);
      visit(right);
      return;
    }
    const horizontal = gapsAlong(group, 'y').sort((a, b) => b[1] - b[0] - (a[1] - a[0]));
    const widest = horizontal[0];
    if (widest && widest[1] - widest[0] >= opts.minRowGap * em) {
      const cut = widest[0] + 0.01;
      visit(group.filter((i) => i.y1 <= cut));
      visit(group.filter((i) => i.y1 > cut));
      return;
    }
    out.push([...group]);
  };
  visit(items);
  return out;
};
