import type { ProviderElement } from '../../core/ports/page-provider.js';
import type { Edges } from './block.js';
import { wordCount } from './white-space.js';
import { foldText, isPageNumberText, isRotated, rowText, type Row } from './lines.js';
import { bandRows } from './profile.js';
import type { LayoutProfile } from './types.js';

/** The page furniture found on a page, and the grounding entries that keep its text. */
export interface Furniture {
  /** Rows of running headers, footers and page numbers (out of the body). */
  rows: Set<Row>;
  /** One `header` / `footer` element per furniture row, in band order. */
  elements: ProviderElement[];
}

/** A page number set well apart from the rest of its row (`400   TITLE   [Ch. XIX.`, `Title   9`). */
const pageNumberApart = (row: Row): boolean => {
  const frags = row.fragments;
  return frags.some((f, k) => {
    if (!isPageNumberText(f.text)) return false;
    const before = frags[k - 1];
    const after = frags[k + 1];
    const apart = 3 * row.fontSize;
    return (
      (before === undefined || f.x0 - before.x1 > apart) &&
      (after === undefined || after.x0 - f.x1 > apart)
    );
  });
};

/**
 * A short running title with its page number at one end (`Chapter 2. Roles and duties   11`,
 * `28   Title of the book`), set at least one em apart from the title and two lines below
 * (above) the text next to it: the odd-page footers of a book whose chapter titles change too
 * often to repeat on most pages. `inner` is the row next to it towards the page's middle.
 */
const numberedTitle = (row: Row, inner: Row | undefined): boolean => {
  const frags = row.fragments;
  if (frags.length < 2 || frags.length > 3) return false;
  const em = row.fontSize;
  const ends = [
    [frags[0], frags[1]],
    [frags[frags.length - 1], frags[frags.length - 2]],
  ] as const;
  const numbered = ends.some(
    ([end, next]) =>
      end !== undefined &&
      next !== undefined &&
      isPageNumberText(end.text) &&
      Math.max(next.x0 - end.x1, end.x0 - next.x1) >= em,
  );
  if (!numbered || wordCount(rowText(row)) > 14) return false;
  const gap = inner ? Math.max(row.y0 - inner.y1, inner.y0 - row.y1) : Infinity;
  return gap >= 2 * em;
};

/** A row of rotated text only (see {@link TextRun.rotation}). */
const rotatedOnly = (row: Row): boolean => row.fragments.every((f) => f.runs.every(isRotated));

/**
 * Rows of rotated text set in a side margin, wholly left or right of every upright row: a
 * repository stamp up the margin of a preprint, a vertical running title.
 */
const marginRows = (rows: readonly Row[]): Row[] => {
  const upright = rows.filter((r) => !rotatedOnly(r));
  if (upright.length === 0) return [];
  const left = Math.min(...upright.map((r) => r.x0));
  const right = Math.max(...upright.map((r) => r.x1));
  return rows.filter((r) => rotatedOnly(r) && (r.x1 <= left || r.x0 >= right));
};

/**
 * A page number under a short page's text: the page's last row, a lone page number centred on
 * the text above it and set at least two lines' height below it (a page whose text ends halfway
 * down still numbers the page at its foot, or right under its text).
 */
const closingPageNumber = (rows: readonly Row[], last: Row): boolean => {
  if (!isPageNumberText(rowText(last))) return false;
  const above = rows[rows.length - 2];
  if (!above) return false;
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const r of rows) {
    if (r === last) continue;
    x0 = Math.min(x0, r.x0);
    x1 = Math.max(x1, r.x1);
  }
  const centred = Math.abs((last.x0 + last.x1) / 2 - (x0 + x1) / 2) < 0.05 * (x1 - x0);
  return centred && last.y0 - above.y1 > 2 * last.fontSize;
};

