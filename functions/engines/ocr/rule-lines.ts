import sharp from 'sharp';
import type { Segment } from '../layout/types.js';
import { inkRuns, isRun, type Run, type RunRule } from './ink-runs.js';

/** Grey levels at or below this are ink. */
export const RULE_DARK_THRESHOLD = 160;
/** Gaps of up to this many light pixels inside a run are bridged (scan noise, dashes). */
const MAX_GAP = 2;
/** Share of a run's pixels that must be dark (bridged gaps excluded): text strokes leave gaps. */
const MIN_RUN_FILL = 0.9;
/** Share of a line's extent that may be dark just beside it (else it borders a filled block). */
const MAX_EDGE_SHARE = 0.5;
/**
 * Lines spanning more than this share of the page are page frames and form borders: given to the
 * layout, they turn a whole boxed form into one table.
 */
const MAX_PAGE_SHARE = 0.6;
/**
 * A line longer than {@link MAX_PAGE_SHARE} is kept when at least this many shorter vertical
 * lines cross it: the row rules of a table that spans the page (two or three are the middle
 * divider and sides of a boxed form).
 */
const MIN_TABLE_CROSSINGS = 4;

/** Runs on consecutive rows (columns) that overlap, merged into one line. */
interface Band {
  first: number;
  last: number;
  from: number;
  to: number;
  /** Sum of run lengths, to tell thin lines from filled blocks. */
  ink: number;
  /** The run on the band's last row (column): the next row's run must overlap it. */
  tail: Run;
}

/**
 * Finds horizontal and vertical rule lines (table grids, form boxes, underlines) in a page image.
 *
 * The image is read as grey and thresholded at {@link RULE_DARK_THRESHOLD}. On every row, runs of
 * dark pixels (gaps of up to 2 pixels bridged, at least 90% dark) at least max(40 px, 6% of the
 * width) long are kept. Runs on neighbouring rows that overlap are one line. Lines thicker than
 * 1% of the page height (at least 3 px) are filled areas (photos, shading) and dropped, and so
 * are lines with dark pixels over half their extent just above or below (the edges of a dark
 * banner broken by light text), and lines longer than 60% of the page (frames, form borders),
 * except the row rules of a page-wide table: horizontal lines crossed by at least four shorter
 * vertical lines, kept together with the page-long verticals cut to the rows they cross.
 * Columns are read the same way for vertical lines at least
 * max(25 px, 2% of the height) long. Both directions are read in one row-major pass each.
 *
 * @param png the page image (any format sharp reads).
 * @param width the page image size the segments are given in (the image's own size, normally).
 * @param height see `width`.
 * @returns one segment per line, through the middle of its thickness, in page-image pixels
 *   (origin top-left); horizontal segments first.
 */
export async function detectRuleLines(
  png: Uint8Array,
  width: number,
  height: number,
): Promise<Segment[]> {
  const { data, info } = await sharp(png)
    .flatten({ background: '#ffffff' })
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const w = info.width;
  const h = info.height;
  if (w === 0 || h === 0) return [];
  const grey: Uint8Array =
    info.channels === 1 ? data : data.filter((_, i) => i % info.channels === 0);
  const sx = width / w;
  const sy = height / h;

  const rows = rowRuns(grey, w, h, Math.max(40, 0.06 * w));
  const columns = columnRuns(grey, w, h, Math.max(25, 0.02 * h));
  const horizontal = bands(rows, Math.max(3, 0.01 * h)).filter(
    (b) =>
      edgeShare(grey, w, b, b.first - 1, h, true) <= MAX_EDGE_SHARE &&
      edgeShare(grey, w, b, b.last + 1, h, true) <= MAX_EDGE_SHARE,
  );
  const vertical = bands(columns, Math.max(3, 0.01 * w)).filter(
    (b) =>
      edgeShare(grey, w, b, b.first - 1, w, false) <= MAX_EDGE_SHARE &&
      edgeShare(grey, w, b, b.last + 1, w, false) <= MAX_EDGE_SHARE,
  );
  const shortHorizontal = horizontal.filter((b) => b.to - b.from + 1 <= MAX_PAGE_SHARE * w);
  const shortVertical = vertical.filter((b) => b.to - b.from + 1 <= MAX_PAGE_SHARE * h);
  // A page-wide line that column rules cross is a table's row rule, not a frame.
  const tableRows = horizontal.filter(
    (b) =>
      b.to - b.from + 1 > MAX_PAGE_SHARE * w &&
      shortVertical.filter((v) => crosses(b, v)).length >= MIN_TABLE_CROSSINGS,
  );
  // The frame's sides, cut to the table rows they cross, close such a table left and right.
  const tableSides: Band[] = [];
  for (const v of vertical) {
    if (v.to - v.from + 1 <= MAX_PAGE_SHARE * h) continue;
    const rowsCrossed = tableRows.filter((b) => crosses(b, v));
    if (rowsCrossed.length < 2) continue;
    tableSides.push({
      ...v,
      from: Math.min(...rowsCrossed.map((b) => b.first)),
      to: Math.max(...rowsCrossed.map((b) => b.last)),
    });
  }

  const out: Segment[] = [];
  for (const b of [...shortHorizontal, ...tableRows]) {
    const y = ((b.first + b.last + 1) / 2) * sy;
    out.push({ x1: b.from * sx, y1: y, x2: (b.to + 1) * sx, y2: y });
  }
  for (const b of [...shortVertical, ...tableSides]) {
    const x = ((b.first + b.last + 1) / 2) * sx;
    out.push({ x1: x, y1: b.from * sy, x2: x, y2: (b.to + 1) * sy });
  }
  return out;
}

