import type { GreyImage, Region } from './grey-image.js';
import type { OcrWord } from './tesseract-ocr.js';

/** A grey image, the level under which a pixel is ink, and its scale to the words' boxes. */
export interface InkImage extends GreyImage {
  /** Grey levels below this are ink (the page's Otsu threshold). */
  threshold: number;
  /** Image pixels per pixel of the words' boxes. */
  scale: number;
}

/** A word's box is cut to its ink only when that ink is at most this share of the box's height. */
export const MAX_FITTED_HEIGHT_SHARE = 0.7;

/** Box of `word` in pixels of `image`, clipped to it (empty when outside). */
function boxIn(word: OcrWord, image: InkImage): Region {
  const x0 = Math.max(0, Math.floor(word.bbox.x * image.scale));
  const y0 = Math.max(0, Math.floor(word.bbox.y * image.scale));
  const x1 = Math.min(image.width, Math.ceil((word.bbox.x + word.bbox.w) * image.scale));
  const y1 = Math.min(image.height, Math.ceil((word.bbox.y + word.bbox.h) * image.scale));
  return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
}

/** Ink pixels of each row of `box`. */
function rowInk(image: InkImage, box: Region): number[] {
  const counts: number[] = [];
  for (let y = box.y; y < box.y + box.h; y++) {
    let n = 0;
    for (let x = box.x, at = y * image.width + x; x < box.x + box.w; x++, at++) {
      if ((image.pixels[at] ?? 255) < image.threshold) n++;
    }
    counts.push(n);
  }
  return counts;
}

/**
 * Word boxes cut to the ink of their own text. tesseract's box of a word that touches a rule, a
 * frame or an underline (or that it read together with them) grows over them and over the line
 * next to it (`Please` of an underlined line in a frame: 25 pixels for 10 of letters), and then
 * its baseline and size pull that line into the next one, whose words come out interleaved.
 *
 * Only boxes that reach over the box of a word of another line at most
 * {@link MAX_FITTED_HEIGHT_SHARE} as tall are fitted (handwriting, whose words overlap words as
 * tall, keeps its boxes). In `image` (the page with its rules erased, so underlines and frames are
 * not ink), the rows of a word's box are split into bands of ink separated by more than `gap` blank rows; when the
 * inkiest band is at most {@link MAX_FITTED_HEIGHT_SHARE} of the box's height, the box becomes
 * that band (its width is kept) and the baseline is moved inside it. Words whose centre lies in
 * one of `skip` (dark regions, read inverted: their ink is the background) keep their boxes.
 *
 * @param gap blank rows (pixels of `image`) bridged inside a word: the dot of an `i`, accents.
 * @returns the words, those fitted as copies.
 */
export function fitWordBoxes(
  words: readonly OcrWord[],
  image: InkImage,
  gap: number,
  skip: readonly Region[] = [],
): OcrWord[] {
  return words.map((word) => {
    const grownOver = (other: OcrWord) =>
      other.lineId !== word.lineId &&
      other.bbox.h <= MAX_FITTED_HEIGHT_SHARE * word.bbox.h &&
      overlaps(word.bbox, other.bbox);
    if (!words.some(grownOver)) {
      return word;
    }
    const box = boxIn(word, image);
    if (box.w === 0 || box.h < 3 || inAny(word, image.scale, skip)) return word;
    const counts = rowInk(image, box);
    let best: { top: number; bottom: number; ink: number } | null = null;
    let band: { top: number; bottom: number; ink: number } | null = null;
    let blank = 0;
    const close = () => {
      if (band && (!best || band.ink > best.ink)) best = band;
      band = null;
    };
    counts.forEach((n, row) => {
      if (n === 0) {
        blank++;
        if (blank > gap) close();
        return;
      }
      blank = 0;
      if (band) {
        band.bottom = row;
        band.ink += n;
      } else {
        band = { top: row, bottom: row, ink: n };
      }
    });
    close();
    const found = best as { top: number; bottom: number; ink: number } | null;
    if (!found) return word;
    const rows = found.bottom - found.top + 1;
    if (rows > MAX_FITTED_HEIGHT_SHARE * box.h) return word;
    const y = (box.y + found.top) / image.scale;
    const h = rows / image.scale;
    const baseline = Math.min(Math.max(word.baseline, y), y + h);
    return { ...word, bbox: { ...word.bbox, y, h }, baseline };
  });
}

