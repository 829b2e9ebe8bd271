import { otsuThreshold } from './bands.js';
import { cellGrid, cellGroups, inkPerCell, type Region } from './grey-image.js';
import { inkRuns } from './ink-runs.js';

/** Options of {@link findUncoveredInk}. */
export interface UncoveredOptions {
  /** Side of the square cells ink is counted in, in pixels: about 1 mm. */
  cell: number;
}

/** Least uncovered ink pixels that make a cell count (specks and anti-aliasing do not). */
const MIN_CELL_INK = 3;
/** Cells of ink this many cells apart on a row are one region (letters and words of a line). */
const BRIDGE_CELLS = 3;
/** A region is at least this many cells wide and tall: a word, not a speck or a rule's end. */
const MIN_WIDTH_CELLS = 3;
const MIN_HEIGHT_CELLS = 2;
/** A region covering more of the page than this is a picture, not text tesseract left out. */
const MAX_PAGE_SHARE = 0.1;

/**
 * Finds the ink of a grey page image that no recognised word covers: text that tesseract's page
 * layout analysis left out (words beside check boxes in a form, an underlined line under a
 * title), to be recognised again on its own.
 *
 * Ink is every pixel darker than the page's Otsu threshold (pass the image with its rules erased,
 * see {@link eraseRules}). Pixels inside `covered` (the boxes of the words read, the regions read
 * apart) do not count. The rest is
 * counted in square cells of `cell` pixels; a cell with at least 3 such pixels is ink, and ink
 * cells that touch, or lie up to 3 cells apart on a row, form a region. Regions at least 3 cells
 * wide and 2 tall and at most a tenth of the page are returned, the inkiest first, with a margin of
 * one cell.
 *
 * @param pixels grey levels, one byte per pixel, row-major, `width × height`.
 * @param covered boxes already read, in pixels of the image.
 * @returns the regions' boxes, in pixels of the image.
 */
export function findUncoveredInk(
  pixels: Uint8Array,
  width: number,
  height: number,
  covered: readonly Region[],
  options: UncoveredOptions,
): Region[] {
  const grid = cellGrid(width, height, options.cell);
  if (!grid) return [];
  const { cell } = grid;
  const threshold = otsuThreshold(pixels);
  const free = new Uint8Array(width * height).fill(1);
  for (const box of covered) {
    const x0 = Math.max(0, Math.floor(box.x));
    const x1 = Math.min(width, Math.ceil(box.x + box.w));
    if (x1 <= x0) continue;
    for (let y = Math.max(0, Math.floor(box.y)); y < Math.min(height, box.y + box.h); y++) {
      free.fill(0, y * width + x0, y * width + x1);
    }
  }
  const count = inkPerCell(pixels, width, height, grid, threshold, free);

  const found: { region: Region; ink: number }[] = [];
  const groups = cellGroups(grid, (index) => (count[index] ?? 0) >= MIN_CELL_INK, {
    rows: 1,
    cols: BRIDGE_CELLS,
  });
  for (const { cells, c0, c1, r0, r1 } of groups) {
    if (c1 - c0 + 1 < MIN_WIDTH_CELLS || r1 - r0 + 1 < MIN_HEIGHT_CELLS) continue;
    const x = Math.max(0, (c0 - 1) * cell);
    const y = Math.max(0, (r0 - 1) * cell);
    const region = {
      x,
      y,
      w: Math.min(width, (c1 + 2) * cell) - x,
      h: Math.min(height, (r1 + 2) * cell) - y,
    };
    if (region.w * region.h > MAX_PAGE_SHARE * width * height) continue;
    found.push({ region, ink: cells.reduce((sum, index) => sum + (count[index] ?? 0), 0) });
  }
  return found.sort((a, b) => b.ink - a.ink).map((f) => f.region);
}

/**
 * A copy of a grey page image with its rules painted white: straight horizontal and vertical runs
 * of pixels darker than the page's Otsu threshold at least `ruleLength` long (rules, frames,
 * underlines, the edges of boxes). Text read from it is not underlined or boxed in, and its ink
 * is text, not lines.
 */
export function eraseRules(
  pixels: Uint8Array,
  width: number,
  height: number,
  ruleLength: number,
): Uint8Array {
  // Ink is darker than the threshold: at most one level below it.
  const rule = ruleMask(pixels, width, height, ruleLength, otsuThreshold(pixels) - 1);
  const out = Uint8Array.from(pixels);
  for (let i = 0; i < out.length; i++) if (rule[i] === 1) out[i] = 255;
  return out;
}

/** Gaps of up to this many pixels inside a rule are bridged: dotted and dashed rules. */
const RULE_MAX_GAP = 2;
/** Least share of a bridged rule's pixels that are ink. */
const RULE_MIN_FILL = 0.4;

/**
 * Pixels of straight horizontal or vertical ink runs at least `length` long, gaps of up to
 * {@link RULE_MAX_GAP} pixels bridged when at least {@link RULE_MIN_FILL} of the run is ink.
 */
function ruleMask(
  pixels: Uint8Array,
  width: number,
  height: number,
  length: number,
  maxInk: number,
): Uint8Array {
  const mask = new Uint8Array(width * height);
  const rule = { maxGap: RULE_MAX_GAP, minLength: length, minFill: RULE_MIN_FILL };
  for (let y = 0; y < height; y++) {
    for (const run of inkRuns(pixels, { first: y * width, step: 1, count: width }, maxInk, rule)) {
      mask.fill(1, y * width + run.from, y * width + run.to + 1);
    }
  }
  for (let x = 0; x < width; x++) {
    for (const run of inkRuns(pixels, { first: x, step: width, count: height }, maxInk, rule)) {
      for (let y = run.from; y <= run.to; y++) mask[y * width + x] = 1;
    }
  }
  return mask;
}
