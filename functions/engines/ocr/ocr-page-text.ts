import type { PageText, Segment, TextRun } from '../layout/types.js';
import type { OcrResult, OcrWord } from './tesseract-ocr.js';

/** The page image the OCR result refers to. */
export interface OcrPageGeometry {
  pageNumber: number;
  /** Page image size in pixels (the size of the image that was recognised). */
  width: number;
  height: number;
  dpi: number;
}

/** Line sizes within this factor of each other are one size (OCR measures heights to a pixel). */
export const OCR_SIZE_CLUSTER_RATIO = 1.18;
/** A size class must exceed the body size by this factor to stay apart from it. */
export const OCR_HEADING_SIZE_RATIO = 1.2;
/** Distinct size classes kept above the body size (heading levels) on one page. */
export const OCR_MAX_HEADING_SIZES = 3;

/**
 * Turns OCR words into the input of the shared layout analysis: one run per word (followed by a
 * space), in pixels of the page image, with the word's confidence.
 *
 * Font sizes are estimated per line, then quantised for the page (see {@link quantiseSizes}), so
 * that OCR jitter does not read as headings:
 * - each word's box height is divided by the share of the ascender-to-descender span its glyphs
 *   cover (about 1 with both ascenders or capitals and descenders, 0.74 with ascenders only, 0.5
 *   for x-height letters), and a line's size is the lower quartile over its words; tesseract's own
 *   estimate ({@link OcrWord.fontSize}) is used when no word of the line can be measured;
 * - sizes within 20% of the body size (the median weighted by characters) are the body size;
 *   the others are grouped into classes about 18% apart, at most three of them above the body.
 *
 * Style flags are false: tesseract's LSTM engine does not report bold, italic or monospace.
 * Dates of a column whose slashes were read as digits are restored ({@link withColumnDates}).
 *
 * @returns a PageText with the OCR's rules (those found inside dark regions, see
 *   {@link OcrResult.rules}) and no images.
 */
export function ocrToPageText(result: OcrResult, geometry: OcrPageGeometry): PageText {
  const sx = result.width > 0 ? geometry.width / result.width : 1;
  const sy = result.height > 0 ? geometry.height / result.height : 1;
  const sizes = quantiseSizes(lineSizes(result.words));

  const runs = result.words.map((word): TextRun => ({
    // OCR words are whole words: the trailing space keeps narrow word gaps (small print) from
    // being read as letter spacing when the layout joins runs.
    text: `${word.text} `,
    x: word.bbox.x * sx,
    y: word.bbox.y * sy,
    w: word.bbox.w * sx,
    h: word.bbox.h * sy,
    baseline: word.baseline * sy,
    fontSize: (sizes.get(word.lineId) ?? word.fontSize) * sy,
    fontName: '',
    bold: false,
    italic: false,
    monospace: false,
    confidence: word.confidence,
  }));
  return {
    pageNumber: geometry.pageNumber,
    width: geometry.width,
    height: geometry.height,
    dpi: geometry.dpi,
    runs: withColumnDates(runs),
    rules: result.rules.map((r) => ({
      x1: r.x1 * sx,
      y1: r.y1 * sy,
      x2: r.x2 * sx,
      y2: r.y2 * sy,
    })),
    images: [],
  };
}

/** A date of one or two digits, one or two digits and a four-digit year, slash-separated. */
const SLASH_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
/** What tesseract reads the thin slash of a date in small print as. */
const SLASH_LIKE = /^[/17Il|]$/;
/** Slash positions of the date forms of each length (`1/1/2017`, `5/15/2017`, `12/31/2017`). */
const SLASH_POSITIONS: Readonly<Record<number, readonly (readonly [number, number])[]>> = {
  8: [[1, 3]],
  9: [
    [1, 4],
    [2, 4],
  ],
  10: [[2, 5]],
};

/**
 * Dates whose slashes tesseract read as digits or bars (`11172017`, `4/412017` for `1/1/2017`,
 * `4/4/2017`: a slash in small print is a thin stroke like a `1`), restored from their column:
 * a word is taken for a date when it lies under or over at least two words read as dates
 * (d/m/yyyy or m/d/yyyy, boxes overlapping horizontally) and exactly one date form of its length
 * fits it with a slash, `1`, `7`, `I`, `l` or `|` at the slash positions, digits elsewhere, a
 * year one of those dates have, and both day and month numbers between 1 and 31.
 *
 * @returns the runs, those restored with the date as text (boxes unchanged).
 */
