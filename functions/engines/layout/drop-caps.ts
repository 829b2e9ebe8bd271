import type { TextRun } from './types.js';

/**
 * Drop caps: one large initial set beside the first two to four lines of a paragraph is the first
 * letter of the paragraph's first word. Read as a run of its own it would land on whatever line
 * shares its baseline (`… organi- OUnited Nations`); here it is joined to the run that starts the
 * first line beside it (`O` + `ver the past` → `Over the past`).
 */

/** A drop cap is at least this many times the size of the text beside it. */
const MIN_RATIO = 1.8;
/** Lines of text beside a drop cap: at least two, at most four (a little slack for five). */
const MIN_LINES = 2;
const MAX_LINES = 5;

const visible = (text: string): string => text.replace(/\s+/g, '');

/**
 * Joins each drop cap of `runs` to the run that starts the first line beside it. A drop cap is a
 * run of one letter (or a letter with an opening quote) whose size is at least 1.8 × that of the
 * runs starting just right of it, with two to five such lines of text within its height, the
 * first of them starting near its top. The joined run keeps the line's font, baseline and
 * height and spans from the cap's left edge.
 *
 * @returns `runs` itself when there is no drop cap, otherwise a new array (order kept, the cap
 *   dropped and the line's first run replaced).
 */
export const joinDropCaps = (runs: readonly TextRun[]): readonly TextRun[] => {
  const sizes = runs.map((r) => r.fontSize).sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)] ?? 0;
  const caps = runs.filter(
    (r) => r.fontSize >= MIN_RATIO * median && r.h > 0 && /^["“‘']?\p{L}$/u.test(visible(r.text)),
  );
  if (caps.length === 0) return runs;
  const replaced = new Map<TextRun, TextRun | null>();
  for (const cap of caps) {
    const right = cap.x + cap.w;
    // Runs starting just right of the cap, vertically inside it.
    const beside = runs.filter((r) => {
      if (r === cap || replaced.has(r) || visible(r.text) === '') return false;
      if (r.fontSize * MIN_RATIO > cap.fontSize) return false;
      const gap = r.x - right;
      if (gap < -0.3 * r.fontSize || gap > 1.5 * r.fontSize) return false;
      const middle = r.y + r.h / 2;
      return middle > cap.y - 0.5 * r.fontSize && middle < cap.y + cap.h + 0.5 * r.fontSize;
    });
    const baselines: number[] = [];
    for (const r of beside.slice().sort((a, b) => a.baseline - b.baseline)) {
      const last = baselines[baselines.length - 1];
      if (last === undefined || r.baseline - last > 0.5 * r.fontSize) baselines.push(r.baseline);
    }
    if (baselines.length < MIN_LINES || baselines.length > MAX_LINES) continue;
    const first = beside
      .filter((r) => Math.abs(r.baseline - (baselines[0] ?? 0)) <= 0.5 * r.fontSize)
      .sort((a, b) => a.x - b.x)[0];
    // The first line starts at the cap's top (its cap height), not halfway down.
    if (!first || first.y - cap.y > 1.5 * first.fontSize) continue;
    const x = Math.min(cap.x, first.x);
    replaced.set(cap, null);
    replaced.set(first, {
      ...first,
      text: visible(cap.text) + first.text.replace(/^\s+/, ''),
      x,
      w: first.x + first.w - x,
    });
  }
  if (replaced.size === 0) return runs;
  const out: TextRun[] = [];
  for (const r of runs) {
    const next = replaced.get(r);
    if (next === null) continue;
    out.push(next ?? r);
  }
  return out;
};
