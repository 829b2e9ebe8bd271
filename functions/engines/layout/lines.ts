import { directionOf, hasRtl, strongCounts, visualToLogical, type Direction } from './bidi.js';
import { joinDropCaps } from './drop-caps.js';
import type { TextRun } from './types.js';
import { visibleLength } from './white-space.js';

/** Runs on one baseline that are close enough to be read as one piece of text. */
export interface Fragment {
  runs: TextRun[];
  /** Box: left, top, right, bottom (pixels). */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  baseline: number;
  /** Dominant font size in pixels (the size carrying the most characters). */
  fontSize: number;
  text: string;
  /** True when every character is bold / italic / monospace. */
  bold: boolean;
  italic: boolean;
  monospace: boolean;
  /** Paragraph direction its text was put in logical order with ('ltr' when absent). */
  direction?: Direction;
}

/** Fragments that share a baseline, left to right. */
export interface Row {
  fragments: Fragment[];
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  baseline: number;
  fontSize: number;
  /** 'rtl' when the row is read right to left (its fragments too); 'ltr' when absent. */
  direction?: Direction;
}

/** Gap (in em) above which two runs on one baseline are separated by a space. */
const SPACE_GAP_EM = 0.18;
/** Gap (in em) above which two runs on one baseline belong to different fragments. */
const FRAGMENT_GAP_EM = 1.0;

/**
 * Joins runs of one line left to right, inserting a space where the gap exceeds ~0.2 em, and puts
 * right-to-left text in logical order (runs carry their text in visual order).
 *
 * @param direction the line's paragraph direction; by default that of most of its strong
 *   characters.
 */
export const joinRuns = (runs: readonly TextRun[], direction?: Direction): string => {
  let out = '';
  let prev: TextRun | undefined;
  for (const run of runs) {
    if (prev) {
      const gap = run.x - (prev.x + prev.w);
      const em = Math.min(prev.fontSize, run.fontSize);
      if (gap > SPACE_GAP_EM * em && !/\s$/.test(out) && !/^\s/.test(run.text)) out += ' ';
    }
    out += run.text;
    prev = run;
  }
  return visualToLogical(out.replace(/\s+/g, ' ').trim(), direction);
};

const dominantSize = (runs: readonly TextRun[]): number => {
  const weight = new Map<number, number>();
  let best = runs[0]?.fontSize ?? 0;
  let bestWeight = -1;
  for (const run of runs) {
    const key = Math.round(run.fontSize * 4) / 4;
    const w = (weight.get(key) ?? 0) + visibleLength(run.text) + 0.01;
    weight.set(key, w);
    if (w > bestWeight) {
      bestWeight = w;
      best = run.fontSize;
    }
  }
  return best;
};

/**
 * Builds a fragment from runs already sorted left to right.
 *
 * @param direction the paragraph direction of its line; by default that of most of its strong
 *   characters.
 */
export const makeFragment = (runs: TextRun[], direction?: Direction): Fragment => {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  let bold = true;
  let italic = true;
  let monospace = true;
  let baseline = 0;
  let weight = 0;
  for (const run of runs) {
    x0 = Math.min(x0, run.x);
    y0 = Math.min(y0, run.y);
    x1 = Math.max(x1, run.x + run.w);
    y1 = Math.max(y1, run.y + run.h);
    if (visibleLength(run.text) > 0) {
      bold &&= run.bold;
      italic &&= run.italic;
      monospace &&= run.monospace;
    }
    const w = visibleLength(run.text) + 0.01;
    baseline += run.baseline * w;
    weight += w;
  }
  const text = joinRuns(runs, direction);
  return {
    runs,
    x0,
    y0,
    x1,
    y1,
    baseline: baseline / weight,
    fontSize: dominantSize(runs),
    text,
    bold,
    italic,
    monospace,
    direction: direction ?? directionOf(text),
  };
};

/**
 * The paragraph direction of each line of `runs`: that of most of its strong characters, or
 * right to left for any line with right-to-left letters when most of the text is right to left
 * (so that a short line such as `R و Python` in an Arabic paragraph keeps its order).
 */
