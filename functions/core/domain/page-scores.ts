import { Parser } from 'htmlparser2';
import type { PageFeatures } from '../ports/document-engine.js';
import type { ProviderPageResult } from '../ports/page-provider.js';
import { confidenceReport } from './confidence.js';
import { plainText } from './markdown.js';
import type { ConfidenceReport } from './schemas.js';

/** Length of the character grams the text of a page is compared by (letters and digits only). */
const GRAM = 5;

/**
 * Letters and digits only, case-folded: spacing, punctuation and hyphenation never count. The
 * Arabic lam-alef ligature, which text layers often decompose in visual order, is read the
 * same in either order.
 */
const canonical = (text: string): string =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '')
    .replace(/\u0644([\u0622\u0623\u0625\u0627])/g, '$1\u0644');

/** Images and links reduced to their alt or link text: their targets are not page text. */
const withoutLinkTargets = (markdown: string): string =>
  markdown.replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, '$1');

const RTL_LETTER = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}]/gu;

/**
 * The words of a text, each as the lesser of itself and its reversal, sorted, less one
 * occurrence of each of `removed`.
 */
function directionFree(text: string, removed: readonly string[] = []): string {
  const words = text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '')
    .map((w) => {
      const reversed = Array.from(w).reverse().join('');
      return reversed < w ? reversed : w;
    });
  return without(words, removed).sort().join(' ');
}

/** Canonical evidence less the canonical text of each furniture element, where it is found. */
function withoutFurniture(source: string, furniture: readonly string[]): string {
  let rest = source;
  for (const f of furniture) {
    const c = canonical(f);
    if (c.length === 0) continue;
    if (rest.startsWith(c)) rest = rest.slice(c.length);
    else if (rest.endsWith(c)) rest = rest.slice(0, rest.length - c.length);
    else if (c.length >= GRAM) {
      // Short furniture (a page number) is only cut at the ends: inside, it would hit body text.
      const at = rest.indexOf(c);
      if (at >= 0) rest = rest.slice(0, at) + rest.slice(at + c.length);
    }
  }
  return rest;
}

/** Bits per character in a gram written as a number (see {@link gramKeys}). */
const RANK_BITS = 6;
const GRAM_MASK = (1 << (RANK_BITS * GRAM)) - 1;
/** Rank of each UTF-16 code unit while {@link gramKeys} runs (-1: not seen); reset after. */
const RANKS = new Int8Array(0x10000).fill(-1);

/**
 * The grams of `source` and of `text` (GRAM code units from each offset) as small integers: each
 * code unit replaced by its rank among the distinct code units of both texts, GRAM ranks of
 * RANK_BITS bits each. Equal grams get equal keys and different grams different ones; the keys
 * stay below 2^30, which V8 keeps unboxed in maps. Undefined when the texts hold more distinct
 * code units than RANK_BITS can number (the grams are then compared as strings).
 */
function gramKeys(source: string, text: string): [Int32Array, Int32Array] | undefined {
  const units: number[] = [];
  try {
    const keysOf = (s: string): Int32Array | undefined => {
      const keys = new Int32Array(Math.max(0, s.length - GRAM + 1));
      let key = 0;
      for (let i = 0; i < s.length; i++) {
        const unit = s.charCodeAt(i);
        let rank = RANKS[unit] ?? -1;
        if (rank < 0) {
          rank = units.length;
          if (rank >= 1 << RANK_BITS) return undefined;
          RANKS[unit] = rank;
          units.push(unit);
        }
        // Shift in the new rank; the oldest falls off the top bits.
        key = ((key << RANK_BITS) | rank) & GRAM_MASK;
        if (i >= GRAM - 1) keys[i - GRAM + 1] = key;
      }
      return keys;
    };
    const sourceKeys = keysOf(source);
    const textKeys = sourceKeys && keysOf(text);
    return sourceKeys && textKeys ? [sourceKeys, textKeys] : undefined;
  } finally {
    for (const unit of units) RANKS[unit] = -1;
  }
}

/** The grams of `text` as strings (for texts {@link gramKeys} cannot number). */
function gramStrings(text: string): string[] {
  const grams: string[] = [];
  for (let i = 0; i + GRAM <= text.length; i++) grams.push(text.slice(i, i + GRAM));
  return grams;
}

