import { buildRows, foldText, isPageNumberText, isRotated, rowText, type Row } from './lines.js';
import type { LayoutProfile, PageText, TextRun } from './types.js';
import { visibleLength } from './white-space.js';

/**
 * The font size (px, to the half) carrying the most characters of `runs` (spaces not counted):
 * the body size of a page or a region. 0 without text.
 */
export const bodySizeOf = (runs: Iterable<TextRun>): number => {
  const weight = new Map<number, number>();
  for (const r of runs) {
    const key = Math.round(r.fontSize * 2) / 2;
    weight.set(key, (weight.get(key) ?? 0) + visibleLength(r.text));
  }
  let best = 0;
  let size = 0;
  for (const [k, w] of weight) {
    if (w > best) {
      best = w;
      size = k;
    }
  }
  return size;
};

/** Share of the page height, from the top or the bottom, where running headers and footers live. */
export const FURNITURE_BAND = 0.12;
/** Heading sizes must exceed the body size by this factor. */
export const HEADING_SIZE_RATIO = 1.12;

const toPoints = (px: number, dpi: number): number => (px * 72) / dpi;
const roundHalf = (pt: number): number => Math.round(pt * 2) / 2;

/** The rows of the top and bottom bands (at most three each), outermost first. */
export const bandRows = (rows: readonly Row[], height: number): { top: Row[]; bottom: Row[] } => {
  const top = rows.filter((r) => r.y1 <= height * FURNITURE_BAND).slice(0, 3);
  const bottom = rows
    .filter((r) => r.y0 >= height * (1 - FURNITURE_BAND))
    .slice(-3)
    .reverse();
  return { top, bottom };
};

/** An empty profile, for documents without text. */
export const emptyProfile = (): LayoutProfile => ({
  version: 1,
  bodySize: 0,
  headingSizes: [],
  headers: [],
  footers: [],
  pageCount: 0,
});

/**
 * What one page contributes to the document's layout profile (see {@link buildLayoutProfile}):
 * small and JSON-serialisable, so that a page can be measured where it was read (the PDF worker)
 * and only this crosses to where the profile is built.
 */
export interface PageProfileStats {
  /** Characters (whitespace left out) per font size in points, rounded to 0.5. */
  sizeChars: [size: number, chars: number][];
  /** Sizes (points, rounded to 0.5) of the page's short, unrotated rows: heading candidates. */
  headingCandidateSizes: number[];
  /** Digit-folded texts of the rows of the top band, each once. */
  top: string[];
  /** Digit-folded texts of the rows of the bottom band, each once. */
  bottom: string[];
  /** Characters (whitespace left out) per font name. */
  fontChars?: [font: string, chars: number][];
}

/**
 * Measures one page for the layout profile (see {@link profileFromStats}); `rows` are its runs
 * grouped by {@link buildRows} (grouped here when not given).
 */
export const pageProfileStats = (
  page: PageText,
  rows: readonly Row[] = buildRows(page.runs),
): PageProfileStats => {
  const sizeChars = new Map<number, number>();
  const fontChars = new Map<string, number>();
  for (const run of page.runs) {
    const chars = visibleLength(run.text);
    if (chars === 0) continue;
    const size = roundHalf(toPoints(run.fontSize, page.dpi));
    sizeChars.set(size, (sizeChars.get(size) ?? 0) + chars);
    if (run.fontName !== '')
      fontChars.set(run.fontName, (fontChars.get(run.fontName) ?? 0) + chars);
  }
  const { top, bottom } = bandRows(rows, page.height);
  const headingCandidateSizes = new Set<number>();
  for (const row of rows) {
    // Rotated text (axis labels, a margin stamp) is no heading.
    if (row.fragments.every((f) => f.runs.every(isRotated))) continue;
    const words = rowText(row).split(/\s+/).length;
    if (words > 15) continue;
    headingCandidateSizes.add(roundHalf(toPoints(row.fontSize, page.dpi)));
  }
  const folded = (band: Row[]) => [
    ...new Set(band.map((r) => foldText(rowText(r))).filter((t) => t.length > 0)),
  ];
  return {
    sizeChars: [...sizeChars],
    headingCandidateSizes: [...headingCandidateSizes],
    top: folded(top),
    bottom: folded(bottom),
    fontChars: [...fontChars],
  };
};

