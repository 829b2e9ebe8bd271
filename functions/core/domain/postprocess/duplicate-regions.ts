/**
 * Step 2 of post-processing: repetition loops and repeated blocks.
 *
 * A generative model that loses its place repeats a phrase, a line or a group of lines until its
 * token limit; the copies are cut so that the page reads as printed, and a warning says where.
 */
import { plainText } from '../markdown.js';
import {
  isCode,
  isProse,
  markdownLines,
  parseHeading,
  type MarkdownLine,
  parseListItem,
} from '../markdown-lines.js';
import { plural, warning, type StepResult } from './step.js';
import { POSTPROCESS_THRESHOLDS } from './thresholds.js';

/**
 * Cuts repetition loops (a generative OCR failure) to one occurrence, and removes blocks that
 * repeat on the same page after their first occurrence.
 *
 * 1. Within a line: a phrase or sentence of at least 16 letters or digits repeated 3+ times in a
 *    row (`A. A. A. A.` → `A.`).
 * 2. Across lines: the same line, or group of up to 10 lines, repeated 3+ times in a row, blank
 *    lines between them ignored; table rows need 6+ repetitions.
 * 3. Blocks (paragraphs, tables: runs of lines between blank lines) of at least 32 letters or
 *    digits that already occurred on the page.
 *
 * Code blocks are never touched, and lines are compared with their list or heading markers
 * normalised. The steps repeat until nothing changes, so the result is stable.
 */
export function removeDuplicateRegions(markdown: string, pageNumber: number): StepResult {
  let current = markdown;
  let repetitions = 0;
  let blocks = 0;
  let firstLine: number | null = null;
  for (;;) {
    const inLines = collapseLoopsWithinLines(current);
    const acrossLines = collapseLineLoops(inLines.markdown);
    const repeated = removeRepeatedBlocks(acrossLines.markdown);
    const removed = inLines.removed + acrossLines.removed + repeated.removed;
    if (removed === 0) break;
    // Later rounds work on shifted text; the first round's earliest loop locates the problem.
    firstLine ??= earliest(earliest(inLines.first, acrossLines.first), repeated.first);
    repetitions += inLines.removed + acrossLines.removed;
    blocks += repeated.removed;
    current = repeated.markdown;
  }
  if (firstLine === null) return { markdown, warning: null };
  const parts: string[] = [];
  if (repetitions > 0) parts.push(plural(repetitions, 'repetition') + ' of a looping passage');
  if (blocks > 0) parts.push(plural(blocks, 'repeated block'));
  return {
    markdown: current,
    warning: warning(
      'duplicate_region',
      'warn',
      pageNumber,
      `removed ${parts.join(' and ')}; kept the first occurrence at line ${firstLine + 1}`,
    ),
  };
}

const earliest = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.min(a, b);

interface Removal {
  markdown: string;
  removed: number;
  /** 0-based line of the earliest kept occurrence, or null when nothing was removed. */
  first: number | null;
}

function collapseLoopsWithinLines(markdown: string): Removal {
  let removed = 0;
  let first: number | null = null;
  const out = markdownLines(markdown).map((line, i) => {
    if (!isProse(line)) return line.text;
    const collapsed = collapseWordLoops(line.text);
    if (collapsed.removed === 0) return line.text;
    removed += collapsed.removed;
    first ??= i;
    return collapsed.text;
  });
  return { markdown: out.join('\n'), removed, first };
}

function collapseWordLoops(line: string): { text: string; removed: number } {
  const tokens = [...line.matchAll(/\S+/g)].map((m) => ({
    text: m[0],
    start: m.index,
    end: m.index + m[0].length,
  }));
  const span = (from: number, to: number): string =>
    line.slice(tokens[from]?.start ?? 0, tokens[to]?.end ?? 0);
  const loops = findLoops(
    tokens.map((t) => t.text),
    POSTPROCESS_THRESHOLDS.maxLoopWords,
    (start, period) =>
      substance(span(start, start + period - 1)) >= POSTPROCESS_THRESHOLDS.loopMinSubstance,
  );
  let text = '';
  let cursor = 0;
  let removed = 0;
  for (const { start, period, count } of loops) {
    const cutFrom = tokens[start + period]?.start ?? line.length;
    const after = tokens[start + period * count];
    // A loop that runs to the end of the line keeps the line's trailing whitespace.
    const cutFromEnd = tokens[start + period - 1]?.end ?? line.length;
    const lastEnd = tokens.at(-1)?.end ?? line.length;
    const [from, to] = after ? [cutFrom, after.start] : [cutFromEnd, lastEnd];
    text += line.slice(cursor, from);
    cursor = to;
    removed += count - 1;
  }
  return { text: text + line.slice(cursor), removed };
}

interface Unit {
  key: string;
  first: number;
  last: number;
  text: string;
  row: boolean;
}

