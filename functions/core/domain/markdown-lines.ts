/**
 * The Markdown line model: what each line of a page is (blank, code fence, code, table row,
 * HTML, display math, heading, list item or paragraph), read line by line as our engines and
 * vision models write Markdown.
 *
 * One scanner rather than a full CommonMark parser (`marked`'s lexer): the post-processing steps
 * rewrite pages line by line and must keep every line they do not change byte for byte, so they
 * need a verdict per line, and a few readings a parser does not make (a fence at any indentation,
 * `•` bullets, an unclosed fence running to the end of the page).
 */

/** What a line of Markdown is. */
export type LineKind =
  /** Empty or whitespace only. */
  | 'blank'
  /** The opening or closing line of a fenced code block. */
  | 'fence'
  /** A line inside a fenced code block. */
  | 'code'
  /** A GFM table row or delimiter row. */
  | 'table'
  /** A line starting with an HTML tag. */
  | 'html'
  /** An ATX heading (`## Title`). */
  | 'heading'
  /** A list item's first line (`- item`, `1. item`, `• item`). */
  | 'list-item'
  /** A line of a display-math block (`$$ … $$`). */
  | 'math'
  /** Any other text: paragraph lines, list continuations, block quotes, rules, setext underlines. */
  | 'paragraph';

/** An ATX heading. */
export interface Heading {
  /** 1 to 6. */
  level: number;
  /** The heading's text, without the opening and closing `#` sequences. */
  text: string;
}

/** The first line of a list item, split into its parts. */
export interface ListItem {
  /** The whitespace before the marker, as written. */
  indentText: string;
  /** Width of `indentText` in columns, tabs stopping every 4 columns. */
  indent: number;
  /** The marker as written: `-`, `•`, `1.`, `2)`. */
  marker: string;
  /** The whitespace between marker and content, as written (empty for `•Item`). */
  gap: string;
  ordered: boolean;
  /** The number of an ordered item as written; empty for a bullet. */
  number: string;
  content: string;
}

/** A code fence's opening line. */
export interface Fence {
  /** `` ` `` or `~`. */
  char: string;
  length: number;
  info: string;
}

/** One line of a page with its kind; `heading` and `item` are set for those kinds only. */
export interface MarkdownLine {
  text: string;
  kind: LineKind;
  heading: Heading | null;
  item: ListItem | null;
}

/**
 * Splits a page into lines and classifies each.
 *
 * - Fences open at any indentation; an unclosed fence runs to the end of the page.
 * - Table rows are lines starting with `|`, or a header row and delimiter row (both holding a
 *   pipe) and the rows with a pipe that follow them.
 * - Headings, list items, display math and paragraphs are the remaining lines. A display-math
 *   block runs from a paragraph line starting with `$$` to one ending with `$$` (or to a blank
 *   line when unclosed); a line inside it that reads as a heading, item or table row keeps that
 *   kind.
 *
 * @example
 * markdownLines('# Title\n\n- item').map((line) => line.kind); // → ['heading', 'blank', 'list-item']
 */
export function markdownLines(markdown: string): MarkdownLine[] {
  const texts = markdown.split('\n');
  const kinds = blockKinds(texts);
  const lines = texts.map((text, i): MarkdownLine => {
    const kind = kinds[i];
    if (kind !== 'paragraph') return { text, kind: kind ?? 'paragraph', heading: null, item: null };
    const heading = parseHeading(text);
    if (heading) return { text, kind: 'heading', heading, item: null };
    const item = parseListItem(text);
    if (item) return { text, kind: 'list-item', heading: null, item };
    return { text, kind, heading: null, item: null };
  });
  markMath(lines);
  return lines;
}

/** Headings, list items, display math and paragraphs: the lines of running text. */
export const isProse = (line: MarkdownLine | undefined): boolean =>
  line !== undefined &&
  (line.kind === 'paragraph' ||
    line.kind === 'heading' ||
    line.kind === 'list-item' ||
    line.kind === 'math');

/** Fence lines and the lines between them. */
export const isCode = (line: MarkdownLine | undefined): boolean =>
  line?.kind === 'fence' || line?.kind === 'code';

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;

/**
 * The ATX heading a line is, or null: up to 3 spaces of indentation, 1 to 6 `#`, whitespace and
 * a non-empty text; a closing `#` sequence is not part of the text.
 *
 * @example
 * parseHeading('## Results ##'); // → { level: 2, text: 'Results' }
 */
export function parseHeading(line: string): Heading | null {
  const m = ATX_HEADING.exec(line);
  if (!m) return null;
  const [, hashes = '', text = ''] = m;
  return text === '' ? null : { level: hashes.length, text };
}

const BULLET_ITEM = /^([ \t]*)([-*+•●▪◦–‣○■►▸])([ \t]+)(\S.*)$/u;
/** `•Item` without a space, as text layers and some models write it. */
const TIGHT_BULLET_ITEM = /^([ \t]*)(•)()([\p{L}\p{N}].*)$/u;
const ORDERED_ITEM = /^([ \t]*)(\d{1,9})([.)])([ \t]+)(\S.*)$/;
const THEMATIC_BREAK = /^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
/** `– 12 –`: a page number between dashes, not a list item. */
const DASHED_PAGE_NUMBER = /^[ \t]*–[ \t].*–[ \t]*$/;

