import {
  cellGrid,
  cellGroups,
  inkPerCell,
  medianLevel,
  paddedCrop,
  type GreyImage,
  type Region,
} from './grey-image.js';

/** Options of {@link findDarkRegions}. */
export interface DarkRegionOptions {
  /**
   * Side of the square cells the image is read in, in pixels: about a stroke's length, so that
   * the dark background around light letters joins into one region.
   */
  cell: number;
}

/** Grey levels below this are dark (ink, or a dark background). */
const DARK_LEVEL = 128;
/** A cell is dark when at least this share of its pixels is. */
const DARK_CELL_SHARE = 0.6;
/** Least share of a region's pixels that are dark: a filled band, not bold letters. */
const MIN_DARK_SHARE = 0.65;
/** Least share of light pixels inside a region: there is light text on it to read. */
const MIN_LIGHT_SHARE = 0.01;
/** A region is at least this many cells wide and tall: a band, not a stroke. */
const MIN_WIDTH_CELLS = 8;
const MIN_HEIGHT_CELLS = 3;
/** Edge rows (columns) of a region's box with fewer filled cells than this share are trimmed. */
const EDGE_FILL = 0.5;

/**
 * Finds the dark-background regions of a grey page image (banners, shaded table header rows,
 * labels set light on dark): tesseract reads ink darker than the paper, and misreads or drops
 * light text on a dark fill.
 *
 * The image is read in square cells of `cell` pixels; a cell is dark when most of its pixels are
 * (grey level under 128). Dark cells that touch (4-neighbours) form a region. A region is kept
 * when it is at least 6 cells wide and 3 tall, its box is filled with dark pixels for at least
 * 65% (so bold or large letters, whose boxes are mostly paper, are not) and holds at least 1%
 * light pixels (something to read on it: a solid bar is left alone).
 *
 * @param pixels grey levels, one byte per pixel, row-major, `width × height`.
 * @returns the boxes of the regions, in pixels of the image.
 */
export function findDarkRegions(
  pixels: Uint8Array,
  width: number,
  height: number,
  options: DarkRegionOptions,
): Region[] {
  const grid = cellGrid(width, height, options.cell);
  if (!grid) return [];
  const { cell, cols, rows } = grid;
  const darkCount = inkPerCell(pixels, width, height, grid, DARK_LEVEL);
  const dark = new Uint8Array(cols * rows);
  for (let r = 0; r < rows; r++) {
    const cellHeight = Math.min(cell, height - r * cell);
    for (let c = 0; c < cols; c++) {
      const cellWidth = Math.min(cell, width - c * cell);
      const index = r * cols + c;
      if ((darkCount[index] ?? 0) >= DARK_CELL_SHARE * cellWidth * cellHeight) dark[index] = 1;
    }
  }
  // Opening by 2 × 2 cells: a cell stays dark when it belongs to a dark 2 × 2 block, so rules
  // (a cell thick) neither count as fill nor join a filled band to the frame around it.
  const filled = new Uint8Array(cols * rows);
  for (let r = 0; r + 1 < rows; r++) {
    for (let c = 0; c + 1 < cols; c++) {
      const i = r * cols + c;
      if (dark[i] === 1 && dark[i + 1] === 1 && dark[i + cols] === 1 && dark[i + cols + 1] === 1) {
        filled[i] = 1;
        filled[i + 1] = 1;
        filled[i + cols] = 1;
        filled[i + cols + 1] = 1;
      }
    }
  }

  // Connected dark cells (4-neighbours).
  const regions: Region[] = [];
  const groups = cellGroups(grid, (index) => filled[index] === 1, {
    rows: 1,
    cols: 1,
    straight: true,
  });
  for (let { c0, c1, r0, r1 } of groups) {
    // Trim edge rows and columns mostly paper: letters touching the fill from outside.
    const share = (ra: number, rb: number, ca: number, cb: number): number => {
      let n = 0;
      for (let r = ra; r <= rb; r++) for (let c = ca; c <= cb; c++) n += filled[r * cols + c] ?? 0;
      return n / ((rb - ra + 1) * (cb - ca + 1));
    };
    for (;;) {
      if (r1 > r0 && share(r0, r0, c0, c1) < EDGE_FILL) r0++;
      else if (r1 > r0 && share(r1, r1, c0, c1) < EDGE_FILL) r1--;
      else if (c1 > c0 && share(r0, r1, c0, c0) < EDGE_FILL) c0++;
      else if (c1 > c0 && share(r0, r1, c1, c1) < EDGE_FILL) c1--;
      else break;
    }
    const wide = c1 - c0 + 1;
    const tall = r1 - r0 + 1;
    if (wide < MIN_WIDTH_CELLS || tall < MIN_HEIGHT_CELLS || wide < 2 * tall) continue;
    const box: Region = {
      x: c0 * cell,
      y: r0 * cell,
      w: Math.min(width, (c1 + 1) * cell) - c0 * cell,
      h: Math.min(height, (r1 + 1) * cell) - r0 * cell,
    };
    let darkPixels = 0;
    for (let y = box.y; y < box.y + box.h; y++) {
      for (let x = box.x, at = y * width + box.x; x < box.x + box.w; x++, at++) {
        if ((pixels[at] ?? 255) < DARK_LEVEL) darkPixels++;
      }
    }
    const area = box.w * box.h;
    if (darkPixels < MIN_DARK_SHARE * area || area - darkPixels < MIN_LIGHT_SHARE * area) continue;
    regions.push(box);
  }
  return regions;
}