function collapseLineLoops(markdown: string): Removal {
  const lines = markdownLines(markdown);
  const units: Unit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const kind = lines[i]?.kind;
    const line = lines[i]?.text ?? '';
    if (kind === 'blank') continue;
    if (isCode(lines[i])) {
      // A code block is one unit whose key matches nothing: loops never run through code.
      const first = i;
      while (isCode(lines[i + 1])) i++;
      units.push({ key: `\u0000code${first}`, first, last: i, text: '', row: false });
      continue;
    }
    const row = kind === 'table' || kind === 'html';
    units.push({ key: canonicalLine(line), first: i, last: i, text: line, row });
  }
  const loops = findLoops(
    units.map((u) => u.key),
    POSTPROCESS_THRESHOLDS.maxLoopLines,
    (start, period, count) => {
      const block = units.slice(start, start + period);
      const minCount = block.every((u) => u.row)
        ? POSTPROCESS_THRESHOLDS.tableRowLoopMinCount
        : POSTPROCESS_THRESHOLDS.loopMinCount;
      const text = block.map((u) => u.text).join('\n');
      return count >= minCount && substance(text) >= POSTPROCESS_THRESHOLDS.loopMinSubstance;
    },
  );
  const drop = lines.map(() => false);
  let removed = 0;
  let first: number | null = null;
  for (const { start, period, count } of loops) {
    // From the end of the kept occurrence to the end of the last copy: the blank lines after the
    // kept occurrence go, those after the last copy separate it from what follows.
    const from = (units[start + period - 1]?.last ?? 0) + 1;
    const to = units[start + period * count - 1]?.last ?? from;
    for (let i = from; i <= to; i++) drop[i] = true;
    removed += count - 1;
    first ??= units[start]?.first ?? null;
  }
  return { markdown: keptText(lines, drop), removed, first };
}

function removeRepeatedBlocks(markdown: string): Removal {
  const lines = markdownLines(markdown);
  const drop = lines.map(() => false);
  const firstLineOf = new Map<string, number>();
  let removed = 0;
  let first: number | null = null;
  let i = 0;
  while (i < lines.length) {
    if (!inBlock(lines[i])) {
      i++;
      continue;
    }
    const start = i;
    while (i < lines.length && inBlock(lines[i])) i++;
    const block = lines.slice(start, i).map((line) => line.text);
    if (substance(block.join('\n')) < POSTPROCESS_THRESHOLDS.blockMinSubstance) continue;
    const key = block.map(canonicalLine).join('\n');
    const original = firstLineOf.get(key);
    if (original === undefined) {
      firstLineOf.set(key, start);
      continue;
    }
    for (let j = start; j < i; j++) drop[j] = true;
    // The blank lines before the copy go with it; those after it separate what follows.
    for (let j = start - 1; j >= 0 && lines[j]?.kind === 'blank'; j--) drop[j] = true;
    removed++;
    first = earliest(first, original);
  }
  return { markdown: keptText(lines, drop), removed, first };
}

/** Blocks are runs of lines between blank lines and code. */
const inBlock = (line: MarkdownLine | undefined): boolean =>
  line !== undefined && line.kind !== 'blank' && !isCode(line);

const keptText = (lines: readonly MarkdownLine[], drop: readonly boolean[]): string =>
  lines
    .filter((_, i) => !drop[i])
    .map((line) => line.text)
    .join('\n');

interface Loop {
  start: number;
  period: number;
  count: number;
}

/**
 * Runs of a unit repeated back to back in `keys`, left to right and without overlap.
 *
 * At each position only the shortest repeating period is considered: a long run of a short unit
 * (`0 0 0 0 …`) is judged as that unit, never as a longer multiple of it. `accept` decides
 * whether the run is a loop. O(n × maxPeriod).
 */
function findLoops(
  keys: readonly string[],
  maxPeriod: number,
  accept: (start: number, period: number, count: number) => boolean,
): Loop[] {
  const n = keys.length;
  const periods = Math.min(maxPeriod, Math.floor(n / 2));
  // runs[p - 1][j]: how many keys from j on equal the key p places further.
  const runs: Int32Array[] = [];
  for (let p = 1; p <= periods; p++) {
    const run = new Int32Array(n + 1);
    for (let j = n - p - 1; j >= 0; j--)
      run[j] = keys[j] === keys[j + p] ? (run[j + 1] ?? 0) + 1 : 0;
    runs.push(run);
  }
  const loops: Loop[] = [];
  let i = 0;
  while (i < n) {
    let next = i + 1;
    for (let p = 1; p <= periods; p++) {
      const count = Math.floor((runs[p - 1]?.[i] ?? 0) / p) + 1;
      if (count < POSTPROCESS_THRESHOLDS.loopMinCount) continue;
      if (accept(i, p, count)) {
        loops.push({ start: i, period: p, count });
        next = i + p * count;
      }
      break;
    }
    i = next;
  }
  return loops;
}

/** Letters and digits of a Markdown fragment once its syntax is removed. */
const substance = (markdown: string): number =>
  (plainText(markdown).match(/[\p{L}\p{N}]/gu) ?? []).length;

/** A line as compared for repetition: trimmed, whitespace collapsed, markers normalised. */
function canonicalLine(line: string): string {
  const heading = parseHeading(line);
  if (heading) return `# ${heading.text}`;
  const item = parseListItem(line);
  const text = item ? `${item.ordered ? `${item.number}.` : '-'} ${item.content}` : line;
  return text.trim().replace(/\s+/g, ' ');
}