const directionsOf = (runs: readonly TextRun[]): ((line: readonly TextRun[]) => Direction) => {
  const rtlRuns = runs.filter((r) => hasRtl(r.text));
  if (rtlRuns.length === 0) return () => 'ltr';
  const all = strongCounts(runs.map((r) => r.text).join(' '));
  const mostlyRtl = all.rtl >= all.ltr;
  return (line) => {
    if (!line.some((r) => hasRtl(r.text))) return 'ltr';
    return mostlyRtl ? 'rtl' : directionOf(line.map((r) => r.text).join(' '));
  };
};

/** True for a run of rotated text ({@link TextRun.rotation}). */
export const isRotated = (run: TextRun): boolean =>
  run.rotation !== undefined && run.rotation !== 0;

/**
 * Rows of rotated runs, each run a fragment of its own: runs of one direction whose boxes share
 * most of their height (the rotated cells of a table's header, set side by side) make one row, so
 * they never join the words of upright lines.
 */
const rotatedRows = (runs: readonly TextRun[]): Row[] => {
  const groups: TextRun[][] = [];
  for (const run of runs.slice().sort((a, b) => a.y - b.y || a.x - b.x)) {
    const group = groups.find((g) =>
      g.every((other) => {
        const shared = Math.min(other.y + other.h, run.y + run.h) - Math.max(other.y, run.y);
        return (
          Math.abs((other.rotation ?? 0) - (run.rotation ?? 0)) <= 2 &&
          shared >= 0.5 * Math.min(other.h, run.h)
        );
      }),
    );
    if (group) group.push(run);
    else groups.push([run]);
  }
  return groups.map((group) =>
    rowOf(group.sort((a, b) => a.x - b.x).map((run) => makeFragment([run], 'ltr'))),
  );
};

/** Runs gathered on one baseline while rows are built. */
interface RunGroup {
  baseline: number;
  size: number;
  top: number;
  bottom: number;
  runs: TextRun[];
}

/** Horizontal gap between two runs (negative when they overlap). */
const gapX = (a: TextRun, b: TextRun): number => Math.max(b.x - (a.x + a.w), a.x - (b.x + b.w));

/** `other` is a larger run set right beside `script` (within half an em): its base. */
const besideBase = (script: TextRun, other: TextRun): boolean =>
  other !== script &&
  script.fontSize < 0.85 * other.fontSize &&
  gapX(script, other) <= 0.5 * other.fontSize;

/**
 * Superscripts and subscripts set apart from their base: a short run (at most four characters)
 * with no larger run beside it in its group moves to the group whose larger run it touches, when
 * that group's line is within 0.6 em of its baseline. Groups are formed by baseline alone, so an
 * exponent can land in a row of its own (read before its line) or in the row of the other
 * column's line that happens to share its baseline; either way it would come out apart from its
 * base (`t` then `2`). A script set in pieces (`−` then `3` of `cm⁻³`) follows its first piece:
 * a short run touching a script moved already goes where it went.
 * Changes `groups` in place (emptied groups stay, with no runs).
 */
const rehomeScripts = (groups: RunGroup[]): void => {
  const moved = new Set<TextRun>();
  const besideMoved = (run: TextRun, other: TextRun): boolean =>
    other !== run &&
    moved.has(other) &&
    Math.abs(other.fontSize - run.fontSize) <= 0.15 * other.fontSize &&
    gapX(run, other) <= 0.5 * other.fontSize;
  for (let pass = 0, moving = true; moving && pass < 4; pass++) {
    moving = false;
    for (const group of groups) {
      for (const run of group.runs.slice()) {
        if (visibleLength(run.text) > 4 || moved.has(run)) continue;
        if (group.runs.some((other) => besideBase(run, other))) continue;
        const home = groups.find(
          (g) =>
            g !== group &&
            Math.abs(g.baseline - run.baseline) < 0.6 * g.size &&
            run.y < g.bottom &&
            run.baseline > g.top &&
            g.runs.some((other) => besideBase(run, other) || besideMoved(run, other)),
        );
        if (!home) continue;
        group.runs.splice(group.runs.indexOf(run), 1);
        home.runs.push(run);
        home.top = Math.min(home.top, run.y);
        home.bottom = Math.max(home.bottom, run.y + run.h);
        moved.add(run);
        moving = true;
      }
    }
  }
};