function gramCounts<K>(grams: ArrayLike<K>): Map<K, number> {
  const counts = new Map<K, number>();
  for (let i = 0; i < grams.length; i++) {
    const g = grams[i] as K;
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return counts;
}

/** Length of the longest increasing subsequence (patience sorting, O(n log n)). */
function longestIncreasing(values: readonly number[]): number {
  const tails: number[] = [];
  for (const v of values) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((tails[mid] ?? 0) < v) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = v;
  }
  return tails.length;
}

/** The parts of the verbatim score. */
export interface VerbatimParts {
  /** Share of the evidence's character grams found in the page text (dropped text lowers it). */
  coverage: number;
  /** Share of the page text's grams beyond their count in the evidence (duplicated or invented text). */
  excess: number;
  /** Share of the grams found once on both sides that keep the evidence's order. */
  order: number;
  score: number;
}

/**
 * Verbatim score of a page text against independent evidence of the same page.
 */
export function verbatimParts(
  markdown: string,
  evidence: string,
  furniture: readonly string[] = [],
): VerbatimParts {
  const page = plainText(withoutLinkTargets(markdown));
  const source = canonical(evidence);
  const inOrder = compareGrams(withoutFurniture(source, furniture), canonical(page));
  // Text layers store right-to-left scripts in visual or in logical order: such pages are also
  // compared word by word, each word read in either direction, and the better reading counts.
  if ((evidence.match(RTL_LETTER) ?? []).length <= 0.3 * source.length) return inOrder;
  const removed = directionFree(furniture.join(' ')).split(' ');
  const anyDirection = compareGrams(
    canonical(directionFree(evidence, removed)),
    canonical(directionFree(page)),
  );
  return anyDirection.score > inOrder.score ? anyDirection : inOrder;
}

/** Verbatim parts of canonical page text `text` against canonical evidence `source`. */
function compareGrams(source: string, text: string): VerbatimParts {
  if (source.length < GRAM || text.length < GRAM) {
    const same = source === text ? 1 : 0;
    return { coverage: same, excess: 1 - same, order: 1, score: same };
  }
  const keys = gramKeys(source, text);
  return keys
    ? compareGramLists(keys[0], keys[1])
    : compareGramLists(gramStrings(source), gramStrings(text));
}

/** Verbatim parts of the page text's grams `text` against the evidence's grams `source`. */
function compareGramLists<K>(source: ArrayLike<K>, text: ArrayLike<K>): VerbatimParts {
  const want = gramCounts(source);
  const have = gramCounts(text);
  let matched = 0;
  let extra = 0;
  have.forEach((n, g) => {
    const m = want.get(g) ?? 0;
    matched += Math.min(n, m);
    extra += Math.max(0, n - m);
  });
  const coverage = matched / source.length;
  const excess = extra / text.length;
  const firstAt = new Map<K, number>();
  for (let i = 0; i < source.length; i++) {
    const g = source[i] as K;
    if (want.get(g) === 1 && have.get(g) === 1) firstAt.set(g, i);
  }
  const positions: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const at = firstAt.get(text[i] as K);
    if (at !== undefined) positions.push(at);
  }
  const order = positions.length === 0 ? 1 : longestIncreasing(positions) / positions.length;
  return { coverage, excess, order, score: coverage * (1 - excess) * order };
}

/** One cell of a table as the Markdown gives it. */
export interface TableCell {
  /** The cell's text, its lines joined with spaces. */
  text: string;
  /** The cell's lines, set apart by `<br>` (one per record of a row that stacks records). */
  lines: string[];
  colspan: number;
  rowspan: number;
  header: boolean;
}

/** A table of the page Markdown (GFM pipe table or HTML table), rows top to bottom. */
export interface MarkdownTable {
  rows: TableCell[][];
  /** Offsets of the table in the Markdown. */
  start: number;
  end: number;
}

/** A cell of `text`, whose lines are set apart by `<br>`. */
const cell = (text: string, header: boolean, colspan = 1, rowspan = 1): TableCell => {
  const lines = text
    .split(/<br\s*\/?>/i)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '');
  return { text: lines.join(' '), lines, colspan, rowspan, header };
};

const GFM_RULE = /^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function splitPipeRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/);
}

