/**
 * Runs of ink along one row or column of a grey image, the unit of the rule finders
 * ({@link detectRuleLines}, {@link eraseRules}): dotted, dashed and scanned rules have gaps, and
 * text strokes are short or sparse.
 */

/** A stretch of a row (or column), pixels `from`..`to` inclusive. */
export interface Run {
  from: number;
  to: number;
}

/** What counts as a run of ink. */
export interface RunRule {
  /** Gaps of up to this many pixels without ink inside a run are bridged. */
  maxGap: number;
  /** Least length of a run, bridged gaps included. */
  minLength: number;
  /** Least share of a run's pixels that are ink. */
  minFill: number;
}

/** Whether the stretch `start`..`end` holding `ink` ink pixels is a run under `rule`. */
export function isRun(start: number, end: number, ink: number, rule: RunRule): boolean {
  const length = end - start + 1;
  return length >= rule.minLength && ink >= rule.minFill * length;
}

/**
 * The runs of ink along a line of a grey image, in order: pixels at most `maxInk` are ink, and ink
 * pixels no more than `rule.maxGap` apart form a stretch, kept when it passes {@link isRun}.
 * @param line where the line is in `pixels`: `count` pixels from index `first`, `step` apart
 *   (1 along a row, the image's width down a column); runs are numbered along it.
 * @example inkRuns(Uint8Array.from([0, 0, 255, 0, 9]), { first: 0, step: 1, count: 5 }, 10, { maxGap: 1, minLength: 4, minFill: 0.5 }) // [{ from: 0, to: 4 }]
 */
export function inkRuns(
  pixels: Uint8Array,
  line: { first: number; step: number; count: number },
  maxInk: number,
  rule: RunRule,
): Run[] {
  const runs: Run[] = [];
  let start = -1;
  let end = -1;
  let ink = 0;
  for (let k = 0, at = line.first; k < line.count; k++, at += line.step) {
    if ((pixels[at] ?? 255) > maxInk) continue;
    if (start >= 0 && k - end - 1 > rule.maxGap) {
      if (isRun(start, end, ink, rule)) runs.push({ from: start, to: end });
      start = -1;
    }
    if (start < 0) {
      start = k;
      ink = 0;
    }
    ink++;
    end = k;
  }
  if (start >= 0 && isRun(start, end, ink, rule)) runs.push({ from: start, to: end });
  return runs;
}