/** Whether horizontal band `row` and vertical band `column` cross or touch (2 px slack). */
function crosses(row: Band, column: Band): boolean {
  const slack = 2;
  return (
    column.first <= row.to + slack &&
    column.last >= row.from - slack &&
    row.first <= column.to + slack &&
    row.last >= column.from - slack
  );
}

/** A dark stretch is a rule when long enough and nearly solid. */
function runRule(minLength: number): RunRule {
  return { maxGap: MAX_GAP, minLength, minFill: MIN_RUN_FILL };
}

/** The runs of every row. */
function rowRuns(grey: Uint8Array, w: number, h: number, minLength: number): Run[][] {
  const rule = runRule(minLength);
  return Array.from({ length: h }, (_, y) =>
    inkRuns(grey, { first: y * w, step: 1, count: w }, RULE_DARK_THRESHOLD, rule),
  );
}

/**
 * The runs of every column, read row by row (one state per column). Pixels inside a filled area
 * (dark `reach` pixels away on all four diagonals) are not ink here: every column crossing a dark
 * banner would otherwise hold a run as tall as the banner, and those runs, joined across the
 * banner's width, swallow the column rules that meet it into one band too thick to be a line.
 */
function columnRuns(grey: Uint8Array, w: number, h: number, minLength: number): Run[][] {
  const rule = runRule(minLength);
  const out: Run[][] = Array.from({ length: w }, () => []);
  const start = new Int32Array(w).fill(-1);
  const end = new Int32Array(w);
  const ink = new Int32Array(w);
  const reach = Math.max(3, Math.round(0.005 * w));
  const dark = (x: number, y: number): boolean =>
    x >= 0 && x < w && y >= 0 && y < h && (grey[y * w + x] ?? 255) <= RULE_DARK_THRESHOLD;
  const filled = (x: number, y: number): boolean =>
    dark(x - reach, y - reach) &&
    dark(x + reach, y - reach) &&
    dark(x - reach, y + reach) &&
    dark(x + reach, y + reach);
  for (let y = 0; y < h; y++) {
    const base = y * w;
    for (let x = 0; x < w; x++) {
      if ((grey[base + x] ?? 255) > RULE_DARK_THRESHOLD || filled(x, y)) continue;
      const s = start[x] ?? -1;
      const e = end[x] ?? 0;
      if (s < 0 || y - e - 1 > MAX_GAP) {
        if (s >= 0 && isRun(s, e, ink[x] ?? 0, rule)) out[x]?.push({ from: s, to: e });
        start[x] = y;
        ink[x] = 0;
      }
      ink[x] = (ink[x] ?? 0) + 1;
      end[x] = y;
    }
  }
  for (let x = 0; x < w; x++) {
    const s = start[x] ?? -1;
    const e = end[x] ?? 0;
    if (s >= 0 && isRun(s, e, ink[x] ?? 0, rule)) out[x]?.push({ from: s, to: e });
  }
  return out;
}

/**
 * Merges overlapping runs of consecutive rows (columns) into bands and keeps the thin, solid
 * ones. A run continues a band when it overlaps the band's run on the previous row, not just its
 * extent: beside a page-long frame, every short line would otherwise join the frame.
 */
function bands(runsByLine: readonly Run[][], maxThickness: number): Band[] {
  const done: Band[] = [];
  let open: Band[] = [];
  for (const [i, runs] of runsByLine.entries()) {
    const next: Band[] = [];
    for (const run of runs) {
      const band = open.find((b) => run.from <= b.tail.to && run.to >= b.tail.from);
      if (band && !next.includes(band)) {
        band.last = i;
        band.from = Math.min(band.from, run.from);
        band.to = Math.max(band.to, run.to);
        band.ink += run.to - run.from + 1;
        band.tail = run;
        next.push(band);
      } else {
        const ink = run.to - run.from + 1;
        next.push({ first: i, last: i, from: run.from, to: run.to, ink, tail: run });
      }
    }
    for (const band of open) if (!next.includes(band)) done.push(band);
    open = next;
  }
  done.push(...open);
  return done.filter((b) => {
    const thickness = b.last - b.first + 1;
    return thickness <= maxThickness && b.ink >= 0.5 * thickness * (b.to - b.from + 1);
  });
}

/** Dark share of the pixels beside a band on row (column) `line`; 0 outside the image. */
function edgeShare(
  grey: Uint8Array,
  w: number,
  band: Band,
  line: number,
  lines: number,
  horizontal: boolean,
): number {
  if (line < 0 || line >= lines) return 0;
  let n = 0;
  for (let k = band.from; k <= band.to; k++) {
    const v = (horizontal ? grey[line * w + k] : grey[k * w + line]) ?? 255;
    if (v <= RULE_DARK_THRESHOLD) n++;
  }
  return n / (band.to - band.from + 1);
}