/** Text of a run for comparing copies: spaces collapsed, ends trimmed. */
const glyphsOf = (run: TextRun): string => run.text.replace(/\s+/g, ' ').trim();

/**
 * Whether the run at `k` of runs sorted by x repeats the glyphs of an earlier one at (nearly)
 * the same place: the same text starting within 0.2 em of it, on the same baseline.
 * Producers draw text twice for fake bold or a shadow, and a copy may differ by a trailing space
 * (`Signed on as ALICE ` over `Signed on as ALICE`) or come after other runs of the line.
 */
const overprintsBefore = (sorted: readonly TextRun[], k: number): boolean => {
  const run = sorted[k];
  if (!run) return false;
  const tolerance = 0.2 * run.fontSize;
  // Measured only when a run starts near this one: most runs have none.
  let text: string | undefined;
  for (let j = k - 1; j >= 0; j--) {
    const other = sorted[j];
    if (!other) continue;
    if (run.x - other.x >= tolerance) break;
    if (
      Math.abs(other.baseline - run.baseline) < tolerance &&
      glyphsOf(other) === (text ??= glyphsOf(run))
    ) {
      return true;
    }
  }
  return false;
};

/**
 * Groups runs into rows (shared baseline) and splits each row into fragments at gaps wider than
 * about one em. Runs drawn twice (fake bold, shadows) are read once ({@link overprintsBefore}). Rotated runs make rows of
 * their own ({@link rotatedRows}). A superscript or subscript set apart from its base joins
 * its base's row ({@link rehomeScripts}). Rows come top to bottom.
 */
export const buildRows = (input: readonly TextRun[]): Row[] => {
  const visible = input.filter((r) => r.w > 0 && r.h > 0 && r.text.trim() !== '');
  const turned = visible.filter(isRotated);
  const runs = joinDropCaps(visible.filter((r) => !isRotated(r)))
    .slice()
    .sort((a, b) => a.baseline - b.baseline || a.x - b.x);
  const groups = groupByBaseline(runs);
  rehomeScripts(groups);
  const lineDirection = directionsOf(runs);
  const rows: Row[] = [];
  for (const group of groups) {
    if (group.runs.length === 0) continue;
    const sorted = group.runs.sort((a, b) => a.x - b.x);
    rows.push(rowOf(fragmentsOf(sorted, lineDirection(sorted))));
  }
  rows.push(...rotatedRows(turned));
  return rows.sort((a, b) => a.baseline - b.baseline);
};

/** Gathers runs sorted by baseline into groups of one line each (see {@link joinsGroup}). */
const groupByBaseline = (runs: readonly TextRun[]): RunGroup[] => {
  const groups: RunGroup[] = [];
  for (const run of runs) {
    // Runs sorted by baseline: compare with the few most recent groups only.
    let target: RunGroup | undefined;
    for (let g = groups.length - 1; g >= 0 && g >= groups.length - 4; g--) {
      const group = groups[g];
      if (group && joinsGroup(group, run)) {
        target = group;
        break;
      }
    }
    if (target) {
      target.runs.push(run);
      if (run.fontSize > target.size) {
        target.size = run.fontSize;
        target.baseline = run.baseline;
      }
      target.top = Math.min(target.top, run.y);
      target.bottom = Math.max(target.bottom, run.y + run.h);
    } else {
      groups.push({
        baseline: run.baseline,
        size: run.fontSize,
        top: run.y,
        bottom: run.y + run.h,
        runs: [run],
      });
    }
  }
  return groups;
};

/**
 * Whether `run` belongs to the line of `group`: on its baseline (within 0.3 em), a superscript
 * or subscript inside its extent, or the larger line that the group's superscripts go with.
 */