export function withColumnDates(runs: readonly TextRun[]): TextRun[] {
  const dates = runs.filter((run) => SLASH_DATE.test(run.text.trim()));
  if (dates.length < 2) return [...runs];
  return runs.map((run) => {
    const text = run.text.trim();
    if (SLASH_DATE.test(text) || !/^[\d/Il|]+$/.test(text)) return run;
    const column = dates.filter((d) => d.x < run.x + run.w && run.x < d.x + d.w);
    if (column.length < 2) return run;
    const years = new Set(column.map((d) => d.text.trim().slice(-4)));
    const fits = (SLASH_POSITIONS[text.length] ?? [])
      .map(([a, b]) => {
        const chars = Array.from(text);
        if (!SLASH_LIKE.test(chars[a] ?? '') || !SLASH_LIKE.test(chars[b] ?? '')) return null;
        chars[a] = '/';
        chars[b] = '/';
        return chars.join('');
      })
      .filter((date): date is string => {
        const match = date === null ? null : SLASH_DATE.exec(date);
        if (!match) return false;
        const [, first, second, year] = match;
        const inRange = (n: string | undefined) => Number(n) >= 1 && Number(n) <= 31;
        return inRange(first) && inRange(second) && years.has(year ?? '');
      });
    const [date] = fits;
    if (fits.length !== 1 || date === undefined) return run;
    return { ...run, text: `${date}${run.text.slice(run.text.trimEnd().length)}` };
  });
}

/** Characters tesseract reads a vertical rule as when the rule touches or crosses a word. */
const BAR = /[|\u00a6\u2502]/u;
/** Unbalanced brackets at a word's edge that are a vertical rule read as a glyph. */
const OPENING = /^[[(]/u;
const CLOSING = /[\])]$/u;

/**
 * Cuts off the vertical rules that tesseract read as glyphs stuck to a word: bars at either end
 * of a word (`|0.931|`), and an unbalanced bracket (`[0.859`, `(Type`)
 * at an end of a word that lies within a line height of a vertical rule of the page. A word's box
 * loses its share of the characters cut off. A word of bars only (`|`) stays as it is: the
 * layout splits table cells at it and leaves it out of their text.
 *
 * @param detected rules found on the page image, added to the page's own.
 * @returns the page with its runs cleaned and `detected` among its rules (other fields unchanged).
 */
export function withoutRuleGlyphs(page: PageText, detected: readonly Segment[] = []): PageText {
  const rules = [...page.rules, ...detected];
  const verticals = rules.filter((r) => Math.abs(r.x1 - r.x2) < Math.abs(r.y1 - r.y2));
  const nearRule = (x: number, run: TextRun) =>
    verticals.some(
      (r) =>
        Math.abs(r.x1 - x) <= run.h &&
        Math.min(r.y1, r.y2) <= run.y + run.h &&
        Math.max(r.y1, r.y2) >= run.y,
    );
  const runs: TextRun[] = [];
  for (const run of page.runs) {
    const chars = Array.from(run.text.trimEnd());
    // A lone bar stays: the layout splits table cells at it and leaves it out of their text.
    if (chars.every((c) => BAR.test(c))) {
      runs.push(run);
      continue;
    }
    const trailing = run.text.slice(run.text.trimEnd().length);
    const width = chars.length > 0 ? run.w / chars.length : 0;
    let start = 0;
    let end = chars.length;
    for (;;) {
      const first = chars[start] ?? '';
      const last = chars[end - 1] ?? '';
      const rest = chars.slice(start, end).join('');
      if (start < end && BAR.test(first)) start++;
      else if (start < end && BAR.test(last)) end--;
      else if (
        end - start > 1 &&
        OPENING.test(first) &&
        !rest.includes(first === '[' ? ']' : ')') &&
        nearRule(run.x + width * start, run)
      )
        start++;
      else if (
        end - start > 1 &&
        CLOSING.test(last) &&
        !rest.includes(last === ']' ? '[' : '(') &&
        nearRule(run.x + width * end, run)
      )
        end--;
      else break;
    }
    if (start >= end) continue;
    if (start === 0 && end === chars.length) {
      runs.push(run);
      continue;
    }
    runs.push({
      ...run,
      text: chars.slice(start, end).join('') + trailing,
      x: run.x + width * start,
      w: width * (end - start),
    });
  }
  return { ...page, runs, rules };
}

/**
 * Mean word confidence weighted by characters, in [0, 1]; null when nothing was recognised.
 */
export function characterWeightedConfidence(words: readonly OcrWord[]): number | null {
  let chars = 0;
  let sum = 0;
  for (const word of words) {
    const n = Array.from(word.text).length;
    chars += n;
    sum += n * word.confidence;
  }
  return chars === 0 ? null : sum / chars;
}

/**
 * Share of the ascender-to-descender span that the box of a word covers, from its glyphs; null
 * for words of punctuation only (their boxes say little about the size).
 */