/**
 * The list item a line starts, or null: a bullet (`-`, `*`, `+`, `•`, `●`, `▪`, `◦`, `–`, …) or
 * a number with `.` or `)`, then whitespace and content (`•Item` needs no space). Rules
 * (`* * *`) and page numbers between dashes (`– 12 –`) are not items. Whether the item can
 * interrupt the paragraph before it is the caller's concern.
 *
 * @example
 * parseListItem('  2) Second')?.content; // → 'Second'
 */
export function parseListItem(line: string): ListItem | null {
  if (THEMATIC_BREAK.test(line) || DASHED_PAGE_NUMBER.test(line)) return null;
  const ordered = ORDERED_ITEM.exec(line);
  if (ordered) {
    const [, indentText = '', number = '', delimiter = '', gap = '', content = ''] = ordered;
    const indent = indentWidth(indentText);
    return { indentText, indent, marker: number + delimiter, gap, ordered: true, number, content };
  }
  const bullet = BULLET_ITEM.exec(line) ?? TIGHT_BULLET_ITEM.exec(line);
  if (!bullet) return null;
  const [, indentText = '', marker = '', gap = '', content = ''] = bullet;
  return {
    indentText,
    indent: indentWidth(indentText),
    marker,
    gap,
    ordered: false,
    number: '',
    content,
  };
}

/** A thematic break: three or more `-`, `*` or `_`, spaces allowed between them. */
export const isThematicBreak = (line: string): boolean => THEMATIC_BREAK.test(line);

const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;

/** A line of `=` or `-` alone, which makes the paragraph line above it a setext heading. */
export const isSetextUnderline = (line: string): boolean => SETEXT_UNDERLINE.test(line);

/** A block quote line (`> …`). */
export const isBlockQuote = (line: string): boolean => /^[ \t]*>/.test(line);

/** Width in columns of a line's indentation, tabs stopping every 4 columns. */
export function indentWidth(line: string): number {
  let width = 0;
  for (const ch of line) {
    if (ch === '\t') width += 4 - (width % 4);
    else if (ch === ' ') width++;
    else break;
  }
  return width;
}

const FENCE_OPEN = /^[ \t]*(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;
const FENCE_MARKER = /^[ \t]*(?:`{3,}|~{3,})/;

/**
 * The code fence a line opens, or null: 3+ backticks or tildes at any indentation, then an info
 * string (which may not hold a backtick after a backtick fence).
 */
export function openingFence(line: string): Fence | null {
  const m = FENCE_OPEN.exec(line);
  if (!m) return null;
  const [, marker = '', rest = ''] = m;
  const info = rest.trim();
  if (marker.startsWith('`') && info.includes('`')) return null;
  return { char: marker.charAt(0), length: marker.length, info };
}

/** Whether `line` closes `fence`: the same character, at least as many, nothing after. */
export function closesFence(line: string, fence: Fence): boolean {
  const marker = FENCE_CLOSE.exec(line)?.[1];
  return marker !== undefined && marker.startsWith(fence.char) && marker.length >= fence.length;
}

/** Whether a line starts with 3+ backticks or tildes, whether or not it opens or closes a fence. */
export const startsWithFenceMarker = (line: string): boolean => FENCE_MARKER.test(line);

const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const HTML_LINE = /^[ \t]*<[a-zA-Z/!]/;

/** Fences, code, blank lines, tables and HTML; every other line is `paragraph` here. */
function blockKinds(lines: readonly string[]): LineKind[] {
  const kinds: LineKind[] = [];
  let open: Fence | null = null;
  for (const line of lines) {
    if (open) {
      const closes = closesFence(line, open);
      kinds.push(closes ? 'fence' : 'code');
      if (closes) open = null;
      continue;
    }
    open = openingFence(line);
    if (open) kinds.push('fence');
    else if (line.trim() === '') kinds.push('blank');
    else if (/^[ \t]*\|/.test(line)) kinds.push('table');
    else if (HTML_LINE.test(line)) kinds.push('html');
    else kinds.push('paragraph');
  }
  // Pipe tables without leading pipes: a header row, a delimiter row, then rows with a pipe.
  for (let i = 0; i + 1 < lines.length; i++) {
    const delimiter = lines[i + 1] ?? '';
    if (kinds[i] !== 'paragraph' || !(lines[i] ?? '').includes('|')) continue;
    if (isCodeKind(kinds[i + 1]) || !delimiter.includes('|') || !TABLE_DELIMITER.test(delimiter))
      continue;
    kinds[i] = 'table';
    kinds[i + 1] = 'table';
    const isRow = (k: number): boolean =>
      (kinds[k] === 'paragraph' || kinds[k] === 'table') && (lines[k] ?? '').includes('|');
    for (i += 2; i < lines.length && isRow(i); i++) kinds[i] = 'table';
  }
  return kinds;
}

const isCodeKind = (kind: LineKind | undefined): boolean => kind === 'fence' || kind === 'code';

/** Relabels the paragraph lines of `$$ … $$` blocks as math. */
function markMath(lines: MarkdownLine[]): void {
  let open = false;
  for (const line of lines) {
    if (line.kind === 'blank' || isCodeKind(line.kind)) {
      open = false;
      continue;
    }
    if (line.kind !== 'paragraph') continue;
    const text = line.text.trim();
    if (open) {
      line.kind = 'math';
      if (text.endsWith('$$')) open = false;
    } else if (text.startsWith('$$')) {
      line.kind = 'math';
      open = text.length < 4 || !text.endsWith('$$');
    }
  }
}