const joinsGroup = (group: RunGroup, run: TextRun): boolean => {
  const tolerance = 0.3 * Math.max(group.size, run.fontSize);
  if (Math.abs(run.baseline - group.baseline) <= tolerance) return true;
  // Superscripts and subscripts: smaller and inside the line's vertical extent.
  const script =
    run.fontSize < 0.85 * group.size &&
    run.baseline > group.top &&
    run.y < group.bottom &&
    Math.abs(run.baseline - group.baseline) < 0.6 * group.size;
  if (script) return true;
  // A superscript comes before its line (its baseline is higher): the line takes it in, when it
  // is set beside one of the superscript's runs (not a larger label elsewhere on the page whose
  // baseline happens to fall near).
  return (
    group.size < 0.85 * run.fontSize &&
    group.baseline < run.baseline &&
    run.baseline - group.baseline < 0.6 * run.fontSize &&
    group.bottom > run.y &&
    group.runs.every((r) => visibleLength(r.text) <= 8) &&
    group.runs.some((r) => gapX(r, run) <= 0.5 * run.fontSize)
  );
};

/**
 * The fragments of one line's runs (sorted left to right): split at gaps wider than about one
 * em, runs drawn twice read once.
 */
const fragmentsOf = (sorted: TextRun[], direction: Direction): Fragment[] => {
  const kept = sorted.filter((run, k) => !overprintsBefore(sorted, k));
  const fragments: Fragment[] = [];
  let current: TextRun[] = [];
  let right = -Infinity;
  for (const run of kept) {
    const em = Math.max(run.fontSize, current[current.length - 1]?.fontSize ?? 0);
    if (current.length > 0 && run.x - right > FRAGMENT_GAP_EM * em) {
      fragments.push(makeFragment(current, direction));
      current = [];
      right = -Infinity;
    }
    current.push(run);
    right = Math.max(right, run.x + run.w);
  }
  if (current.length > 0) fragments.push(makeFragment(current, direction));
  return fragments;
};

/** Builds a row from fragments (sorted left to right here). */
export const rowOf = (fragments: Fragment[]): Row => {
  const sorted = fragments.slice().sort((a, b) => a.x0 - b.x0);
  let rtl = 0;
  let ltr = 0;
  for (const f of sorted) {
    if (f.direction === 'rtl') rtl += f.text.length;
    else ltr += f.text.length;
  }
  let weight = 0;
  let baseline = 0;
  for (const f of sorted) {
    const w = f.text.length + 0.01;
    baseline += f.baseline * w;
    weight += w;
  }
  return {
    fragments: sorted,
    x0: Math.min(...sorted.map((f) => f.x0)),
    y0: Math.min(...sorted.map((f) => f.y0)),
    x1: Math.max(...sorted.map((f) => f.x1)),
    y1: Math.max(...sorted.map((f) => f.y1)),
    baseline: baseline / weight,
    fontSize: dominantSize(sorted.flatMap((f) => f.runs)),
    ...(rtl > 0 && rtl >= ltr ? { direction: 'rtl' as const } : {}),
  };
};

/** Text of a row, fragments joined by single spaces in reading order. */
export const rowText = (row: Row): string =>
  (row.direction === 'rtl' ? row.fragments.slice().reverse() : row.fragments)
    .map((f) => f.text)
    .join(' ');

/** Digit-folded, case-folded, space-collapsed text: the signature of running headers and footers. */
export const foldText = (text: string): string =>
  text
    .toLowerCase()
    .replace(/\d+/g, '#')
    .replace(/\b[ivxlc]+\b/g, '#')
    .replace(/\s+/g, ' ')
    .trim();

/** True for a page number line: `12`, `- 12 -`, `Page 3`, `3 of 10`, `xiv`. */
export const isPageNumberText = (text: string): boolean =>
  /^[-–—\s]*(?:page\s*)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|\/)\s*\d{1,4})?[-–—\s]*$/i.test(
    text.trim(),
  );