/**
 * Page-furniture stage: running headers, footers and page numbers. A row in the top (bottom)
 * band of the page ({@link bandRows}) is furniture when it is a page number, when its
 * digit-folded text (or one of its fragments) repeats on most pages of the document
 * (`profile.headers` / `profile.footers`), when it holds no letter or digit, or when a page number
 * stands well apart from the rest of it; bands are read from the page edge inwards to their last
 * furniture row, and rows between the edge and it count too (a download stamp above a running
 * header). A lone page number just outside the band, or a first (last) row of at most three
 * pieces with a page number set apart, counts too, and so does a lone page number closing a page
 * whose text ends higher ({@link closingPageNumber}). Rotated text in a side margin
 * ({@link marginRows}) is furniture too, kept as a `header` element.
 *
 * @param rows the page's rows, top to bottom; `height` the page image height in pixels.
 * @param box turns a row's edges into an element bbox.
 */
export const findFurniture = (
  rows: readonly Row[],
  height: number,
  profile: LayoutProfile,
  box: (b: Edges) => ProviderElement['bbox'],
): Furniture => {
  const furniture = new Set<Row>();
  const elements: ProviderElement[] = [];
  const { top, bottom } = bandRows(rows, height);
  const signatures = { top: new Set(profile.headers), bottom: new Set(profile.footers) };
  const isFurniture = (row: Row, band: 'top' | 'bottom'): boolean => {
    const text = rowText(row);
    if (isPageNumberText(text)) return true;
    if (signatures[band].has(foldText(text))) return true;
    if (!/[\p{L}\p{N}]/u.test(text)) return true;
    if (wordCount(text) > 24) return false;
    if (row.fragments.some((f) => signatures[band].has(foldText(f.text)))) return true;
    return pageNumberApart(row);
  };
  // A lone page number may sit lower (or higher) than the band, and so may a running title
  // with its page number set apart (at most three pieces: not a table's row).
  const firstRow = rows[0];
  const lastRow = rows[rows.length - 1];
  if (
    firstRow &&
    !top.includes(firstRow) &&
    firstRow.y1 < height * 0.25 &&
    (isPageNumberText(rowText(firstRow)) ||
      (firstRow.fragments.length <= 3 && pageNumberApart(firstRow)))
  ) {
    top.unshift(firstRow);
  }
  if (
    lastRow &&
    !bottom.includes(lastRow) &&
    ((lastRow.y0 > height * 0.75 &&
      (isPageNumberText(rowText(lastRow)) ||
        (lastRow.fragments.length <= 3 && pageNumberApart(lastRow)))) ||
      (lastRow.y0 > height * 0.5 && closingPageNumber(rows, lastRow)))
  ) {
    bottom.unshift(lastRow);
  }
  for (const [band, list] of [
    ['top', top],
    ['bottom', bottom],
  ] as const) {
    // Read from the page edge inwards; a row between the edge and a furniture row (a download
    // stamp above the running header) is furniture too.
    let last = -1;
    list.forEach((row, k) => {
      if (isFurniture(row, band)) last = k;
    });
    const edge = list[0];
    if (last < 0 && edge) {
      const at = rows.indexOf(edge);
      if (numberedTitle(edge, rows[band === 'top' ? at + 1 : at - 1])) last = 0;
    }
    for (const row of list.slice(0, last + 1)) {
      furniture.add(row);
      elements.push({
        text: rowText(row),
        bbox: box(row),
        label: band === 'top' ? 'header' : 'footer',
        elementType: isPageNumberText(rowText(row))
          ? 'page_number'
          : band === 'top'
            ? 'header'
            : 'footer',
        confidence: 0.8,
      });
    }
  }
  for (const row of marginRows(rows)) {
    if (furniture.has(row)) continue;
    furniture.add(row);
    elements.push({
      text: rowText(row),
      bbox: box(row),
      label: 'header',
      elementType: 'margin',
      confidence: 0.8,
    });
  }
  return { rows: furniture, elements };
};
