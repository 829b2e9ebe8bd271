import { plainText } from './markdown.js';
import type { PostprocessWarning } from './schemas.js';

/**
 * Thresholds of the post-processing steps.
 *
 * Repetition is measured in letters and digits (after Markdown syntax is removed) rather than in
 * characters, so that dot leaders, table rules, form blanks (`______`) and rows of zeros never
 * count as content: 16 letters or digits is about a 20-character line of prose, 32 about a
 * 40-character block.
 */
export const POSTPROCESS_THRESHOLDS = {
  /** Letters and digits a repeated line, sentence or phrase needs before it can be a loop. */
  loopMinSubstance: 16,
  /** Consecutive occurrences of the same line, sentence or phrase that make a loop. */
  loopMinCount: 3,
  /** Consecutive identical table rows that make a loop (identical rows are often printed). */
  tableRowLoopMinCount: 6,
  /** Longest repeating unit looked for within a line, in words. */
  maxLoopWords: 100,
  /** Longest repeating unit looked for within a page, in lines. */
  maxLoopLines: 10,
  /** Letters and digits a block needs before a later copy of it on the same page is removed. */
  blockMinSubstance: 32,
  /** Sentences with fewer words are never flagged as unsupported. */
  hallucinationMinWords: 5,
  /** A sentence is unsupported when a smaller share of its words occurs in the evidence. */
  hallucinationMinSupport: 0.5,
  /** Line numbers listed in a warning's detail. */
  maxListedPositions: 5,
} as const;

/** One page as the post-processor receives it. */
export interface PostprocessInputPage {
  pageNumber: number;
  markdown: string;
  /** The page's PDF text layer or a second engine's text; null when there is none. */
  evidenceText: string | null;
}

/** One page after post-processing, with a warning for each step that changed or flagged it. */
export interface PostprocessedPage {
  pageNumber: number;
  markdown: string;
  warnings: PostprocessWarning[];
}

/** The Markdown a step returns, and its warning when it changed something. */
export interface StepResult {
  markdown: string;
  warning: PostprocessWarning | null;
}

/**
 * Cleans the Markdown of each page of a document and reports what changed.
 *
 * Steps, in order: unwrap a fence around the whole page, cut repetition loops and repeated
 * blocks, make heading levels consistent across the document, normalise list markers, then
 * (with `maintainFormat: false`) reduce the page to plain paragraphs. Heading and list
 * normalisation are skipped in that case, since their result would be thrown away. Last, pages
 * with evidence text are checked for unsupported sentences; this step only reads, and it reads
 * the final Markdown so that the line numbers it reports point into the returned content.
 * Line endings are normalised to `\n`.
 *
 * @example
 * postprocessDocument([{ pageNumber: 1, markdown: '```markdown\n# Title\n```', evidenceText: null }],
 *   { maintainFormat: true });
 * // → [{ pageNumber: 1, markdown: '# Title', warnings: [{ kind: 'fence_stripped', … }] }]
 */
export function postprocessDocument(
  pages: readonly PostprocessInputPage[],
  options: { maintainFormat: boolean },
): PostprocessedPage[] {
  const cleaned = pages.map((page) => {
    const warnings: PostprocessWarning[] = [];
    const fence = stripWrappingFence(page.markdown.replace(/\r\n?/g, '\n'), page.pageNumber);
    if (fence.warning) warnings.push(fence.warning);
    const deduplicated = removeDuplicateRegions(fence.markdown, page.pageNumber);
    if (deduplicated.warning) warnings.push(deduplicated.warning);
    return { pageNumber: page.pageNumber, markdown: deduplicated.markdown, warnings };
  });

  let shaped: PostprocessedPage[];
  if (options.maintainFormat) {
    const headings = renumberHeadings(cleaned);
    shaped = cleaned.map((page, k) => {
      const warnings = [...page.warnings];
      const heading = headings[k] ?? { markdown: page.markdown, warning: null };
      if (heading.warning) warnings.push(heading.warning);
      const lists = normalizeLists(heading.markdown, page.pageNumber);
      if (lists.warning) warnings.push(lists.warning);
      return { pageNumber: page.pageNumber, markdown: lists.markdown, warnings };
    });
  } else {
    shaped = cleaned.map((page) => ({ ...page, markdown: toPlainParagraphs(page.markdown) }));
  }

  return shaped.map((page, k) => {
    const evidence = pages[k]?.evidenceText ?? null;
    const warning = flagPotentialHallucinations(page.markdown, evidence, page.pageNumber);
    return warning ? { ...page, warnings: [...page.warnings, warning] } : page;
  });
}

