import { logicalRuns, type Direction } from './bidi.js';
import { isBrokenWord, vocabularyOf } from './hyphenation.js';
import { escapeInline } from './markdown.js';
import { lineParts, type MathTally } from '../math/find-math.js';
import { katexParses } from '../math/katex-check.js';
import type { TextRun } from './types.js';
import { lastToken, visibleLength } from './white-space.js';

/**
 * Inline assembly: the text of a line from its runs (word spaces from gaps, emphasis from run
 * styles) and of a paragraph from its lines (end-of-line hyphenation undone).
 */

/** Any letter (`\p{L}`, a code point). */
const LETTER = /\p{L}/gu;

/** Whether `text` holds at least `count` letters (`\p{L}`, counted in code points). */
export const hasLetters = (text: string, count: number): boolean => {
  LETTER.lastIndex = 0;
  let found = 0;
  while (found < count && LETTER.exec(text) !== null) found++;
  return found >= count;
};

/** A gap wider than this share of the smaller font size between two runs is a word space. */
export const WORD_GAP_EM = 0.18;

type Style = 'b' | 'i' | 'bi' | '';
const MARKER: Record<Exclude<Style, ''>, string> = { b: '**', i: '*', bi: '***' };

/** A superscript (`sup`), a subscript (`sub`) or neither. */
export type Script = 'sup' | 'sub' | '';

/** Size and baseline of a line's body text (the size carrying the most characters). */
export interface LineMetrics {
  size: number;
  baseline: number;
}

/** The body size of a line's runs and the mean baseline of the runs set at that size. */
export const lineMetrics = (runs: readonly TextRun[]): LineMetrics => {
  const chars = new Map<number, number>();
  let size = runs[0]?.fontSize ?? 0;
  let best = -1;
  for (const r of runs) {
    const key = Math.round(r.fontSize * 4) / 4;
    const n = (chars.get(key) ?? 0) + visibleLength(r.text) + 0.01;
    chars.set(key, n);
    if (n > best) {
      best = n;
      size = r.fontSize;
    }
  }
  let sum = 0;
  let weight = 0;
  for (const r of runs) {
    if (r.fontSize < 0.85 * size) continue;
    const w = visibleLength(r.text) + 0.01;
    sum += r.baseline * w;
    weight += w;
  }
  return { size, baseline: weight > 0 ? sum / weight : (runs[0]?.baseline ?? 0) };
};

/**
 * Whether a text-layer run is a superscript or subscript of its line: set at most 0.85 × the
 * line's body size, short, its baseline raised by at least 0.2 em (footnote markers, exponents)
 * or lowered by at least 0.1 em (indices). OCR words are never scripts (their sizes are guesses).
 */
export const scriptOf = (run: TextRun, line: LineMetrics): Script => {
  if (run.confidence !== undefined || line.size <= 0) return '';
  if (run.fontSize > 0.85 * line.size) return '';
  const chars = visibleLength(run.text);
  if (chars === 0 || chars > 12) return '';
  const shift = line.baseline - run.baseline;
  if (shift >= 0.2 * line.size && shift <= 0.8 * line.size) return 'sup';
  if (-shift >= 0.1 * line.size && -shift <= 0.6 * line.size) return 'sub';
  return '';
};

/**
 * Renders the runs of a line with emphasis: bold, italic or bold-italic stretches shorter than the
 * whole block are wrapped in `**` / `*` / `***` (one emphasis ending where another starts is set
 * apart by a space); superscripts and subscripts ({@link scriptOf}) are written as `<sup>` /
 * `<sub>` right after the word they hang on. Right-to-left text is put in logical order
 * first.
 *
 * @param direction the line's paragraph direction; by default that of most strong characters.
 * @param math on pages that may hold mathematics: formulas of the line ({@link lineParts}) are
 *   written as `$…$`, and counted here.
 */