/** The tables of a Markdown page: GFM pipe tables and HTML `<table>`s, in page order. */
export function markdownTables(markdown: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  const lines = markdown.split('\n');
  const offsets: number[] = [];
  let at = 0;
  for (const line of lines) {
    offsets.push(at);
    at += line.length + 1;
  }
  for (let i = 0; i < lines.length - 1; i++) {
    const head = lines[i] ?? '';
    if (!head.includes('|') || !GFM_RULE.test(lines[i + 1] ?? '')) continue;
    const rows = [splitPipeRow(head).map((t) => cell(t, true))];
    let j = i + 2;
    while (j < lines.length && (lines[j] ?? '').includes('|')) {
      rows.push(splitPipeRow(lines[j] ?? '').map((t) => cell(t, false)));
      j++;
    }
    tables.push({
      rows,
      start: offsets[i] ?? 0,
      end: (offsets[j - 1] ?? 0) + (lines[j - 1] ?? '').length,
    });
    i = j - 1;
  }
  for (const match of markdown.matchAll(/<table[\s>][\s\S]*?<\/table>/gi)) {
    tables.push({
      rows: htmlRows(match[0]),
      start: match.index,
      end: match.index + match[0].length,
    });
  }
  return tables.sort((a, b) => a.start - b.start);
}

/** Rows of one HTML table, read with htmlparser2 (spans and header cells kept). */
function htmlRows(html: string): TableCell[][] {
  const rows: TableCell[][] = [];
  let open: { header: boolean; colspan: number; rowspan: number; text: string } | null = null;
  const span = (v: string | undefined) =>
    Math.max(1, Math.min(1000, Number.parseInt(v ?? '1', 10) || 1));
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'tr') rows.push([]);
        else if (name === 'td' || name === 'th') {
          if (rows.length === 0) rows.push([]);
          open = {
            header: name === 'th',
            colspan: span(attributes.colspan),
            rowspan: span(attributes.rowspan),
            text: '',
          };
        } else if (name === 'br' && open) open.text += '<br>';
      },
      ontext(text) {
        if (open) open.text += text;
      },
      onclosetag(name) {
        if ((name === 'td' || name === 'th') && open) {
          rows.at(-1)?.push(cell(open.text, open.header, open.colspan, open.rowspan));
          open = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.end(html);
  return rows;
}

/** A number as tables print it: sign, currency, digits with separators, percent or scale suffix. */
const VALUE = /^[(\-−–+]?[$€£¥]?\d(?:[\d,.]*\d)?(?:±\d(?:[\d,.]*\d)?)?(?:%|[a-zA-Z]{1,2})?\)?$/;
const DATE =
  /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/gi;
const YEAR = /^(?:19|20)\d{2}$/;

/** Whether a cell holds two or more values of one type side by side (`0.965 0.969`, two dates). */
export function holdsSeveralValues(text: string): boolean {
  if ((text.match(DATE) ?? []).length >= 2) return true;
  const tokens = text.split(' ');
  // "Merged Cell 1.1 1.2" is a label that happens to hold numbers.
  if (tokens.filter((t) => VALUE.test(t)).length * 2 <= tokens.length) return false;
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i] ?? '';
    const b = tokens[i + 1] ?? '';
    // "1 000" is one number with a thin-space thousands separator.
    if (/^\d{1,3}$/.test(a) && /^\d{3}(?:[.,]\d+)?$/.test(b)) continue;
    if (VALUE.test(a) && VALUE.test(b)) return true;
  }
  return false;
}

/** Whether a header cell looks like a body value (an amount or a decimal, not a year or label). */
const dataLike = (text: string): boolean => VALUE.test(text) && !YEAR.test(text);

/** The numbers of a text (digit runs with inner separators), separators removed. */
function numbersOf(text: string): string[] {
  return (text.normalize('NFKC').match(/\d(?:[\d,.]*\d)?/g) ?? []).map((n) =>
    n.replace(/[,.]/g, ''),
  );
}

/** Share of the numbers of `source` (as a multiset) that `target` lacks; 0 when `source` has none. */
function missingShare(source: readonly string[], target: readonly string[]): number {
  if (source.length === 0) return 0;
  const have = new Map<string, number>();
  for (const n of target) have.set(n, (have.get(n) ?? 0) + 1);
  let missing = 0;
  for (const n of source) {
    const left = have.get(n) ?? 0;
    if (left > 0) have.set(n, left - 1);
    else missing++;
  }
  return missing / source.length;
}