/**
 * The steps of {@link postprocessDocument} that need only the page itself, for the pipeline's
 * page stage (which has the page's evidence): the fence and the repetition loops (only for
 * answers of generative models, `generative`: in a transcription of the text layer or of OCR, a
 * repeated passage is on the page), list markers (or plain paragraphs with
 * `maintainFormat: false`), and unsupported sentences. Heading levels, which need the whole
 * document, are made consistent later by {@link renumberHeadings}.
 */
export function postprocessPage(
  page: PostprocessInputPage,
  options: { maintainFormat: boolean; generative: boolean },
): PostprocessedPage {
  const warnings: PostprocessWarning[] = [];
  let markdown = page.markdown.replace(/\r\n?/g, '\n');
  if (options.generative) {
    const fence = stripWrappingFence(markdown, page.pageNumber);
    if (fence.warning) warnings.push(fence.warning);
    const deduplicated = removeDuplicateRegions(fence.markdown, page.pageNumber);
    if (deduplicated.warning) warnings.push(deduplicated.warning);
    markdown = deduplicated.markdown;
  }
  if (options.maintainFormat) {
    const lists = normalizeLists(markdown, page.pageNumber);
    if (lists.warning) warnings.push(lists.warning);
    markdown = lists.markdown;
  } else {
    markdown = toPlainParagraphs(markdown);
  }
  const unsupported = flagPotentialHallucinations(markdown, page.evidenceText, page.pageNumber);
  if (unsupported) warnings.push(unsupported);
  return { pageNumber: page.pageNumber, markdown, warnings };
}

// ---------------------------------------------------------------------------------------------
// Step 1: a fence around the whole page

/** Info strings of a fence a model wraps its whole answer in. */
const WRAPPER_INFO = new Set(['', 'markdown', 'md', 'gfm', 'commonmark']);

/**
 * Unwraps a page whose whole answer is one code fence (```markdown … ```, ``` … ```, ~~~ … ~~~),
 * as vision models sometimes answer.
 *
 * Fenced code blocks inside the wrapper (```python … ```) are kept: the wrapper is recognised only
 * when no bare fence inside it could have closed it, so a page that starts and ends with two
 * separate real code blocks is left alone. A ```markdown opening that is never closed (an answer
 * cut at the token limit) is removed too; an unclosed bare ``` is not, since it may be real code.
 */
export function stripWrappingFence(markdown: string, pageNumber: number): StepResult {
  let lines = markdown.split('\n');
  let layers = 0;
  let unclosed = false;
  let label = '';
  for (;;) {
    const first = lines.findIndex((line) => line.trim() !== '');
    const fence = first === -1 ? null : openingFence(lines[first] ?? '');
    if (!fence || !WRAPPER_INFO.has(fence.info.toLowerCase())) break;
    let end = lines.length;
    while (end > first + 1 && (lines[end - 1] ?? '').trim() === '') end--;
    const rest = lines.slice(first + 1, end);
    const inner = rest.slice(0, -1);
    if (rest.length > 0 && closesFence(rest.at(-1) ?? '', fence) && wrapsAll(inner, fence)) {
      lines = inner;
    } else if (fence.info !== '' && !innerFences(rest, fence).closesOuter) {
      lines = rest;
      unclosed = true;
    } else {
      break;
    }
    layers++;
    label ||= fence.char.repeat(3) + fence.info;
  }
  if (layers === 0) return { markdown, warning: null };
  const what = layers > 1 ? `${layers} nested code fences (${label})` : `a code fence (${label})`;
  return {
    markdown: lines.join('\n'),
    warning: warning(
      'fence_stripped',
      'info',
      pageNumber,
      `removed ${what} wrapping the whole page${unclosed ? '; the opening fence was never closed' : ''}`,
    ),
  };
}

/** True when `inner` holds only balanced fences, none of which could have closed `outer`. */
function wrapsAll(inner: readonly string[], outer: Fence): boolean {
  const fences = innerFences(inner, outer);
  return !fences.closesOuter && fences.balanced;
}

