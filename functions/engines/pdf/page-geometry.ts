import type { Rect, Segment } from '../layout/types.js';

/**
 * Geometry shared by the two PDF readers (pdf.js and PDFium): affine matrices, rule segments
 * from painted paths, and the placement of raster images. Coordinates passed in are in the
 * reader's user space; everything stored is in pixels of the page image, origin top-left.
 */

/** A PDF affine matrix `[a b c d e f]`: x' = a·x + c·y + e, y' = b·x + d·y + f. */
export type Matrix = [number, number, number, number, number, number];

/** The matrix that applies `n` first, then `m`. */
export const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];

export const apply = (m: Matrix, x: number, y: number): [number, number] => [
  m[0] * x + m[2] * y + m[4],
  m[1] * x + m[3] * y + m[5],
];

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/**
 * The matrix from PDF user space to pixels of the page image at `dpi` (origin top-left), as a
 * viewer shows the page: `box` is the visible area (crop box ∩ media box) as `[x0, y0, x1, y1]`
 * in points, `rotate` the page's /Rotate in degrees clockwise (0, 90, 180 or 270).
 */
export const pageToPixels = (
  box: readonly [number, number, number, number],
  rotate: number,
  dpi: number,
): Matrix => {
  const s = dpi / 72;
  const [x0, y0, x1, y1] = box;
  switch (((rotate % 360) + 360) % 360) {
    case 90:
      return [0, s, s, 0, -y0 * s, -x0 * s];
    case 180:
      return [-s, 0, 0, s, x1 * s, -y0 * s];
    case 270:
      return [0, -s, -s, 0, y1 * s, x1 * s];
    default:
      return [s, 0, 0, -s, -x0 * s, y1 * s];
  }
};

/**
 * Invisible format controls that no glyph prints: the bidirectional embeddings, overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069), which reorder how text displays (a spoofing device),
 * and the zero-width space, word joiner and byte order mark (U+200B, U+2060, U+FEFF). A text
 * layer that maps a drawn glyph to one of them does not say what the page shows: they count as
 * garbage and are left out of the text. Zero-width joiners (U+200C, U+200D), which shape Arabic
 * and Indic scripts, are kept.
 */
export const isFormatControl = (code: number): boolean =>
  (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069) ||
  code === 0x200b ||
  code === 0x2060 ||
  code === 0xfeff;

/** Characters that carry no recoverable text: private use, replacement, C0/C1 controls. */
export const isGarbage = (code: number): boolean =>
  isFormatControl(code) ||
  (code >= 0xe000 && code <= 0xf8ff) ||
  code === 0xfffd ||
  (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) ||
  (code >= 0x7f && code <= 0x9f) ||
  code >= 0xf0000;

/** Most rule segments kept per page (more are counted, not stored). */
export const MAX_SEGMENTS = 4_000;
/** Most image placements kept per page. */
export const MAX_IMAGES = 500;

/**
 * Path drawing codes of the flat path arrays {@link RuleCollector.addPath} reads (pdf.js'
 * DrawOPS): moveTo x y, lineTo x y, curveTo x1 y1 x2 y2 x y, quadraticCurveTo x1 y1 x y,
 * closePath.
 */
export const PathOp = { moveTo: 0, lineTo: 1, curveTo: 2, quadraticCurveTo: 3, closePath: 4 };

/**
 * Collects horizontal and vertical rule segments (table borders, underlines, separators) from
 * painted paths, in pixels at `dpi`. Thin filled rectangles become one rule; larger ones (cell
 * backgrounds) their four edges, unless they cover half the page. Diagonal and very short
 * strokes are dropped.
 */
export class RuleCollector {
  readonly rules: Segment[] = [];
  /** Segments found, including those beyond the storage cap. */
  count = 0;
  readonly #thin: number;
  readonly #pageArea: number;

  constructor(dpi: number, pageArea: number) {
    this.#thin = Math.max(2, dpi / 36);
    this.#pageArea = pageArea;
  }

  /** Adds a straight edge given in pixels. */
  addSegment(x1: number, y1: number, x2: number, y2: number): void {
    const horizontal = Math.abs(y1 - y2) < 1;
    const vertical = Math.abs(x1 - x2) < 1;
    if (!horizontal && !vertical) return;
    if (Math.hypot(x2 - x1, y2 - y1) < 2) return;
    this.count++;
    if (this.rules.length < MAX_SEGMENTS) this.rules.push({ x1, y1, x2, y2 });
  }