/**
 * Builds the document's layout profile from some or all of its pages.
 *
 * - body size: the font size (points, rounded to 0.5) carrying the most characters;
 * - heading sizes: distinct sizes of short lines set at least 12% larger than the body, largest
 *   first (at most six), a size carrying more than a quarter of the text excepted, and so is a
 *   size found on one page only of a document of several (but for the largest, the title's);
 * - running headers and footers: digit-folded texts of rows in the top / bottom 10% of the page
 *   that repeat on at least two pages and 30% of the pages.
 *
 * @returns a JSON-serialisable profile; sizes in points.
 */
export const buildLayoutProfile = (pages: readonly PageText[]): LayoutProfile =>
  profileFromStats(pages.map((page) => pageProfileStats(page)));

/**
 * The layout profile of a document from its pages' {@link pageProfileStats}, in page order (see
 * {@link buildLayoutProfile}).
 */
export const profileFromStats = (pages: readonly PageProfileStats[]): LayoutProfile => {
  const sizeChars = new Map<number, number>();
  /** Heading candidate sizes and the number of pages they occur on. */
  const headingCandidates = new Map<number, number>();
  const headerCount = new Map<string, number>();
  const footerCount = new Map<string, number>();
  let totalChars = 0;
  const fontChars = new Map<string, number>();
  for (const page of pages) {
    for (const [font, chars] of page.fontChars ?? []) {
      fontChars.set(font, (fontChars.get(font) ?? 0) + chars);
    }
    for (const [size, chars] of page.sizeChars) {
      sizeChars.set(size, (sizeChars.get(size) ?? 0) + chars);
      totalChars += chars;
    }
    for (const text of page.top) headerCount.set(text, (headerCount.get(text) ?? 0) + 1);
    for (const text of page.bottom) footerCount.set(text, (footerCount.get(text) ?? 0) + 1);
    for (const size of page.headingCandidateSizes) {
      headingCandidates.set(size, (headingCandidates.get(size) ?? 0) + 1);
    }
  }
  let bodySize = 0;
  let best = -1;
  for (const [size, chars] of sizeChars) {
    if (chars > best) {
      best = chars;
      bodySize = size;
    }
  }
  // A size used on one page only of several (a cover's display lines, a chapter number) is not a
  // heading level, unless it is the largest (the title).
  const largest = Math.max(0, ...headingCandidates.keys());
  const minPages = Math.min(2, pages.length);
  const headingSizes = [...headingCandidates]
    .filter(
      ([size, on]) =>
        bodySize > 0 &&
        size >= bodySize * HEADING_SIZE_RATIO &&
        (sizeChars.get(size) ?? 0) <= totalChars * 0.25 &&
        (on >= minPages || size === largest),
    )
    .map(([size]) => size)
    .sort((a, b) => b - a)
    .reduce<number[]>((acc, size) => {
      const last = acc[acc.length - 1];
      if (last === undefined || last - size > 0.6) acc.push(size);
      return acc;
    }, [])
    .slice(0, 6);
  const bodyFont = [...fontChars].sort((a, b) => b[1] - a[1])[0]?.[0];
  const minRepeats = Math.max(2, Math.ceil(pages.length * 0.3));
  const repeated = (counts: Map<string, number>): string[] =>
    [...counts]
      .filter(([text, n]) => n >= minRepeats && !isPageNumberText(text.replace(/#/g, '1')))
      .map(([text]) => text);
  return {
    version: 1,
    bodySize,
    headingSizes,
    headers: repeated(headerCount),
    footers: repeated(footerCount),
    pageCount: pages.length,
    ...(bodyFont ? { bodyFont } : {}),
  };
};

/** Reads a profile received as `unknown` (from JSON); falls back to an empty one. */
export const asLayoutProfile = (value: unknown): LayoutProfile => {
  if (typeof value !== 'object' || value === null) return emptyProfile();
  const v = value as Partial<LayoutProfile>;
  const numbers = (x: unknown): number[] =>
    Array.isArray(x)
      ? x.filter((n): n is number => typeof n === 'number' && Number.isFinite(n))
      : [];
  const strings = (x: unknown): string[] =>
    Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : [];
  return {
    version: 1,
    bodySize: typeof v.bodySize === 'number' && Number.isFinite(v.bodySize) ? v.bodySize : 0,
    headingSizes: numbers(v.headingSizes),
    headers: strings(v.headers),
    footers: strings(v.footers),
    pageCount: typeof v.pageCount === 'number' ? v.pageCount : 0,
    ...(typeof v.bodyFont === 'string' && v.bodyFont !== '' ? { bodyFont: v.bodyFont } : {}),
  };
};