/** Reads `lines` as a document of its own, looking for a line that would close `outer`. */
function innerFences(
  lines: readonly string[],
  outer: Fence,
): { closesOuter: boolean; balanced: boolean } {
  let open: Fence | null = null;
  for (const line of lines) {
    if (open) {
      if (closesFence(line, open)) open = null;
    } else if (closesFence(line, outer)) {
      return { closesOuter: true, balanced: false };
    } else {
      open = openingFence(line);
    }
  }
  return { closesOuter: false, balanced: open === null };
}

// ---------------------------------------------------------------------------------------------
// Step 2: repetition loops and repeated blocks

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
  const { lines, kinds } = scan(markdown);
  let removed = 0;
  let first: number | null = null;
  const out = lines.map((line, i) => {
    if (kinds[i] !== 'text') return line;
    const collapsed = collapseWordLoops(line);
    if (collapsed.removed === 0) return line;
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
  const { lines, kinds } = scan(markdown);
  const units: Unit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const kind = kinds[i];
    const line = lines[i] ?? '';
    if (kind === 'blank') continue;
    if (kind === 'code') {
      // A code block is one unit whose key matches nothing: loops never run through code.
      const first = i;
      while (kinds[i + 1] === 'code') i++;
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
  return { markdown: lines.filter((_, i) => !drop[i]).join('\n'), removed, first };
}

function removeRepeatedBlocks(markdown: string): Removal {
  const { lines, kinds } = scan(markdown);
  const drop = lines.map(() => false);
  const firstLineOf = new Map<string, number>();
  let removed = 0;
  let first: number | null = null;
  let i = 0;
  while (i < lines.length) {
    if (kinds[i] === 'blank' || kinds[i] === 'code') {
      i++;
      continue;
    }
    const start = i;
    while (i < lines.length && kinds[i] !== 'blank' && kinds[i] !== 'code') i++;
    const block = lines.slice(start, i);
    if (substance(block.join('\n')) < POSTPROCESS_THRESHOLDS.blockMinSubstance) continue;
    const key = block.map(canonicalLine).join('\n');
    const original = firstLineOf.get(key);
    if (original === undefined) {
      firstLineOf.set(key, start);
      continue;
    }
    for (let j = start; j < i; j++) drop[j] = true;
    // The blank lines before the copy go with it; those after it separate what follows.
    for (let j = start - 1; j >= 0 && kinds[j] === 'blank'; j--) drop[j] = true;
    removed++;
    first = earliest(first, original);
  }
  return { markdown: lines.filter((_, k) => !drop[k]).join('\n'), removed, first };
}

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
  const item = parseItem(line);
  const text = item ? `${item.ordered ? `${item.number}.` : '-'} ${item.content}` : line;
  return text.trim().replace(/\s+/g, ' ');
}

// ---------------------------------------------------------------------------------------------
// Step 3: heading levels across the document

/**
 * Makes heading levels consistent across the pages of a document, taken in page order.
 *
 * The outline is rebuilt with a stack of open sections: the first heading, and any heading that
 * closes every open section, is `#`; any other heading is at most one level below the section
 * it opens in, so `#` then `###` becomes `#` then `##` and a document whose top level is `##`
 * moves up by one. A heading whose name (case, punctuation and emphasis ignored) already
 * occurred keeps the level it was given first, unless that would jump a level, since the
 * no-jump rule wins. Headings that need no change are left byte for byte.
 */
export function renumberHeadings(
  pages: readonly { pageNumber: number; markdown: string }[],
): StepResult[] {
  const order = pages
    .map((page, k) => ({ page, k }))
    .sort((a, b) => a.page.pageNumber - b.page.pageNumber);
  const outline: Outline = { stack: [], levelByName: new Map() };
  const results: StepResult[] = pages.map((page) => ({ markdown: page.markdown, warning: null }));
  for (const { page, k } of order) {
    const { lines, kinds } = scan(page.markdown);
    let changed = 0;
    const out = lines.map((line, i) => {
      const heading = kinds[i] === 'text' ? parseHeading(line) : null;
      if (!heading) return line;
      const level = placeHeading(outline, heading);
      if (level === heading.level) return line;
      changed++;
      return line.replace(/^([ \t]*)#{1,6}/, `$1${'#'.repeat(level)}`);
    });
    if (changed > 0) {
      results[k] = {
        markdown: out.join('\n'),
        warning: warning(
          'heading_renumbered',
          'info',
          page.pageNumber,
          `changed the level of ${plural(changed, 'heading')} for a consistent outline across pages`,
        ),
      };
    }
  }
  return results;
}

interface Outline {
  stack: { original: number; level: number }[];
  levelByName: Map<string, number>;
}

function placeHeading(outline: Outline, heading: Heading): number {
  const { stack, levelByName } = outline;
  const name = plainText(heading.text)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  const known = name === '' ? undefined : levelByName.get(name);
  if (known === undefined) {
    while ((stack.at(-1)?.original ?? 0) >= heading.level) stack.pop();
  } else {
    while ((stack.at(-1)?.level ?? 0) >= known) stack.pop();
  }
  const allowed = (stack.at(-1)?.level ?? 0) + 1;
  const level = Math.min(known ?? allowed, allowed);
  stack.push({ original: heading.level, level });
  if (known === undefined && name !== '') levelByName.set(name, level);
  return level;
}

// ---------------------------------------------------------------------------------------------
// Step 4: list markers

/**
 * Normalises list markers to GFM: bullets (`•`, `●`, `▪`, `◦`, `–`, `*`, `+`, …) become `- `,
 * `1)` becomes `1.`, one space follows the marker, and nested items are indented under their
 * parent's content (2 spaces per `-` level, 3 under `1.`, 4 under `10.`). Numbers stay as printed.
 *
 * Never touched: `*emphasis*` and `**bold**` at a line start (no space after the `*`), rules
 * (`***`, `---`, `* * *`), table rows, HTML, block quotes and code. A line indented 4+ spaces
 * outside a list is indented code, not an item.
 */
export function normalizeLists(markdown: string, pageNumber: number): StepResult {
  const { lines, kinds } = scan(markdown);
  const { items } = walkLists(lines, kinds);
  let markers = 0;
  let indents = 0;
  for (const [i, { item, indent }] of items) {
    const marker = item.ordered ? `${item.number}.` : '-';
    if (item.marker !== marker || item.gap !== ' ') markers++;
    if (item.indentText !== ' '.repeat(indent)) indents++;
    lines[i] = `${' '.repeat(indent)}${marker} ${item.content}`;
  }
  if (markers + indents === 0) return { markdown, warning: null };
  const parts: string[] = [];
  if (markers > 0) parts.push(`the marker of ${plural(markers, 'list item')}`);
  if (indents > 0) parts.push(`the indentation of ${plural(indents, 'list item')}`);
  return {
    markdown: lines.join('\n'),
    warning: warning('list_normalized', 'info', pageNumber, `normalised ${parts.join(' and ')}`),
  };
}

interface ListItem {
  indentText: string;
  indent: number;
  marker: string;
  gap: string;
  ordered: boolean;
  number: string;
  content: string;
}

const BULLET_ITEM = /^([ \t]*)([-*+•●▪◦–‣○■►▸])([ \t]+)(\S.*)$/u;
/** `•Item` without a space, as text layers and some models write it. */
const TIGHT_BULLET_ITEM = /^([ \t]*)(•)()([\p{L}\p{N}].*)$/u;
const ORDERED_ITEM = /^([ \t]*)(\d{1,9})([.)])([ \t]+)(\S.*)$/;
const THEMATIC_BREAK = /^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
/** `– 12 –`: a page number between dashes, not a list item. */
const DASHED_PAGE_NUMBER = /^[ \t]*–[ \t].*–[ \t]*$/;

function parseItem(line: string): ListItem | null {
  if (THEMATIC_BREAK.test(line) || DASHED_PAGE_NUMBER.test(line)) return null;
  const ordered = ORDERED_ITEM.exec(line);
  if (ordered) {
    const [, indentText = '', number = '', delimiter = '', gap = '', content = ''] = ordered;
    const indent = columns(indentText);
    return { indentText, indent, marker: number + delimiter, gap, ordered: true, number, content };
  }
  const bullet = BULLET_ITEM.exec(line) ?? TIGHT_BULLET_ITEM.exec(line);
  if (!bullet) return null;
  const [, indentText = '', marker = '', gap = '', content = ''] = bullet;
  return {
    indentText,
    indent: columns(indentText),
    marker,
    gap,
    ordered: false,
    number: '',
    content,
  };
}

/** Width in columns of leading whitespace, tabs stopping every 4 columns. */
function columns(whitespace: string): number {
  let width = 0;
  for (const ch of whitespace) width = ch === '\t' ? width + 4 - (width % 4) : width + 1;
  return width;
}

/**
 * The list items of a page with their normalised indentation, and the lines that continue an
 * item. A list ends at a heading, a rule, a table, code, HTML, a block quote, or an unindented
 * line after a blank line.
 */
function walkLists(
  lines: readonly string[],
  kinds: readonly LineKind[],
): { items: Map<number, { item: ListItem; indent: number }>; continuations: Set<number> } {
  const items = new Map<number, { item: ListItem; indent: number }>();
  const continuations = new Set<number>();
  let stack: { indent: number; normalised: number; width: number }[] = [];
  let afterBlank = true;
  let afterParagraph = false;
  lines.forEach((line, i) => {
    const kind = kinds[i];
    if (kind === 'blank') {
      afterBlank = true;
      afterParagraph = false;
      return;
    }
    const [wasAfterBlank, wasAfterParagraph] = [afterBlank, afterParagraph];
    afterBlank = false;
    afterParagraph = false;
    if (kind !== 'text' || parseHeading(line) || /^[ \t]*>/.test(line)) {
      stack = [];
      return;
    }
    const item = parseItem(line);
    // An ordered item other than 1 cannot interrupt a paragraph: `…in\n2023. Sales` is prose.
    const interrupts = item?.ordered === true && item.number !== '1' && wasAfterParagraph;
    if (item && !interrupts && (stack.length > 0 || item.indent <= 3)) {
      while ((stack.at(-1)?.indent ?? -1) > item.indent) stack.pop();
      if (stack.at(-1)?.indent === item.indent) stack.pop();
      const parent = stack.at(-1);
      const indent = parent ? parent.normalised + parent.width : 0;
      const width = item.ordered ? item.number.length + 2 : 2;
      stack.push({ indent: item.indent, normalised: indent, width });
      items.set(i, { item, indent });
    } else if (
      stack.length > 0 &&
      !THEMATIC_BREAK.test(line) &&
      (!wasAfterBlank || /^[ \t]/.test(line))
    ) {
      continuations.add(i);
    } else {
      stack = [];
      afterParagraph = !THEMATIC_BREAK.test(line);
    }
  });
  return { items, continuations };
}

// ---------------------------------------------------------------------------------------------
// Step 5: sentences the evidence does not support

/**
 * Flags sentences whose words are mostly absent from `evidenceText` (the page's PDF text layer
 * or a second engine's text); the Markdown is not changed.
 *
 * Each line (table row, list item, code line) is reduced to plain text and split into sentences;
 * a sentence of 5+ words is unsupported when under half of its words (case and punctuation
 * folded) are found in the evidence's word multiset, each evidence word supporting one use. A
 * word hyphenated across a line break in the evidence counts whole as well as in parts. Evidence
 * without a single word (a scanned page's empty text layer) is no evidence: nothing is flagged.
 */
export function flagPotentialHallucinations(
  markdown: string,
  evidenceText: string | null,
  pageNumber: number,
): PostprocessWarning | null {
  if (evidenceText === null) return null;
  const remaining = evidenceWords(evidenceText);
  if (remaining.size === 0) return null;
  const { lines, kinds } = scan(markdown);
  let totalWords = 0;
  let sentences = 0;
  let unsupported = 0;
  let unsupportedWords = 0;
  const positions = new Set<number>();
  lines.forEach((line, i) => {
    const kind = kinds[i];
    if (kind === 'blank' || (kind === 'code' && FENCE_LINE.test(line))) return;
    const text = kind === 'code' ? line : plainText(line);
    for (const sentence of text.split(/(?<=[.!?])\s+/)) {
      const sentenceWords = words(sentence);
      totalWords += sentenceWords.length;
      if (sentenceWords.length < POSTPROCESS_THRESHOLDS.hallucinationMinWords) continue;
      sentences++;
      let found = 0;
      for (const word of sentenceWords) {
        const left = remaining.get(word) ?? 0;
        if (left === 0) continue;
        found++;
        remaining.set(word, left - 1);
      }
      if (found / sentenceWords.length >= POSTPROCESS_THRESHOLDS.hallucinationMinSupport) continue;
      unsupported++;
      unsupportedWords += sentenceWords.length;
      positions.add(i + 1);
    }
  });
  if (unsupported === 0) return null;
  const share = Math.round((unsupportedWords / totalWords) * 100);
  return warning(
    'potential_hallucination',
    'warn',
    pageNumber,
    `${unsupported} of ${plural(sentences, 'sentence')} (${share}% of the page's words) have ` +
      `under half of their words in the evidence text; ${listLines([...positions])}`,
  );
}

const words = (text: string): string[] =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');

function evidenceWords(evidence: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (word: string): void => {
    counts.set(word, (counts.get(word) ?? 0) + 1);
  };
  words(evidence).forEach(add);
  for (const m of evidence.normalize('NFKC').matchAll(/(\p{L}+)-[ \t]*\r?\n[ \t]*(\p{L}+)/gu)) {
    add(`${m[1] ?? ''}${m[2] ?? ''}`.toLowerCase());
  }
  return counts;
}

function listLines(lineNumbers: number[]): string {
  const max = POSTPROCESS_THRESHOLDS.maxListedPositions;
  const shown = lineNumbers.slice(0, max).join(', ');
  const more = lineNumbers.length > max ? ` and ${lineNumbers.length - max} more` : '';
  return `${lineNumbers.length > 1 ? 'lines' : 'line'} ${shown}${more}`;
}

// ---------------------------------------------------------------------------------------------
// Step 6: plain paragraphs

/**
 * Reduces a page to plain paragraphs, for `maintain_format: false`.
 *
 * Headings (ATX and setext) become paragraph lines, list items lose their marker and become one
 * paragraph each (their continuation lines stay with them), and emphasis markers are removed.
 * Tables, HTML, code blocks (fences included, so the code keeps its text verbatim), inline code
 * and URLs are kept as they are.
 */
export function toPlainParagraphs(markdown: string): string {
  const { lines, kinds } = scan(markdown);
  const { items, continuations } = walkLists(lines, kinds);
  const out: string[] = [];
  let separateNext = false;
  const emit = (text: string, separate: boolean): void => {
    const previous = out.at(-1);
    if ((separate || separateNext) && previous !== undefined && previous.trim() !== '')
      out.push('');
    out.push(text);
    separateNext = false;
  };
  lines.forEach((line, i) => {
    const kind = kinds[i];
    if (kind === 'blank') {
      if (out.at(-1)?.trim() !== '') out.push(line);
      return;
    }
    if (kind !== 'text') {
      emit(line, false);
      return;
    }
    const heading = parseHeading(line);
    const item = items.get(i)?.item;
    if (heading) {
      emit(stripEmphasis(heading.text), true);
      separateNext = true;
    } else if (
      SETEXT_UNDERLINE.test(line) &&
      kinds[i - 1] === 'text' &&
      !items.has(i - 1) &&
      !continuations.has(i - 1) &&
      parseHeading(lines[i - 1] ?? '') === null &&
      !THEMATIC_BREAK.test(lines[i - 1] ?? '')
    ) {
      separateNext = true;
    } else if (item) {
      emit(stripEmphasis(item.content), true);
    } else if (continuations.has(i)) {
      emit(stripEmphasis(line.trimStart()), false);
    } else {
      emit(THEMATIC_BREAK.test(line) ? line : stripEmphasis(line), false);
    }
  });
  return out.join('\n');
}

const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;

/** Code spans, autolinks and URLs, where `*` and `_` are not emphasis. */
const VERBATIM = /(`+)[^`]*?\1|<[^<>\s]+>|https?:\/\/\S+/g;
/**
 * Innermost emphasis spans: the content holds no marker of the same kind, so nested spans
 * (`***a** b*`, `**a _b_**`) unwrap from the inside out over several passes. Markers inside a
 * word (`snake_case`, `2*3*4`) or followed by a space (`a * b`) are not emphasis.
 */
const EMPHASIS = [
  /(?<![\\\p{L}\p{N}])(\*{1,3})(?![\s*])([^*\n]*?[^\s\\*])\1(?![\p{L}\p{N}*])/gu,
  /(?<![\\\p{L}\p{N}])(_{1,3})(?![\s_])([^_\n]*?[^\s\\_])\1(?![\p{L}\p{N}_])/gu,
];

function stripEmphasis(text: string): string {
  let result = '';
  let cursor = 0;
  for (const m of text.matchAll(VERBATIM)) {
    result += stripEmphasisOutsideCode(text.slice(cursor, m.index)) + m[0];
    cursor = m.index + m[0].length;
  }
  return result + stripEmphasisOutsideCode(text.slice(cursor));
}

function stripEmphasisOutsideCode(text: string): string {
  let previous = '';
  let current = text;
  while (current !== previous) {
    previous = current;
    for (const pattern of EMPHASIS) current = current.replace(pattern, '$2');
  }
  return current;
}

// ---------------------------------------------------------------------------------------------
// Shared line model

type LineKind = 'blank' | 'code' | 'table' | 'html' | 'text';

interface Fence {
  char: string;
  length: number;
  info: string;
}

const FENCE_OPEN = /^[ \t]*(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;
const FENCE_LINE = /^[ \t]*(?:`{3,}|~{3,})/;

function openingFence(line: string): Fence | null {
  const m = FENCE_OPEN.exec(line);
  if (!m) return null;
  const [, marker = '', rest = ''] = m;
  const info = rest.trim();
  if (marker.startsWith('`') && info.includes('`')) return null;
  return { char: marker.charAt(0), length: marker.length, info };
}

function closesFence(line: string, fence: Fence): boolean {
  const marker = FENCE_CLOSE.exec(line)?.[1];
  return marker !== undefined && marker.startsWith(fence.char) && marker.length >= fence.length;
}

const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const HTML_LINE = /^[ \t]*<[a-zA-Z/!]/;

/**
 * Splits a page into lines and classifies each: code (fences included, at any indentation, an
 * unclosed fence running to the end), GFM table lines (rows starting with `|`, or a header and
 * delimiter row and the rows that follow), HTML, blank, or other text.
 */
function scan(markdown: string): { lines: string[]; kinds: LineKind[] } {
  const lines = markdown.split('\n');
  const kinds: LineKind[] = [];
  let open: Fence | null = null;
  for (const line of lines) {
    if (open) {
      kinds.push('code');
      if (closesFence(line, open)) open = null;
      continue;
    }
    open = openingFence(line);
    if (open) kinds.push('code');
    else if (line.trim() === '') kinds.push('blank');
    else if (/^[ \t]*\|/.test(line)) kinds.push('table');
    else if (HTML_LINE.test(line)) kinds.push('html');
    else kinds.push('text');
  }
  // Pipe tables without leading pipes: a header row, a delimiter row, then rows with a pipe.
  for (let i = 0; i + 1 < lines.length; i++) {
    const delimiter = lines[i + 1] ?? '';
    if (kinds[i] !== 'text' || !(lines[i] ?? '').includes('|')) continue;
    if (kinds[i + 1] === 'code' || !delimiter.includes('|') || !TABLE_DELIMITER.test(delimiter))
      continue;
    kinds[i] = 'table';
    kinds[i + 1] = 'table';
    const isRow = (k: number): boolean =>
      (kinds[k] === 'text' || kinds[k] === 'table') && (lines[k] ?? '').includes('|');
    for (i += 2; i < lines.length && isRow(i); i++) kinds[i] = 'table';
  }
  return { lines, kinds };
}

interface Heading {
  level: number;
  text: string;
}

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;

function parseHeading(line: string): Heading | null {
  const m = ATX_HEADING.exec(line);
  if (!m) return null;
  const [, hashes = '', text = ''] = m;
  return text === '' ? null : { level: hashes.length, text };
}

// ---------------------------------------------------------------------------------------------

function warning(
  kind: PostprocessWarning['kind'],
  severity: PostprocessWarning['severity'],
  pageNumber: number,
  detail: string,
): PostprocessWarning {
  return { kind, severity, page_number: pageNumber, detail };
}

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
