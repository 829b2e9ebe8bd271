import type { PageFeatures } from '../../core/ports/document-engine.js';
import { tableAlignment } from '../layout/alignment.js';
import { estimateColumns } from '../layout/columns.js';
import { buildRows, type Row } from '../layout/lines.js';
import type { Rect } from '../layout/types.js';
import { isGarbage } from './page-geometry.js';
import type { ExtractedPage } from './page-text.js';

const GRID = 48;

/** Share of the page covered by the union of `rects`, measured on a 48 × 48 grid. */
const coverage = (rects: readonly Rect[], width: number, height: number): number => {
  if (rects.length === 0) return 0;
  const cells = new Uint8Array(GRID * GRID);
  const cw = width / GRID;
  const ch = height / GRID;
  for (const r of rects) {
    const gx0 = Math.max(0, Math.floor(r.x / cw));
    const gy0 = Math.max(0, Math.floor(r.y / ch));
    const gx1 = Math.min(GRID - 1, Math.floor((r.x + r.w) / cw));
    const gy1 = Math.min(GRID - 1, Math.floor((r.y + r.h) / ch));
    for (let y = gy0; y <= gy1; y++) for (let x = gx0; x <= gx1; x++) cells[y * GRID + x] = 1;
  }
  let n = 0;
  for (const c of cells) n += c;
  return n / cells.length;
};

/** Least visible characters for a text layer to be trusted on a page that has images. */
const MIN_TEXT_CHARS = 20;
/** Share of unreadable characters from which a page's text layer is not used (OCR instead). */
const MAX_UNREADABLE_SHARE = 0.25;
/**
 * Weight of a character whose Unicode value the reader inferred (no ToUnicode entry, e.g. a
 * chart's Type 3 font), against 1 for one without any usable value.
 */
const INFERRED_WEIGHT = 0.5;

/** Characters of `text` without any usable Unicode value (private use, U+FFFD, controls). */
const unmapped = (text: string): number => {
  let n = 0;
  for (const c of text) if (isGarbage(c.codePointAt(0) ?? 0)) n++;
  return n;
};

/**
 * Measures one extracted page for the router: text and image coverage, garbage and invisible
 * glyph shares, rules, columns, fonts, and whether the text layer is usable.
 *
 * The text layer is unusable (send the page to OCR) when a quarter or more of its characters
 * are unreadable, when a page with images or vector drawings has (almost) no text, or when a
 * page mostly covered by an image carries little text. A character without any usable Unicode
 * value (private use, U+FFFD, a control) counts fully as unreadable; one whose value the reader
 * inferred without a mapping (PDFium's mapping errors: a font without ToUnicode, such as the
 * Type 3 fonts of a plotted chart's tick labels, which usually read right) counts half. So a page
 * whose every character is inferred still goes to OCR, while a paper page whose figure labels
 * make up a third of its characters keeps its text layer. `garbageRatio` counts both in full. An invisible text layer over a
 * scan (a previous OCR pass, render mode 3) is used as it is: it is usually better than a second
 * OCR and far cheaper; its share still raises the page's complexity score.
 *
 * `rows` are the page's runs grouped by {@link buildRows} (grouped here when not given).
 */
export const pageFeatures = (
  page: ExtractedPage,
  rows: readonly Row[] = buildRows(page.text.runs),
): PageFeatures => {
  const { text, stats } = page;
  const chars = stats.chars;
  const garbageRatio = chars === 0 ? 0 : stats.garbageChars / chars;
  const invisibleCharRatio = stats.glyphs === 0 ? 0 : stats.invisibleGlyphs / stats.glyphs;
  const imageCoverage = coverage(text.images, text.width, text.height);
  const textCoverage = coverage(text.runs, text.width, text.height);
  const blank = chars === 0 && imageCoverage < 0.02 && stats.paintedPaths < 50;
  const unusable = Math.min(stats.garbageChars, unmapped(stats.rawText));
  const inferred = stats.garbageChars - unusable;
  const unreadableShare = chars === 0 ? 0 : (unusable + INFERRED_WEIGHT * inferred) / chars;
  const usableTextLayer =
    blank ||
    (chars >= MIN_TEXT_CHARS &&
      unreadableShare < MAX_UNREADABLE_SHARE &&
      !(imageCoverage > 0.5 && chars < 200 && textCoverage < 0.1));
  return {
    pageNumber: text.pageNumber,
    widthPt: page.widthPt,
    heightPt: page.heightPt,
    textChars: chars,
    garbageRatio,
    textCoverage,
    imageCoverage,
    ruleCount: stats.ruleCount,
    tableAlignment: chars === 0 ? 0 : tableAlignment(text.runs, rows),
    columnCount: chars === 0 ? 1 : estimateColumns(text, rows),
    fontCount: stats.fonts.length,
    mathCharRatio: chars === 0 ? 0 : stats.mathChars / chars,
    invisibleCharRatio,
    usableTextLayer,
  };
};