/** `values` less one occurrence of each of `removed` (multisets). */
function without(values: readonly string[], removed: readonly string[]): string[] {
  const drop = new Map<string, number>();
  for (const n of removed) drop.set(n, (drop.get(n) ?? 0) + 1);
  return values.filter((n) => {
    const left = drop.get(n) ?? 0;
    if (left === 0) return true;
    drop.set(n, left - 1);
    return false;
  });
}

/** Words from which a cell reads as running prose rather than a value or a label. */
const PROSE_WORDS = 8;

/** Structural evidence about one table, each a share in [0, 1] (0 is good). */
export interface TableSignals {
  /** Rows whose width (spans included) differs from the table's most common width. */
  ragged: number;
  /** Non-empty body cells holding several values of one type. */
  merged: number;
  /** Body cells left empty. */
  empty: number;
  /** Non-empty cells of running prose (eight words or more): body text captured into a table. */
  prose: number;
  /** 1 when another table follows or precedes it with nothing but blank lines between. */
  adjacent: number;
  /** Doubt about the header row: none, empty, body values as header, a lone title over the columns. */
  header: number;
  /** Numbers of the table's region in the text layer (or of the evidence) missing from its cells. */
  missing: number;
  /** Numbers of the cells found nowhere in the evidence. */
  invented: number;
}

/** Widths of the rows of a table, cells carried down by `rowspan` included. */
function rowWidths(rows: readonly TableCell[][]): number[] {
  const carried: number[] = [];
  return rows.map((row) => {
    const own = row.reduce((n, c) => n + c.colspan, 0);
    const fromAbove = carried.length;
    const next = carried.map((n) => n - 1).filter((n) => n > 0);
    for (const c of row) {
      if (c.rowspan > 1) for (let s = 0; s < c.colspan; s++) next.push(c.rowspan - 1);
    }
    carried.splice(0, carried.length, ...next);
    return own + fromAbove;
  });
}

function mode(values: readonly number[]): number {
  const counts = new Map<number, number>();
  let best = 0;
  let bestCount = 0;
  for (const v of values) {
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    if (n > bestCount || (n === bestCount && v > best)) {
      best = v;
      bestCount = n;
    }
  }
  return best;
}

/** Rows of the header: leading rows of header cells (HTML `th`, the GFM header), else the first. */
function headerRows(rows: readonly TableCell[][]): number {
  let n = 0;
  while (n < rows.length && (rows[n] ?? []).length > 0 && (rows[n] ?? []).every((c) => c.header))
    n++;
  return Math.max(1, Math.min(n, rows.length));
}

/** Doubt in [0, 1] about a table's header row (its last header row when there are several). */
function headerDoubt(rows: readonly TableCell[][], width: number): number {
  const header = rows[headerRows(rows) - 1] ?? [];
  const filled = header.filter((c) => c.text !== '');
  if (filled.length === 0) return 1;
  if (filled.filter((c) => dataLike(c.text)).length * 2 >= filled.length) return 0.8;
  if (filled.length === 1 && width >= 3 && rows.length > 1) return 0.5;
  return 0;
}

/**
 * Structural signals of each table of a page.
 *
 * @param evidence independent text of the page (text layer), or null.
 * @param regions text-layer text inside each table's region, in table order, when the provider
 *   knows it; otherwise the numbers are checked page-wide (evidence against the whole Markdown).
 */