/**
 * The pixels of `region` inverted (light text on a dark fill becomes dark text on a light one)
 * and stretched so that the fill, the region's median level once inverted, becomes white, inside
 * a white margin of `pad` pixels: the text then stands on paper as tesseract expects.
 */
export function invertedCrop(
  pixels: Uint8Array,
  width: number,
  region: Region,
  pad: number,
): GreyImage {
  const fill = Math.max(1, medianLevel(pixels, width, region, true));
  return paddedCrop(pixels, width, region, pad, (value) =>
    Math.min(255, Math.round(((255 - value) * 255) / fill)),
  );
}

/** A column of a region is a rule when it differs from the fill on at least this share of rows. */
const RULE_ROW_SHARE = 0.9;
/** Least grey-level difference from the fill, and least share of the room to black or white. */
const RULE_MIN_CONTRAST = 30;
const RULE_CONTRAST_SHARE = 0.4;

/** A vertical rule inside a region: columns `x` to `x + w - 1` across rows `y` to `y + h - 1`. */
export type RegionRule = Region;

/**
 * Finds the vertical rules that cross a dark-background region from top to bottom: the column
 * separators of a shaded table header row, drawn darker or lighter than the fill. Inverted and
 * stretched for OCR ({@link invertedCrop}) they vanish, yet they are what tells two header cells
 * one word gap apart (`Cubic | Weight`) from one cell of two words.
 *
 * A column of the region belongs to a rule when, on at least 90% of the region's rows, its pixel
 * differs from the fill (the region's median level) in one direction by at least
 * max(30, 40% of the room between the fill and black, or white): letters never cross the whole
 * band, the paper around it is outside it. Neighbouring such columns are one rule; rules wider
 * than a quarter of the region's height (a filled block) and rules at the region's left or right
 * edge (the frame around the band) are left out.
 *
 * @param pixels grey levels, one byte per pixel, row-major, `width` pixels per row.
 * @returns the rules, left to right, in pixels of the image.
 */
export function rulesInRegion(pixels: Uint8Array, width: number, region: Region): RegionRule[] {
  const fill = medianLevel(pixels, width, region);
  const darker = fill - Math.max(RULE_MIN_CONTRAST, RULE_CONTRAST_SHARE * fill);
  const lighter = fill + Math.max(RULE_MIN_CONTRAST, RULE_CONTRAST_SHARE * (255 - fill));
  const needed = RULE_ROW_SHARE * region.h;
  const isRule = (x: number): boolean => {
    let dark = 0;
    let light = 0;
    for (let y = region.y; y < region.y + region.h; y++) {
      const value = pixels[y * width + x] ?? 255;
      if (value <= darker) dark++;
      else if (value >= lighter) light++;
    }
    return dark >= needed || light >= needed;
  };
  const maxWidth = Math.max(1, Math.floor(region.h / 4));
  const rules: RegionRule[] = [];
  let start = -1;
  for (let x = region.x; x <= region.x + region.w; x++) {
    if (x < region.x + region.w && isRule(x)) {
      if (start < 0) start = x;
      continue;
    }
    if (start < 0) continue;
    const w = x - start;
    const atEdge = start <= region.x + maxWidth || x >= region.x + region.w - maxWidth;
    if (w <= maxWidth && !atEdge) rules.push({ x: start, y: region.y, w, h: region.h });
    start = -1;
  }
  return rules;
}