export function glyphSpanShare(text: string): number | null {
  const descender = /[gjpqyQ()[\]{}|]/.test(text);
  const ascender = /[\p{Lu}\p{N}bdfhklt!?#$%&@/\\]/u.test(text);
  if (descender && ascender) return 1;
  if (ascender) return 0.74;
  if (descender) return 0.76;
  if (/[\p{Ll}]/u.test(text)) return 0.5;
  return null;
}

interface LineSize {
  size: number;
  /** tesseract's estimate of the line's size (row height plus descenders). */
  rowSize: number;
  chars: number;
}

/** Estimated size and character count of every OCR line (by line id). */
function lineSizes(words: readonly OcrWord[]): Map<number, LineSize> {
  const byLine = new Map<number, OcrWord[]>();
  for (const word of words) {
    const list = byLine.get(word.lineId) ?? [];
    list.push(word);
    byLine.set(word.lineId, list);
  }
  const out = new Map<number, LineSize>();
  for (const [lineId, lineWords] of byLine) {
    const estimates: number[] = [];
    for (const word of lineWords) {
      const share = glyphSpanShare(word.text);
      if (share !== null && word.bbox.h > 0) estimates.push(word.bbox.h / share);
    }
    // The lower quartile: boxes grow (touching rules, specks), they do not shrink.
    const size =
      estimates.length > 0 ? quantile(estimates, 0.25) : median(lineWords.map((w) => w.fontSize));
    const chars = lineWords.reduce((n, w) => n + w.text.length, 0);
    const rowSize = median(lineWords.map((w) => w.fontSize));
    if (size > 0) out.set(lineId, { size, rowSize, chars });
  }
  return out;
}

/**
 * Quantises line sizes. The body size is the median line size weighted by characters; lines
 * within {@link OCR_HEADING_SIZE_RATIO} of it (either way) take it, and so do larger lines whose
 * row height (tesseract's estimate) is not larger by that factor too. The sizes returned are
 * scaled so that the body size is the typical row height. The others are sorted by size
 * and grouped while each size stays within {@link OCR_SIZE_CLUSTER_RATIO} of the first of its
 * group (the one nearest the body size); a group's size is its median weighted by characters. Of
 * the groups above the body size, the {@link OCR_MAX_HEADING_SIZES} largest keep their size and
 * smaller ones take the body size (a size class that cannot be a heading level is noise).
 *
 * @returns the quantised size of every line id.
 */
export function quantiseSizes(lines: ReadonlyMap<number, LineSize>): Map<number, number> {
  const out = new Map<number, number>();
  const body = weightedMedian([...lines.values()]);
  if (body <= 0) return out;
  const rowBody = weightedMedian([...lines.values()].map((l) => ({ ...l, size: l.rowSize })));
  const above: [number, LineSize][] = [];
  const below: [number, LineSize][] = [];
  for (const [id, line] of lines) {
    // Larger only when tesseract's row height agrees: either estimate alone is often fooled.
    if (
      line.size >= body * OCR_HEADING_SIZE_RATIO &&
      line.rowSize >= rowBody * OCR_HEADING_SIZE_RATIO
    )
      above.push([id, line]);
    else if (line.size <= body / OCR_HEADING_SIZE_RATIO) below.push([id, line]);
    else out.set(id, body);
  }
  // Larger sizes grouped from the body size up; the largest groups are the heading levels.
  const upward = sizeGroups(
    above.sort((a, b) => a[1].size - b[1].size),
    (first, size) => size <= first * OCR_SIZE_CLUSTER_RATIO,
  );
  upward.reverse().forEach((group, rank) => {
    const size = rank < OCR_MAX_HEADING_SIZES ? group.size : body;
    for (const id of group.ids) out.set(id, size);
  });
  const downward = sizeGroups(
    below.sort((a, b) => b[1].size - a[1].size),
    (first, size) => size * OCR_SIZE_CLUSTER_RATIO >= first,
  );
  for (const group of downward) for (const id of group.ids) out.set(id, group.size);
  // Sizes in the units of tesseract's row heights (what the layout's em thresholds were tuned
  // on): the body is the typical row height, other classes keep their ratio to it.
  const unit = rowBody > 0 ? rowBody / body : 1;
  for (const [id, size] of out) out.set(id, size * unit);
  return out;
}

/** Groups sorted lines while `together(first size of the group, size)` holds. */
function sizeGroups(
  sorted: readonly [number, LineSize][],
  together: (first: number, size: number) => boolean,
): { ids: number[]; size: number }[] {
  const groups: { ids: number[]; entries: LineSize[]; size: number }[] = [];
  for (const [id, line] of sorted) {
    const last = groups[groups.length - 1];
    const first = last?.entries[0];
    if (last && first && together(first.size, line.size)) {
      last.ids.push(id);
      last.entries.push(line);
    } else {
      groups.push({ ids: [id], entries: [line], size: 0 });
    }
  }
  for (const group of groups) group.size = weightedMedian(group.entries);
  return groups;
}

function weightedMedian(entries: readonly LineSize[]): number {
  if (entries.length === 0) return 0;
  const sorted = entries.slice().sort((a, b) => a.size - b.size);
  const total = sorted.reduce((n, e) => n + Math.max(1, e.chars), 0);
  let acc = 0;
  for (const entry of sorted) {
    acc += Math.max(1, entry.chars);
    if (acc * 2 >= total) return entry.size;
  }
  return sorted[sorted.length - 1]?.size ?? 0;
}

function median(values: number[]): number {
  return quantile(values, 0.5);
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) * q + 0.5)] ?? 0;
}