export function tableSignals(
  markdown: string,
  evidence: string | null,
  options: { furniture?: readonly string[]; regions?: readonly string[] } = {},
): TableSignals[] {
  const tables = markdownTables(markdown);
  const { furniture = [] } = options;
  // Regions that do not pair one to one with the tables say nothing about any of them.
  const regions = options.regions?.length === tables.length ? options.regions : undefined;
  const evidenceNumbers = evidence === null ? null : numbersOf(evidence);
  // Page numbers and running headers are not expected in the Markdown.
  const pageMissing =
    evidenceNumbers === null
      ? 0
      : missingShare(
          without(evidenceNumbers, numbersOf(furniture.join(' '))),
          numbersOf(plainText(markdown)),
        );
  return tables.map((table, i) => {
    const { rows } = table;
    const widths = rowWidths(rows);
    const width = mode(widths);
    const body = rows.slice(headerRows(rows)).flat();
    const filled = body.filter((c) => c.text !== '');
    const cellNumbers = numbersOf(
      rows
        .flat()
        .map((c) => c.text)
        .join(' '),
    );
    const region = regions?.[i];
    const gap = (from: number, to: number) => /^\s*$/.test(markdown.slice(from, to));
    const before = tables[i - 1];
    const after = tables[i + 1];
    return {
      ragged: widths.filter((w) => w !== width).length / Math.max(1, rows.length),
      // Values on lines of their own (`0.965<br>0.969`) are records stacked in a row, not merged.
      merged:
        filled.filter((c) => c.lines.some(holdsSeveralValues)).length / Math.max(1, filled.length),
      empty: (body.length - filled.length) / Math.max(1, body.length),
      prose:
        rows.flat().filter((c) => c.text.split(' ').length >= PROSE_WORDS).length /
        Math.max(1, rows.flat().filter((c) => c.text !== '').length),
      adjacent:
        (before !== undefined && gap(before.end, table.start)) ||
        (after !== undefined && gap(table.end, after.start))
          ? 1
          : 0,
      header: headerDoubt(rows, width),
      missing: region === undefined ? pageMissing : missingShare(numbersOf(region), cellNumbers),
      invented: evidenceNumbers === null ? 0 : missingShare(cellNumbers, evidenceNumbers),
    };
  });
}

/** Weights of the table signals: each signal (a share) times its weight is taken off 1. */
export const TABLE_WEIGHTS = {
  ragged: 0.5,
  merged: 0.8,
  /** Applies to the empty share above {@link EMPTY_CELLS_EXPECTED}. */
  empty: 1,
  prose: 0.5,
  adjacent: 0.2,
  header: 0.3,
  missing: 1,
  invented: 1,
} as const;

/** Share of empty body cells a sound table may have (row headers, blank totals). */
export const EMPTY_CELLS_EXPECTED = 0.3;

/** Score in [0, 1] of one table from its signals. */
export function tableScoreOf(t: TableSignals): number {
  const w = TABLE_WEIGHTS;
  const penalty =
    w.ragged * t.ragged +
    w.merged * t.merged +
    w.empty * Math.max(0, t.empty - EMPTY_CELLS_EXPECTED) +
    w.prose * t.prose +
    w.adjacent * t.adjacent +
    w.header * t.header +
    w.missing * t.missing +
    w.invented * t.invented;
  return Math.max(0, 1 - penalty);
}

/**
 * Table score of a page: the mean score of its tables ({@link tableScoreOf}), or null when the
 * Markdown has none.
 */
export function tableScore(
  markdown: string,
  evidence: string | null,
  options: { furniture?: readonly string[]; regions?: readonly string[] } = {},
): number | null {
  const scores = tableSignals(markdown, evidence, options).map(tableScoreOf);
  return scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length;
}

/** Words under this recognition confidence count as doubtful. */
export const LOW_WORD_CONFIDENCE = 0.6;

/**
 * Recognition score of an OCR page from its words: the character-weighted mean confidence, less
 * the character-weighted share of words under {@link LOW_WORD_CONFIDENCE}, less half the share of
 * value words (with a digit: amounts, dates, numbers) under it. Null without words.
 */
export function recognitionScore(
  words: readonly { text: string; confidence: number }[],
): number | null {
  let chars = 0;
  let sum = 0;
  let lowChars = 0;
  let values = 0;
  let lowValues = 0;
  for (const word of words) {
    const n = Array.from(word.text).length;
    const low = word.confidence < LOW_WORD_CONFIDENCE;
    chars += n;
    sum += n * word.confidence;
    if (low) lowChars += n;
    if (/\d/.test(word.text)) {
      values++;
      if (low) lowValues++;
    }
  }
  if (chars === 0) return null;
  const lowValueShare = values === 0 ? 0 : lowValues / values;
  return Math.max(0, sum / chars - lowChars / chars - 0.5 * lowValueShare);
}