export const styledText = (
  lineRuns: readonly TextRun[],
  blockBold: boolean,
  blockItalic: boolean,
  direction?: Direction,
  math?: MathTally,
): string => {
  const runs = logicalRuns(lineRuns, WORD_GAP_EM, direction);
  const main = lineMetrics(runs);
  let out = '';
  let prev: TextRun | undefined;
  let prevScript: Script = '';
  let open: Style = '';
  const close = (): void => {
    if (open === '') return;
    const trailing = /\s+$/.exec(out)?.[0] ?? '';
    out = out.slice(0, out.length - trailing.length) + MARKER[open] + trailing;
    open = '';
  };
  // Whether the last thing written is a formula: sentence punctuation after it takes no space
  // (a glyph the text layer does not give, ⊙ of `Z_\odot`, leaves a gap before the comma, which
  // a reader may give as a space).
  let afterFormula = false;
  const space = (run: TextRun, em: number, text: string): void => {
    if (!prev) return;
    if (afterFormula && /^[,.;:!?]/.test(text)) return;
    const gap = run.x - (prev.x + prev.w);
    if (gap > WORD_GAP_EM * em && !/\s$/.test(out) && !/^\s/.test(text)) out += ' ';
  };
  const emit = (run: TextRun): void => {
    let text = run.text.replace(/\s+/g, ' ');
    if (afterFormula && /^ ?[,.;:!?]/.test(text)) {
      text = text.trimStart();
      out = out.trimEnd();
    }
    const script = scriptOf(run, main);
    // Scripts hang on the word before them: gaps around them are measured in the line's em.
    space(
      run,
      script !== '' || prevScript !== '' ? main.size : Math.min(prev?.fontSize ?? 0, run.fontSize),
      text,
    );
    afterFormula = false;
    prev = run;
    prevScript = script;
    if (script !== '') {
      if (text.trim() === '') return;
      const closing = `</${script}>`;
      // Pieces of one script set one after the other (`t`, `−`, `1`) are one script. A space the
      // reader gives before or after the script stays outside its tags.
      if (out.endsWith(closing)) out = out.slice(0, -closing.length) + escapeInline(text.trim());
      else {
        if (/^\s/.test(text) && out !== '' && !/\s$/.test(out)) out += ' ';
        out += `<${script}>${escapeInline(text.trim())}`;
      }
      out += closing;
      if (/\s$/.test(text)) out += ' ';
      return;
    }
    const worded = hasLetters(text, 2);
    const bold = worded && run.bold && !blockBold;
    const italic = worded && run.italic && !blockItalic;
    const style: Style = bold && italic ? 'bi' : bold ? 'b' : italic ? 'i' : '';
    if (style !== open) {
      const switched = open !== '' && style !== '';
      close();
      if (style !== '') {
        const leading = /^\s*/.exec(text)?.[0] ?? '';
        // `*a***b**` cannot be read back: one emphasis ending where another starts needs a space.
        if (switched && leading === '' && !/\s$/.test(out)) out += ' ';
        out += leading + MARKER[style];
        out += escapeInline(text.slice(leading.length));
        open = style;
        return;
      }
    }
    out += escapeInline(text);
  };
  const parts = math ? lineParts(runs, main, scriptOf, math) : null;
  if (parts === null) {
    for (const run of runs) emit(run);
  } else {
    for (const part of parts) {
      if (part.latex === undefined) {
        for (const run of part.runs) emit(run);
        continue;
      }
      // A formula: `$…$`, apart from the words around it as its glyphs are. It ends where its
      // rightmost glyph does (a subscript may end past the superscript read after it).
      const first = part.runs[0];
      const last = part.runs.reduce<TextRun | undefined>(
        (a, r) => (a === undefined || r.x + r.w > a.x + a.w ? r : a),
        undefined,
      );
      if (!first || !last) continue;
      close();
      space(first, main.size, first.text);
      if (/^\s/.test(first.text) && out !== '' && !/\s$/.test(out)) out += ' ';
      out += `$${part.latex}$`;
      if (part.spaceAfter) out += ' ';
      prev = last;
      prevScript = '';
      afterFormula = true;
    }
  }
  close();
  return out.replace(/\s+/g, ' ').trim();
};

/** An emphasis marker closing a line (not an escaped `\*`). */
const CLOSING = /(?<!\\)(\*{1,3})$/;
/** An emphasis marker opening a line. */
const OPENING = /^(\*{1,3})(?=\S)/;
/** The start of a URL (a line's last word that starts so is a URL or its start). */
const URL_START = /^(?:<?https?:\/\/|www\.)/i;

/** Whether `text` is one URL or e-mail address and nothing else (a link line, not code). */
export const isLinkText = (text: string): boolean =>
  /^(?:<?(?:https?|ftp):\/\/|www\.)\S+$|^[\w.+-]+@[\w-]+(?:\.[\w-]+)+\.?$/i.test(text.trim()) ||
  /^\{[\w.,\s+-]+\}@[\w-]+(?:\.[\w-]+)+$/.test(text.trim());

/**
 * Words of a document ({@link vocabularyOf}), or a function giving them: called only when a
 * line ends in a hyphen, which most lines do not.
 */
export type Vocabulary = ReadonlySet<string> | (() => ReadonlySet<string>);

const wordsOf = (vocabulary: Vocabulary): ReadonlySet<string> =>
  typeof vocabulary === 'function' ? vocabulary() : vocabulary;

/**
 * How two lines meet: `hyphen` when the first ends in a word broken by hyphenation (the hyphen
 * goes), `''` when they join without a space (a compound's hyphen kept, a URL going on), `' '`
 * otherwise.
 */
