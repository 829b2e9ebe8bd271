/**
 * Grey page images as the OCR scans read them: rectangles of them, crops inside a white margin,
 * and the grid of square cells in which the region finders ({@link findDarkRegions},
 * {@link findUncoveredInk}) count pixels and join the cells that hold enough of them.
 */

/** A rectangle of a grey image, in pixels: columns `x` to `x + w - 1`, rows `y` to `y + h - 1`. */
export interface Region {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A grey image: one byte per pixel, row-major. */
export interface GreyImage {
  pixels: Uint8Array;
  width: number;
  height: number;
}

/**
 * The pixels of `region` inside a white margin of `pad` pixels, each passed through `level` when
 * given (e.g. inverted), else copied as they are.
 * @param width pixels per row of `pixels`.
 * @example paddedCrop(page.pixels, page.width, { x: 10, y: 20, w: 100, h: 30 }, 8) // 116 × 46
 */
export function paddedCrop(
  pixels: Uint8Array,
  width: number,
  region: Region,
  pad: number,
  level?: (value: number) => number,
): GreyImage {
  const outWidth = region.w + 2 * pad;
  const outHeight = region.h + 2 * pad;
  const out = new Uint8Array(outWidth * outHeight).fill(255);
  for (let y = 0; y < region.h; y++) {
    const from = (region.y + y) * width + region.x;
    const to = (pad + y) * outWidth + pad;
    if (level === undefined) {
      out.set(pixels.subarray(from, from + region.w), to);
      continue;
    }
    for (let x = 0; x < region.w; x++) out[to + x] = level(pixels[from + x] ?? 0);
  }
  return { pixels: out, width: outWidth, height: outHeight };
}

/**
 * The median grey level of a region's pixels (the lowest level that half of them are at or
 * below), of their inverted levels (255 − level) with `inverted`.
 * @param width pixels per row of `pixels`.
 */
export function medianLevel(
  pixels: Uint8Array,
  width: number,
  region: Region,
  inverted = false,
): number {
  const histogram = new Uint32Array(256);
  for (let y = region.y; y < region.y + region.h; y++) {
    for (let x = region.x, at = y * width + region.x; x < region.x + region.w; x++, at++) {
      const value = inverted ? 255 - (pixels[at] ?? 0) : (pixels[at] ?? 255);
      histogram[value] = (histogram[value] ?? 0) + 1;
    }
  }
  for (let level = 0, seen = 0; level < 256; level++) {
    seen += histogram[level] ?? 0;
    if (2 * seen >= region.w * region.h) return level;
  }
  return 255;
}

/** Square cells of `cell` pixels over a `width × height` image; the last row and column may be cut. */
export interface CellGrid {
  cell: number;
  cols: number;
  rows: number;
}

/**
 * The grid of square cells of about `cell` pixels (rounded, at least 1) over a
 * `width × height` image, or null for an empty image.
 * @example cellGrid(100, 45, 20) // { cell: 20, cols: 5, rows: 3 }
 */
export function cellGrid(width: number, height: number, cell: number): CellGrid | null {
  const side = Math.max(1, Math.round(cell));
  const cols = Math.ceil(width / side);
  const rows = Math.ceil(height / side);
  return cols === 0 || rows === 0 ? null : { cell: side, cols, rows };
}

/**
 * How many pixels of each cell are darker than `level` (and, with `mask`, have `mask` 1),
 * indexed `row * cols + col`.
 * @param pixels grey levels, one byte per pixel, row-major, `width × height`.
 */
export function inkPerCell(
  pixels: Uint8Array,
  width: number,
  height: number,
  grid: CellGrid,
  level: number,
  mask?: Uint8Array,
): Int32Array {
  const { cell, cols, rows } = grid;
  const count = new Int32Array(cols * rows);
  for (let y = 0; y < height; y++) {
    const row = Math.floor(y / cell) * cols;
    for (let x = 0, at = y * width; x < width; x++, at++) {
      if ((pixels[at] ?? 255) < level && (mask === undefined || mask[at] === 1)) {
        const index = row + Math.floor(x / cell);
        count[index] = (count[index] ?? 0) + 1;
      }
    }
  }
  return count;
}

/** A set of connected cells and the box of cells around it (columns `c0`..`c1`, rows `r0`..`r1`). */
export interface CellGroup {
  /** The cells' indices (`row * cols + col`), in the order they were reached. */
  cells: number[];
  c0: number;
  c1: number;
  r0: number;
  r1: number;
}

/**
 * The groups of member cells that reach each other, in the order of their first cell. A cell
 * reaches the members up to `reach.rows` rows and `reach.cols` columns away, diagonally too
 * unless `reach.straight` (then only along its row or column: `{ rows: 1, cols: 1, straight: true }`
 * is 4-connectivity).
 */
export function cellGroups(
  grid: CellGrid,
  member: (index: number) => boolean,
  reach: { rows: number; cols: number; straight?: boolean },
): CellGroup[] {
  const { cols, rows } = grid;
  const seen = new Uint8Array(cols * rows);
  const stack: number[] = [];
  const groups: CellGroup[] = [];
  for (let start = 0; start < cols * rows; start++) {
    if (seen[start] === 1 || !member(start)) continue;
    const group: CellGroup = { cells: [], c0: cols, c1: -1, r0: rows, r1: -1 };
    seen[start] = 1;
    stack.push(start);
    while (stack.length > 0) {
      const index = stack.pop() ?? 0;
      const r = Math.floor(index / cols);
      const c = index - r * cols;
      group.cells.push(index);
      group.c0 = Math.min(group.c0, c);
      group.c1 = Math.max(group.c1, c);
      group.r0 = Math.min(group.r0, r);
      group.r1 = Math.max(group.r1, r);
      for (let dr = -reach.rows; dr <= reach.rows; dr++) {
        for (let dc = -reach.cols; dc <= reach.cols; dc++) {
          if (reach.straight === true && dr !== 0 && dc !== 0) continue;
          const rr = r + dr;
          const cc = c + dc;
          if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
          const next = rr * cols + cc;
          if (seen[next] !== 1 && member(next)) {
            seen[next] = 1;
            stack.push(next);
          }
        }
      }
    }
    groups.push(group);
  }
  return groups;
}
