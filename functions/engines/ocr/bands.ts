/** A horizontal strip of a page image: rows `top` to `top + height - 1`. */
export interface Band {
  top: number;
  height: number;
}

/** Options of {@link splitIntoBands}. */
export interface SplitOptions {
  /** Number of bands wanted; fewer are returned when the page has no suitable gaps. */
  parts: number;
  /** Shortest run of blank rows, in pixels, that may be cut through. */
  minGap: number;
  /**
   * Vertical ink runs at least this long (pixels) are rules, not text. Rows crossed by four or
   * more are inside a table and never cut; up to three (a frame, a column divider) are ignored.
   * @default Infinity (every ink pixel counts)
   */
  ruleLength?: number;
  /**
   * Smallest share of the page's ink a band may hold; cuts that would leave less are dropped,
   * since such a band saves almost no time.
   * @default 0.15
   */
  minShare?: number;
}

/**
 * Splits a grey page image into horizontal bands at blank gaps, each band holding about the same
 * amount of ink, so that the bands can be recognised at the same time by separate OCR workers.
 *
 * Ink is every pixel darker than the page's Otsu threshold, except vertical rules; a row is blank
 * when at most 0.2% of its pixels (and at least 2) are ink. Cuts go through the middle of runs of
 * at least `minGap` blank rows, so no text line is cut. Tables are never cut, nor approached
 * closer than `6 × minGap` (rows crossed by four or more column rules; rows between two
 * horizontal rules less than a third of the page apart with no vertical rule beside them):
 * tesseract lays out each band on its own, and a table split in two loses its columns. The recogniser's time grows with the amount of text, hence
 * balancing ink rather than height.
 *
 * @param pixels grey levels, one byte per pixel, row-major, `width × height`.
 * @returns bands covering every row once, top to bottom; a single band when no cut qualifies.
 */