  /**
   * Adds the straight edges of a painted path given as {@link PathOp} codes and coordinates in
   * user space; `toPixels` maps a user-space point to pixels.
   */
  addPath(data: ArrayLike<number>, toPixels: (x: number, y: number) => [number, number]): void {
    const edge = (ax: number, ay: number, bx: number, by: number): void => {
      const [x1, y1] = toPixels(ax, ay);
      const [x2, y2] = toPixels(bx, by);
      this.addSegment(x1, y1, x2, y2);
    };
    readPath(data, edge, (ax, ay, bx, by) => {
      // A filled rectangle: a rule when thin, a cell (four edges) when not too large.
      const [x1, y1] = toPixels(ax, ay);
      const [x2, y2] = toPixels(bx, by);
      const w = Math.abs(x2 - x1);
      const h = Math.abs(y2 - y1);
      const thin = this.#thin;
      if (w * h > this.#pageArea * 0.5) return;
      if (h <= thin && w > thin) edge(ax, (ay + by) / 2, bx, (ay + by) / 2);
      else if (w <= thin && h > thin) edge((ax + bx) / 2, ay, (ax + bx) / 2, by);
      else if (w > thin && h > thin) {
        edge(ax, ay, bx, ay);
        edge(ax, by, bx, by);
        edge(ax, ay, ax, by);
        edge(bx, ay, bx, by);
      }
    });
  }
}

/**
 * Collects where raster images are drawn, in pixels (clipped to the page), and the native
 * resolution of a scan: an image covering at least 70% of the page.
 */
export class ImageCollector {
  readonly images: Rect[] = [];
  /** Pixels per inch of the page of the last image covering ≥ 70% of the page; null if none. */
  scanDpi: number | null = null;
  readonly #width: number;
  readonly #height: number;
  readonly #dpi: number;

  constructor(width: number, height: number, dpi: number) {
    this.#width = width;
    this.#height = height;
    this.#dpi = dpi;
  }

  /**
   * Adds an image drawn through `toPixels` (which maps the image's unit square to pixels);
   * `pixels` is its width × height in samples when known.
   */
  add(toPixels: (x: number, y: number) => [number, number], pixels: number | null): void {
    if (this.images.length >= MAX_IMAGES) return;
    const corners = [toPixels(0, 0), toPixels(1, 0), toPixels(0, 1), toPixels(1, 1)];
    const xs = corners.map((c) => c[0]);
    const ys = corners.map((c) => c[1]);
    const x = Math.max(0, Math.min(...xs));
    const y = Math.max(0, Math.min(...ys));
    const w = Math.min(this.#width, Math.max(...xs)) - x;
    const h = Math.min(this.#height, Math.max(...ys)) - y;
    if (w > 1 && h > 1) this.images.push({ x, y, w, h });
    if (pixels !== null && pixels > 0 && w * h >= this.#width * this.#height * 0.7) {
      // The image's pixels over its full (unclipped) area in square inches of the page.
      const area = (Math.max(...xs) - Math.min(...xs)) * (Math.max(...ys) - Math.min(...ys));
      if (area > 0) this.scanDpi = Math.round(this.#dpi * Math.sqrt(pixels / area));
    }
  }
}

/**
 * Walks a flat path ({@link PathOp} codes followed by coordinates): straight edges go to
 * `segment`, axis-aligned closed four-point paths (the `re` operator) go to `rectangle`.
 */
const readPath = (
  data: ArrayLike<number>,
  segment: (ax: number, ay: number, bx: number, by: number) => void,
  rectangle: (ax: number, ay: number, bx: number, by: number) => void,
): void => {
  let startX = 0;
  let startY = 0;
  let x = 0;
  let y = 0;
  let points: [number, number][] = [];
  const flushRectangle = (): boolean => {
    if (points.length < 4 || points.length > 5) return false;
    const xs = [...new Set(points.map((p) => Math.round(p[0] * 100)))];
    const ys = [...new Set(points.map((p) => Math.round(p[1] * 100)))];
    if (xs.length !== 2 || ys.length !== 2) return false;
    const px = points.map((p) => p[0]);
    const py = points.map((p) => p[1]);
    rectangle(Math.min(...px), Math.min(...py), Math.max(...px), Math.max(...py));
    return true;
  };
  let edges: [number, number, number, number][] = [];
  const flush = (): void => {
    if (!flushRectangle()) for (const e of edges) segment(e[0], e[1], e[2], e[3]);
    points = [];
    edges = [];
  };
  for (let i = 0; i < data.length;) {
    const op = data[i++];
    if (op === PathOp.moveTo) {
      flush();
      x = startX = data[i++] ?? 0;
      y = startY = data[i++] ?? 0;
      points.push([x, y]);
    } else if (op === PathOp.lineTo) {
      const nx = data[i++] ?? 0;
      const ny = data[i++] ?? 0;
      edges.push([x, y, nx, ny]);
      points.push([nx, ny]);
      x = nx;
      y = ny;
    } else if (op === PathOp.curveTo) {
      i += 6;
      x = data[i - 2] ?? 0;
      y = data[i - 1] ?? 0;
      points.push([NaN, NaN]);
    } else if (op === PathOp.quadraticCurveTo) {
      i += 4;
      x = data[i - 2] ?? 0;
      y = data[i - 1] ?? 0;
      points.push([NaN, NaN]);
    } else if (op === PathOp.closePath) {
      if (x !== startX || y !== startY) edges.push([x, y, startX, startY]);
      x = startX;
      y = startY;
    } else {
      break;
    }
  }
  flush();
};