/** A paragraph of a few short tokens only: a superscript, marker or page number cut off its line. */
const FRAGMENT = /^[\p{L}\p{N}]{1,2}[,.*'"’”]*(?:\s+[\p{L}\p{N}]{1,2}[,.*'"’”]*){0,5}$/u;
/** A formula set as prose: `s(t) = …`, `x = …`, or an expression of operators between terms. */
const MATH_TEXT =
  /(?:^|\s)[\p{L}](?:\([\p{L}\d]\))?\s*[=<>≤≥]\s*\S|[\p{L}\d)]\s*[−+×·/^]\s*\d*[\p{L}(]\d*\s*[=−+]/u;

/** Uncertainty signals of a page's layout, as shares in [0, 1]. */
export interface LayoutSignals {
  /** Paragraphs that are lone fragments (cut-off superscripts, markers, stray numbers). */
  fragments: number;
  /** Paragraphs holding formulas as plain text. */
  mathAsText: number;
}

/** Layout signals that the Markdown of any provider shows (tables, headings and code excluded). */
export function markdownLayoutSignals(markdown: string): LayoutSignals {
  const blocks = markdown
    .replace(/<table[\s>][\s\S]*?<\/table>/gi, '')
    .replace(/^```[\s\S]*?^```/gm, '')
    .split(/\n\s*\n/)
    .map((b) => b.trim())
    .filter((b) => b !== '' && !b.startsWith('|') && !b.startsWith('#') && !b.startsWith('$$'));
  if (blocks.length === 0) return { fragments: 0, mathAsText: 0 };
  const prose = blocks.map((b) => plainText(b.replace(/\$[^$\n]+\$/g, ' ')));
  return {
    fragments: prose.filter((t) => t !== '' && FRAGMENT.test(t)).length / blocks.length,
    mathAsText: prose.filter((t) => MATH_TEXT.test(t)).length / blocks.length,
  };
}

/** Weights of the layout uncertainty signals; their weighted sum (at most 0.6) is taken off. */
export const LAYOUT_WEIGHTS = {
  fragments: 1,
  mathAsText: 0.5,
  readingOrderAmbiguity: 0.5,
  guessedHeadingLevels: 0.25,
  unassignedLines: 1,
} as const;

/** Largest share of `layout_score` the uncertainty signals take off. */
const MAX_LAYOUT_DOUBT = 0.6;

/** What a text layer drawn invisibly (an earlier OCR of a scan) is trusted at. */
const INVISIBLE_TEXT_TRUST = 0.8;

/**
 * The ConfidenceReport of a parsed page.
 *
 * - `ocr_score`: {@link recognitionScore} of the provider's words when it gives them, else its
 *   own recognition confidence, else (text-layer providers) the share of glyphs with a Unicode
 *   mapping, times 0.8 for the share of the text layer drawn invisibly.
 * - `verbatim_score`: {@link verbatimParts} of the page text against the independent evidence
 *   (text layer, second engine), furniture left out; the recognition score when there is none.
 * - `table_score`: {@link tableScore}, null without tables.
 * - `layout_score`: the provider's layout confidence less its uncertainty signals and those the
 *   Markdown shows ({@link markdownLayoutSignals}), weighted by {@link LAYOUT_WEIGHTS}.
 */
export function scorePage(
  result: ProviderPageResult,
  evidence: string | null,
  features?: Pick<PageFeatures, 'garbageRatio' | 'invisibleCharRatio'>,
): ConfidenceReport {
  const textLayerQuality = features
    ? (1 - features.garbageRatio) * (1 - (1 - INVISIBLE_TEXT_TRUST) * features.invisibleCharRatio)
    : 1;
  const ocr =
    (result.words ? recognitionScore(result.words) : null) ?? result.ocrScore ?? textLayerQuality;
  const furniture = result.elements
    .filter((e) => e.label === 'header' || e.label === 'footer')
    .map((e) => e.text);
  const verbatim =
    evidence === null ? ocr : verbatimParts(result.markdown, evidence, furniture).score;
  const seen = markdownLayoutSignals(result.markdown);
  const given = result.layoutSignals ?? {};
  const w = LAYOUT_WEIGHTS;
  const doubt =
    w.fragments * seen.fragments +
    w.mathAsText * Math.max(seen.mathAsText, given.mathAsText ?? 0) +
    w.readingOrderAmbiguity * (given.readingOrderAmbiguity ?? 0) +
    w.guessedHeadingLevels * (given.guessedHeadingLevels ?? 0) +
    w.unassignedLines * (given.unassignedLines ?? 0);
  return confidenceReport({
    layout: result.layoutScore * (1 - Math.min(MAX_LAYOUT_DOUBT, doubt)),
    ocr,
    verbatim,
    table: tableScore(result.markdown, evidence, {
      furniture,
      ...(result.tableRegionText ? { regions: result.tableRegionText } : {}),
    }),
  });
}