export function splitIntoBands(
  pixels: Uint8Array,
  width: number,
  height: number,
  options: SplitOptions,
): Band[] {
  const whole: Band[] = [{ top: 0, height }];
  if (options.parts < 2 || width === 0 || height === 0) return whole;
  const threshold = otsuThreshold(pixels);
  const ruleLength = options.ruleLength ?? Infinity;
  const findRules = Number.isFinite(ruleLength);
  // One row-major pass: ink per row, the longest horizontal run of each row, and vertical runs
  // per column (a run that reaches ruleLength marks its pixels as rule).
  const rowInk = new Float64Array(height);
  const ruleRows: number[] = [];
  const rule = findRules ? new Uint8Array(width * height) : null;
  const columnRun = new Int32Array(width);
  const markRule = (x: number, end: number, length: number): void => {
    if (rule === null || length < ruleLength) return;
    for (let r = end - length; r < end; r++) {
      rule[r * width + x] = 1;
      rowInk[r] = (rowInk[r] ?? 0) - 1;
    }
  };
  for (let y = 0; y < height; y++) {
    let ink = 0;
    let run = 0;
    let longest = 0;
    const start = y * width;
    for (let x = 0; x < width; x++) {
      if ((pixels[start + x] ?? 255) < threshold) {
        ink++;
        run++;
        if (run > longest) longest = run;
        columnRun[x] = (columnRun[x] ?? 0) + 1;
      } else {
        run = 0;
        const length = columnRun[x] ?? 0;
        if (length > 0) {
          markRule(x, y, length);
          columnRun[x] = 0;
        }
      }
    }
    rowInk[y] = (rowInk[y] ?? 0) + ink;
    if (longest >= width * 0.25) ruleRows.push(y);
  }
  for (let x = 0; x < width; x++) markRule(x, height, columnRun[x] ?? 0);

  // Rows crossed by four or more rules lie inside a table: never cut there, nor right beside it
  // (tesseract misreads a table that touches the edge of its image). Up to three rules (a frame and
  // a column divider) are ignored.
  const tableRow = new Uint8Array(height);
  const crossingRules = new Uint8Array(height);
  if (rule !== null) {
    for (let y = 0; y < height; y++) {
      let rules = 0;
      for (let x = 0, start = y * width; x < width; x++) {
        if (rule[start + x] === 1 && (x === 0 || rule[start + x - 1] === 0)) rules++;
      }
      crossingRules[y] = Math.min(255, rules);
      tableRow[y] = rules >= 4 ? 1 : 0;
    }
  }
  // Rows between two horizontal rules less than a third of the page apart, with no vertical
  // rule beside them, are inside a table without column rules (booktabs): the same. Between the
  // rules of a box (a form's frame crosses them) cutting is harmless.
  const margin = 6 * options.minGap;
  for (let i = 1; i < ruleRows.length; i++) {
    const from = ruleRows[i - 1] ?? 0;
    const to = ruleRows[i] ?? 0;
    if (to - from > height / 3) continue;
    if (crossingRules.subarray(from, to).every((count) => count > 0)) continue;
    tableRow.fill(1, from, to);
  }
  const forbidden = new Uint8Array(height);
  for (let y = 0; y < height; y++) {
    if (tableRow[y] === 1) forbidden.fill(1, Math.max(0, y - margin), y + margin + 1);
  }
  const blankLimit = Math.max(2, width * 0.002);
  const cumulative = new Float64Array(height + 1);
  for (let y = 0; y < height; y++) cumulative[y + 1] = (cumulative[y] ?? 0) + (rowInk[y] ?? 0);
  const total = cumulative[height] ?? 0;
  if (total === 0) return whole;

  // Candidate cuts: the middle row of each long enough blank run between inked rows.
  const candidates: number[] = [];
  let runStart = -1;
  for (let y = 0; y <= height; y++) {
    const blank = y < height && (rowInk[y] ?? 0) <= blankLimit && forbidden[y] === 0;
    if (blank && runStart < 0) runStart = y;
    if (!blank && runStart >= 0) {
      if (runStart > 0 && y < height && y - runStart >= options.minGap) {
        candidates.push(Math.floor((runStart + y) / 2));
      }
      runStart = -1;
    }
  }

  const minShare = options.minShare ?? 0.15;
  const cuts: number[] = [];
  for (let k = 1; k < options.parts; k++) {
    const target = (total * k) / options.parts;
    let best = -1;
    for (const cut of candidates) {
      if (cuts.length > 0 && cut <= (cuts[cuts.length - 1] ?? 0)) continue;
      const distance = Math.abs((cumulative[cut] ?? 0) - target);
      if (best < 0 || distance < Math.abs((cumulative[best] ?? 0) - target)) best = cut;
    }
    if (best < 0) continue;
    const previous = cuts.length > 0 ? (cumulative[cuts[cuts.length - 1] ?? 0] ?? 0) : 0;
    if ((cumulative[best] ?? 0) - previous < total * minShare) continue;
    if (total - (cumulative[best] ?? 0) < total * minShare) continue;
    cuts.push(best);
  }
  if (cuts.length === 0) return whole;
  const bounds = [0, ...cuts, height];
  return bounds.slice(1).map((end, i) => ({ top: bounds[i] ?? 0, height: end - (bounds[i] ?? 0) }));
}

/** Otsu's threshold of a grey image: the level that best separates ink from paper. */
export function otsuThreshold(pixels: Uint8Array): number {
  const histogram = new Float64Array(256);
  for (const value of pixels) histogram[value] = (histogram[value] ?? 0) + 1;
  const count = pixels.length;
  let sum = 0;
  for (let level = 0; level < 256; level++) sum += level * (histogram[level] ?? 0);
  let backgroundSum = 0;
  let backgroundCount = 0;
  let bestLevel = 128;
  let bestVariance = -1;
  for (let level = 0; level < 256; level++) {
    backgroundCount += histogram[level] ?? 0;
    if (backgroundCount === 0) continue;
    const foregroundCount = count - backgroundCount;
    if (foregroundCount === 0) break;
    backgroundSum += level * (histogram[level] ?? 0);
    const meanBackground = backgroundSum / backgroundCount;
    const meanForeground = (sum - backgroundSum) / foregroundCount;
    const variance = backgroundCount * foregroundCount * (meanBackground - meanForeground) ** 2;
    if (variance > bestVariance) {
      bestVariance = variance;
      bestLevel = level + 1;
    }
  }
  return bestLevel;
}