const seam = (left: string, right: string, vocabulary: Vocabulary): 'hyphen' | '' | ' ' => {
  // The paragraph so far (`left`) grows line by line: only its last word is looked at.
  const last = lastToken(left);
  const urlTail = URL_START.test(last) ? last : undefined;
  if (urlTail !== undefined && !/\s/.test(right.slice(0, 1))) {
    if (/[/\-_?=&#%~:@]$/.test(urlTail)) return '';
    if (/\.$/.test(urlTail) && /^[a-z0-9][\w~%-]*[./?#=&]/i.test(right)) return '';
  }
  const token = last.replace(/^[^\p{L}]+/u, '');
  if (!/^\p{L}[\p{L}-]*\p{L}-$/u.test(token) && !/^\p{L}-$/u.test(token)) return ' ';
  if (/^[\p{Lu}\d]/u.test(right)) {
    // A capital after the hyphen is a name's part (`Jean-` + `Paul`) unless the document spells
    // the word whole (`Re-` + `Act` where `ReAct` is written elsewhere).
    const l = token.slice(0, -1).toLowerCase();
    const word = /^\p{L}+/u.exec(right)?.[0]?.toLowerCase();
    const words = wordsOf(vocabulary);
    const whole = word !== undefined && words.has(l + word) && !words.has(`${l}-${word}`);
    return whole ? 'hyphen' : '';
  }
  const next = /^\p{Ll}+/u.exec(right)?.[0];
  if (next === undefined) return ' ';
  return isBrokenWord(token.slice(0, -1), next, wordsOf(vocabulary)) ? 'hyphen' : '';
};

/**
 * Joins the lines of a paragraph (plain text or Markdown of {@link styledText}): a word broken by
 * a line-end hyphen is joined when it is one word (`exam-` + `ple`), a compound keeps its hyphen
 * (`low-` + `power`, `out-of-` + `lab`; see {@link isBrokenWord}), a URL broken at a line end goes
 * on without a space, and an emphasis closed at a line end and opened again on the next line is
 * one stretch (`**a b**`, not `**a** **b**`).
 *
 * @param vocabulary words of the document ({@link vocabularyOf}); by default those of `parts`.
 */
export const joinLines = (parts: readonly string[], vocabulary?: Vocabulary): string => {
  let words: ReadonlySet<string> | undefined;
  const given = vocabulary ?? (() => (words ??= vocabularyOf(parts)));
  let out = '';
  for (const part of parts) {
    const p = part.trim();
    if (p === '') continue;
    out = out === '' ? p : joinTwo(out, p, given);
  }
  return out;
};

/** An inline formula opening a line (not a display's `$$`). */
const FORMULA_FIRST = /^\$(?!\$)([^$]+)\$(?!\$)/;
/** Relations and binary operators, which a formula broken at a line end ends or starts with. */
const OPERATOR =
  '(?:[=<>+\\-−×·/:]|\\\\(?:sim|simeq|approx|equiv|cong|propto|neq?|leq?|geq?|ll|gg|lesssim|gtrsim|times|cdot|pm|mp|to|rightarrow|leftarrow|Rightarrow|mapsto|in|notin|subset|subseteq|supset|supseteq)(?![A-Za-z]))';
const OPERATOR_LAST = new RegExp(`${OPERATOR}$`);
const OPERATOR_FIRST = new RegExp(`^${OPERATOR}`);

/**
 * The one formula that two lines of a paragraph break: the first line ends in an inline formula
 * and the next starts with one, and the break falls after a relation or an operator
 * (`$M_{500}=$` + `$4\times10^{12}$` is `$M_{500}= 4\times10^{12}$`); undefined otherwise.
 */
const joinedFormula = (left: string, right: string): string | undefined => {
  // Cheap tests first: a paragraph joins its lines one by one, and most end in a word.
  if (!left.endsWith('$') || !right.startsWith('$')) return undefined;
  // The formula closing the first line: from the `$` before the last one.
  const start = left.lastIndexOf('$', left.length - 2);
  if (start < 0 || start === left.length - 2 || /[$\\]/.test(left[start - 1] ?? '')) {
    return undefined;
  }
  const first = FORMULA_FIRST.exec(right);
  if (!first) return undefined;
  const a = left.slice(start + 1, -1).trim();
  const b = (first[1] ?? '').trim();
  if (!OPERATOR_LAST.test(a) && !OPERATOR_FIRST.test(b)) return undefined;
  const latex = `${a} ${b}`;
  if (!katexParses(latex)) return undefined;
  return `${left.slice(0, start)}$${latex}$${right.slice(first[0].length)}`;
};

/** Joins two lines of a paragraph ({@link joinLines}). */
export const joinTwo = (left: string, right: string, vocabulary: Vocabulary): string => {
  const formula = joinedFormula(left, right);
  if (formula !== undefined) return formula;
  // A closing marker is at most three asterisks after a character other than a backslash.
  const close = CLOSING.exec(left.slice(-4))?.[1] ?? '';
  const open = OPENING.exec(right)?.[1] ?? '';
  const l = left.slice(0, left.length - close.length);
  const r = right.slice(open.length);
  const how = seam(l, r, vocabulary);
  if (close !== '' && close === open) {
    // One emphasis across the line break.
    return how === 'hyphen' ? l.slice(0, -1) + r : l + how + r;
  }
  if (how !== 'hyphen') return left + how + right;
  if (close !== '' && open === '') {
    // `… algo-**` + `rithm`: the word stays whole inside the emphasis.
    const word = /^[^\s*]+/.exec(right)?.[0] ?? '';
    return l.slice(0, -1) + word + close + right.slice(word.length);
  }
  if (open !== '' && close === '') {
    const word = lastToken(l);
    return l.slice(0, l.length - word.length) + open + word.slice(0, -1) + r;
  }
  return l.slice(0, -1) + close + open + r;
};