const inAny = (word: OcrWord, scale: number, regions: readonly Region[]): boolean => {
  const cx = (word.bbox.x + word.bbox.w / 2) * scale;
  const cy = (word.bbox.y + word.bbox.h / 2) * scale;
  return regions.some((r) => cx >= r.x && cx < r.x + r.w && cy >= r.y && cy < r.y + r.h);
};

/** Boxes share some area. */
const overlaps = (a: OcrWord['bbox'], b: OcrWord['bbox']): boolean =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** An empty check box, and one with a mark in it. */
export const CHECK_BOX = { empty: '☐', checked: '☑' } as const;

/** Text tesseract makes of a check box: no more than one letter or digit (`[[]`, `O`, `[¢/]`). */
const BOX_LIKE_TEXT = /^[^\p{L}\p{N}]{0,4}[\p{L}\p{N}]?[^\p{L}\p{N}]{0,4}$/u;

/** Least share of a check box's width (height) that the longest ink run of a side covers. */
const MIN_SIDE_SHARE = 0.8;
/** Smallest side of a check box, in pixels of the image it is found in. */
const MIN_BOX_SIDE = 6;
/** Least share of ink inside a check box (inset by a quarter of its side) for it to be marked. */
const MIN_MARK_SHARE = 0.08;

/** Most share of ink inside a check box: a filled square is a bullet. */
const MAX_MARK_SHARE = 0.6;

/**
 * Whether the ink inside `box` (pixels of `image`) is a check box: four straight sides. Its top
 * and bottom are the highest and lowest rows holding a run of ink at least 60% as long as the
 * ink is wide; its left and right the outermost columns between them whose ink runs cover
 * {@link MIN_SIDE_SHARE} of that height; the two rows' runs cover that share of the width
 * between the two columns, and the square is at most half again as wide as it is tall, or as
 * tall as it is wide. Letters have no four straight sides (`n` has no bottom, `O` and `D` round
 * ones); a tick or a cross in the box, which may reach past it, does not form one either.
 *
 * @returns `'checked'` when at least {@link MIN_MARK_SHARE} of the inside is ink, `'empty'`, or
 *   null when the ink is not a check box (or a filled square: {@link MAX_MARK_SHARE}).
 */
