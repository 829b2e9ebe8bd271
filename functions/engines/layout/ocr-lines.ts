import type { Line } from './block.js';
import { makeFragment, type Fragment, type Row } from './lines.js';
import { HEADING_SIZE_RATIO } from './profile.js';
import { median } from './tables.js';
import type { Segment, TextRun } from './types.js';

/** On OCR pages, a word gap wider than this many typical word gaps separates table cells. */
export const OCR_COLUMN_GAP_RATIO = 2.5;

/** A vertical rule read as text by OCR. */
const RULE_GLYPH = /^[|¦]$/;

/**
 * How a page's text was produced. OCR pages (every run carries a confidence) have no styles and
 * noisy sizes, and their words are runs: their table cells are found from word gaps.
 */
export interface PageKind {
  ocr: boolean;
  /** Smallest word gap (pixels) read as a column gap in OCR tables; Infinity otherwise. */
  columnGap: number;
  /** Vertical rules of the page (OCR pages): a rule between two words separates table cells. */
  verticals?: readonly Segment[];
}

/**
 * OCR pages: the typical word gap is the median gap between neighbouring words of a fragment; a gap
 * {@link OCR_COLUMN_GAP_RATIO} times wider (and at least half an em) separates table cells.
 */
export const pageKind = (
  runs: readonly TextRun[],
  rows: readonly Row[],
  body: number,
  rules: readonly Segment[] = [],
): PageKind => {
  const ocr = runs.length > 0 && runs.every((r) => r.confidence !== undefined);
  if (!ocr) return { ocr, columnGap: Infinity };
  // Gaps inside fragments only: on a page that is mostly table, most gaps between fragments are
  // column gaps.
  const gaps: number[] = [];
  for (const f of rows.flatMap((row) => row.fragments)) {
    for (let k = 1; k < f.runs.length; k++) {
      const a = f.runs[k - 1];
      const b = f.runs[k];
      if (a && b && b.x > a.x + a.w) gaps.push(b.x - (a.x + a.w));
    }
  }
  const wordGap = median(gaps);
  return {
    ocr,
    columnGap: Math.max(OCR_COLUMN_GAP_RATIO * wordGap, 0.5 * body),
    verticals: rules.filter((r) => Math.abs(r.x1 - r.x2) < Math.abs(r.y1 - r.y2)),
  };
};

/**
 * The fragments of one row split into lines of about one size: OCR reads a title and a smaller
 * field beside it (`Uniform ... INVOICE`) as one row.
 */
export const splitBySize = (fragments: Fragment[]): Fragment[][] => {
  const groups: Fragment[][] = [];
  for (const f of fragments.slice().sort((a, b) => b.fontSize - a.fontSize)) {
    const group = groups.find((g) => {
      const size = g[0]?.fontSize ?? 0;
      return f.fontSize >= size / HEADING_SIZE_RATIO;
    });
    if (group) group.push(f);
    else groups.push([f]);
  }
  return groups;
};

/** A vertical rule crosses the middle of `run`'s height between `left` and the run's left edge. */
const ruleBefore = (verticals: readonly Segment[], left: number, run: TextRun): boolean => {
  const slack = 0.2 * run.fontSize;
  const middle = run.y + run.h / 2;
  return verticals.some(
    (r) =>
      r.x1 >= left - slack &&
      r.x1 <= run.x + slack &&
      Math.min(r.y1, r.y2) <= middle &&
      Math.max(r.y1, r.y2) >= middle,
  );
};

/**
 * The cells of an OCR line: its words split at gaps wider than `columnGap`, at vertical rules
 * read as `|` (which are dropped) and at vertical rules of the page (`verticals`) between words.
 */
export const ocrCells = (
  line: Line,
  columnGap: number,
  verticals: readonly Segment[] = [],
): Fragment[] => {
  const cells: Fragment[] = [];
  let current: TextRun[] = [];
  let right = -Infinity;
  for (const run of line.runs) {
    const rule = RULE_GLYPH.test(run.text.trim());
    if (
      current.length > 0 &&
      (rule || run.x - right > columnGap || ruleBefore(verticals, right, run))
    ) {
      cells.push(makeFragment(current));
      current = [];
    }
    if (rule) continue;
    current.push(run);
    right = run.x + run.w;
  }
  if (current.length > 0) cells.push(makeFragment(current));
  return cells;
};