export function checkBoxIn(image: InkImage, box: Region): 'empty' | 'checked' | null {
  const x0 = Math.max(0, box.x);
  const y0 = Math.max(0, box.y);
  const x1 = Math.min(image.width, box.x + box.w) - 1;
  const y1 = Math.min(image.height, box.y + box.h) - 1;
  if (x1 - x0 + 1 < MIN_BOX_SIDE || y1 - y0 + 1 < MIN_BOX_SIDE) return null;
  const ink = (x: number, y: number) =>
    (image.pixels[y * image.width + x] ?? 255) < image.threshold;
  /** Longest run of ink in row `y` between columns `from` and `to`, with its start. */
  const rowRun = (y: number, from: number, to: number): { start: number; length: number } => {
    let best = { start: from, length: 0 };
    let start = -1;
    for (let x = from; x <= to + 1; x++) {
      if (x <= to && ink(x, y)) {
        if (start < 0) start = x;
      } else if (start >= 0) {
        if (x - start > best.length) best = { start, length: x - start };
        start = -1;
      }
    }
    return best;
  };
  const columnRun = (x: number, from: number, to: number): number => {
    let best = 0;
    let run = 0;
    for (let y = from; y <= to; y++) {
      run = ink(x, y) ? run + 1 : 0;
      best = Math.max(best, run);
    }
    return best;
  };
  const lines: number[] = [];
  let inkLeft = Infinity;
  let inkRight = -1;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (!ink(x, y)) continue;
      inkLeft = Math.min(inkLeft, x);
      inkRight = Math.max(inkRight, x);
    }
  }
  const inkWidth = inkRight - inkLeft + 1;
  if (inkRight < 0 || inkWidth < MIN_BOX_SIDE) return null;
  for (let y = y0; y <= y1; y++) {
    if (rowRun(y, inkLeft, inkRight).length >= 0.6 * inkWidth) lines.push(y);
  }
  const top = lines[0];
  const bottom = lines[lines.length - 1];
  if (top === undefined || bottom === undefined || bottom - top + 1 < MIN_BOX_SIDE) return null;
  const height = bottom - top + 1;
  const sides: number[] = [];
  for (let x = inkLeft; x <= inkRight; x++) {
    if (columnRun(x, top, bottom) >= MIN_SIDE_SHARE * height) sides.push(x);
  }
  const left = sides[0];
  const right = sides[sides.length - 1];
  if (left === undefined || right === undefined) return null;
  const width = right - left + 1;
  if (width < MIN_BOX_SIDE || width > 1.5 * height || height > 1.5 * width) return null;
  for (const y of [top, bottom]) {
    if (rowRun(y, left, right).length < MIN_SIDE_SHARE * width) return null;
  }
  const ix0 = left + Math.ceil(width / 4);
  const ix1 = right - Math.ceil(width / 4);
  const iy0 = top + Math.ceil(height / 4);
  const iy1 = bottom - Math.ceil(height / 4);
  let inside = 0;
  let marked = 0;
  for (let y = iy0; y <= iy1; y++) {
    for (let x = ix0; x <= ix1; x++) {
      inside++;
      if (ink(x, y)) marked++;
    }
  }
  // A filled square is a bullet (or a blot), not a box.
  if (inside === 0 || marked / inside > MAX_MARK_SHARE) return null;
  return marked / inside >= MIN_MARK_SHARE ? 'checked' : 'empty';
}

/**
 * Check boxes read as text (`[[]`, `[]`, `O`, `[¢/]`) become {@link CHECK_BOX} glyphs set in the
 * line of their label. A printed box is taller than the text beside it: read as a letter it
 * would give its line (or a line of its own) the size of a heading and pull the lines around it
 * into one, interleaving the words of a column with those beside it.
 *
 * A word is a check box when its text has at most one letter or digit and its ink is one
 * ({@link checkBoxIn}, in `image`: the page as recognised, rules kept). Its label is the nearest
 * word starting right of it, within twice its height, whose middle lies within its height: the
 * box takes that word's line, size, baseline and vertical extent (its horizontal extent is kept).
 *
 * @returns the words, check boxes replaced by copies.
 */
export function markCheckBoxes(words: readonly OcrWord[], image: InkImage): OcrWord[] {
  return words.map((word) => {
    if (!BOX_LIKE_TEXT.test(word.text)) return word;
    const state = checkBoxIn(image, boxIn(word, image));
    if (state === null) return word;
    const { x, y, w, h } = word.bbox;
    const label = words
      .filter((other) => {
        const middle = other.bbox.y + other.bbox.h / 2;
        const gap = other.bbox.x - (x + w);
        return (
          other !== word &&
          gap >= -0.25 * w &&
          gap <= 2 * h &&
          middle >= y &&
          middle <= y + h &&
          other.bbox.h < h
        );
      })
      .sort((a, b) => a.bbox.x - b.bbox.x)[0];
    const text = CHECK_BOX[state];
    if (!label) return { ...word, text };
    return {
      ...word,
      text,
      bbox: { x, y: label.bbox.y, w, h: label.bbox.h },
      blockId: label.blockId,
      paragraphId: label.paragraphId,
      lineId: label.lineId,
      baseline: label.baseline,
      fontSize: label.fontSize,
    };
  });
}
