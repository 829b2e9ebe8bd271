import type { LineMetrics, Script } from '../layout/inline.js';
import type { PageText, TextRun } from '../layout/types.js';
import { findDisplayEquations, type Box, type DisplayEquation } from './equations.js';
import { katexParses } from './katex-check.js';
import { inlineLatex, isMathFont, isUprightTextFont, textLatex } from './latex.js';
import { isSansName, texFamily } from './tex-fonts.js';

/**
 * Mathematics in the running text of a page: which runs are a formula, and the formulas' LaTeX
 * as the page Markdown writes it (`$…$` inline, `$$…$$` on their own lines), each checked with
 * KaTeX.
 */

/** Mathematical alphanumeric symbols (𝑥, 𝐀, 𝔽): only mathematics uses them, whatever the font. */
const MATH_ONLY = /[\u{1D400}-\u{1D7FF}]/u;
/** Glyphs a math font also sets that are not mathematics: bullets, unmapped (private-use) glyphs. */
const NOT_MATH = /^[\s•◦▪▫‣●○■□►▶➢✓✔◆◇·∙\uE000-\uF8FF]*$/u;

/** {@link isMathFont} by font name (a page has few fonts and many runs). */
const mathFonts = new Map<string, boolean>();
const mathFont = (name: string): boolean => {
  let math = mathFonts.get(name);
  if (math === undefined) {
    math = isMathFont(name);
    if (mathFonts.size > 1000) mathFonts.clear();
    mathFonts.set(name, math);
  }
  return math;
};

/**
 * An upright Greek capital (Γ Δ Θ Λ Ξ Π Σ Υ Φ Ψ Ω), or its code in TeX's text fonts (OT1 0–8,
 * when a reader gives codes), apart from any word: TeX's text fonts set them in mathematics.
 * The increment and ohm signs (∆ U+2206, Ω U+2126) count too: a ToUnicode map made from the
 * Adobe Glyph List gives them for CMR's `Delta` and `Omega`.
 */
// eslint-disable-next-line no-control-regex
const TEX_GREEK = /(?<!\p{L})[ΓΔΘΛΞΠΣΥΦΨΩ\u2206\u2126\u0000-\u0008](?!\p{L})/u;
const TEX_GREEK_ALL = new RegExp(TEX_GREEK.source, 'gu');
// eslint-disable-next-line no-control-regex
const TEX_GREEK_ONLY = /^\s*[ΓΔΘΛΞΠΣΥΦΨΩ\u2206\u2126\u0000-\u0008]\s*$/u;

/** Whether a font is one of TeX's text fonts (CMR, CMBX...), by name. */
const texTextFonts = new Map<string, boolean>();
const texTextFont = (name: string): boolean => {
  let text = texTextFonts.get(name);
  if (text === undefined) {
    const family = texFamily(name);
    text = family === 'roman' || family === 'bold';
    if (texTextFonts.size > 1000) texTextFonts.clear();
    texTextFonts.set(name, text);
  }
  return text;
};

/**
 * Whether a run is set as mathematics: a math font's glyphs (not its bullets), 𝑥-like letters,
 * or an upright Greek capital of TeX's text fonts.
 */
export const isMathRun = (run: TextRun): boolean =>
  run.confidence === undefined &&
  ((mathFont(run.fontName) && !NOT_MATH.test(run.text)) ||
    MATH_ONLY.test(run.text) ||
    (TEX_GREEK_ONLY.test(run.text) && texTextFont(run.fontName)));

/**
 * Whether a page may hold mathematics: a cheap test on fonts and code points, so that pages
 * without any (and OCR pages, whose words have no fonts) are laid out as before.
 */
export const mayHoldMath = (runs: readonly TextRun[]): boolean => runs.some(isMathRun);

/** Formulas a page's Markdown emits, and those KaTeX refused (written as text instead). */
export interface MathTally {
  /** Inline formulas kept: their LaTeX and box (pixels of the page image). */
  inline: (Box & { latex: string })[];
  /** Formulas (inline and display) that did not parse and were written as text. */
  failed: number;
}

/** An empty {@link MathTally}. */
export const mathTally = (): MathTally => ({ inline: [], failed: 0 });

/**
 * LaTeX without the spaces it does not need, as LaTeX sources are written (`x_{t}\in\mathcal{X}`):
 * a space stays after a command followed by a letter (`\sim f`) or a digit (`\times 10^{5}`, as
 * authors write it), a control space (`\ \mathrm{km\ s^{-1}}`) and spaces inside `\text{…}`-like
 * groups.
 */
export const compactLatex = (latex: string): string => {
  const kept: string[] = [];
  const hold = (m: string): string => {
    kept.push(m);
    return `\uE000${kept.length - 1}\uE000`;
  };
  // A control space (`\ `) stays; a line break (`\\`) is read first, so its second backslash
  // is not taken for one.
  const held = latex
    .replace(/\\(?:text|mathrm|operatorname)\{[^{}]*\}/g, hold)
    .replace(/\\[\\ ]/g, (m) => (m === '\\ ' ? hold(m) : m));
  return held
    .replace(/(\\[A-Za-z]+)\s+(?=[A-Za-z0-9])/g, '$1\uE001')
    .replace(/\s+/g, '')
    .replace(/\uE001/g, ' ')
    .replace(/\uE000(\d+)\uE000/g, (_, i: string) => kept[Number(i)] ?? '');
};

/** Display equations of a page whose LaTeX KaTeX reads, and how many it did not. */
export interface PageEquations {
  equations: DisplayEquation[];
  failed: number;
}

/**
 * The display equations of a text-layer page ({@link findDisplayEquations}) that KaTeX parses,
 * their LaTeX compacted ({@link compactLatex}); the others are left to be read as text.
 */
export const pageEquations = (page: PageText, exclude: readonly Box[]): PageEquations => {
  const equations: DisplayEquation[] = [];
  let failed = 0;
  // Equations are read from the runs' glyphs, whitespace out; they claim the runs themselves.
  const original = new Map<TextRun, TextRun>();
  const runs = page.runs.map((r) => {
    // A space between words of a text font stays (`km s`, units); math spacing is geometry.
    const text = mathFont(r.fontName)
      ? r.text.replace(/\s+/g, '')
      : r.text
          .trim()
          .replace(/\s+/g, (space, at: number, all: string) =>
            /\p{L}/u.test(all[at + space.length] ?? '') ? ' ' : '',
          );
    const glyphs = { ...r, text };
    original.set(glyphs, r);
    return glyphs;
  });
  for (const found of findDisplayEquations({ ...page, runs }, exclude)) {
    // Scripts over a line of prose, or a formula set inside one, are inline mathematics.
    if (besideProse(found, runs) || inParagraph(found, runs)) continue;
    const body = compactLatex(found.body) + closingPunctuation(found);
    const claimed = found.runs.map((r) => original.get(r) ?? r);
    if (katexParses(body, true)) equations.push({ ...found, body, runs: claimed });
    else failed++;
  }
  return { equations, failed };
};

/**
 * The sentence punctuation closing an equation's last line (`,` `.` `;`), which its LaTeX
 * leaves out: written inside `$$…$$`, as LaTeX sources set it.
 */
const closingPunctuation = (equation: DisplayEquation): string => {
  const runs = equation.number === null ? equation.runs : equation.runs.slice(0, -1);
  // The last glyph: the rightmost of a one-line display (a fraction's denominator is lower
  // than the comma after it), the last of the lowest line of a multi-line one.
  const multiLine = equation.body.includes('\\\\');
  let last: TextRun | undefined;
  for (const r of runs) {
    if (last === undefined) last = r;
    else if (!multiLine) {
      if (r.x + r.w > last.x + last.w) last = r;
    } else if (r.baseline > last.baseline + 0.5 * last.fontSize) last = r;
    else if (Math.abs(r.baseline - last.baseline) <= 0.5 * last.fontSize && r.x > last.x) last = r;
  }
  const mark = /([.,;])$/.exec(last?.text.trim() ?? '')?.[1] ?? '';
  return mark !== '' && !equation.body.endsWith(mark) ? mark : '';
};

/** A word of two letters or more. */
const WORD = /\p{L}{2,}/u;

/**
 * Whether an equation shares its band of the page with prose beside it (within two ems):
 * text in a text font with words, overlapping a third of the equation's height.
 */
const besideProse = (equation: DisplayEquation, runs: readonly TextRun[]): boolean => {
  const own = new Set(equation.runs);
  const em = Math.max(...equation.runs.map((r) => r.fontSize));
  const height = equation.y1 - equation.y0;
  return runs.some((r) => {
    if (own.has(r) || isMathRun(r) || !WORD.test(r.text)) return false;
    const overlap = Math.min(equation.y1, r.y + r.h) - Math.max(equation.y0, r.y);
    if (overlap <= Math.min(height, r.h) / 3) return false;
    return r.x < equation.x1 + 2 * em && r.x + r.w > equation.x0 - 2 * em;
  });
};

/**
 * Whether an equation is a line of a paragraph: it starts where a line of prose right above or
 * below it starts (within half an em), at the paragraph's line spacing (the boxes under half
 * an em apart, and, when the paragraph has a line beyond that one, its baseline no further from
 * it than the paragraph's lines are from each other). A display is set apart, centred or
 * indented, with space around it; a formula that fills the last line of a paragraph
 * (`kT ∼ 0.8 − 1 keV.`) is inline mathematics, one set on a line of its own with more lead than
 * the paragraph's (`s(t) = −16t² − 8t + 64.` under `… is given by`) is a display.
 */
const inParagraph = (equation: DisplayEquation, runs: readonly TextRun[]): boolean => {
  const em = Math.max(...equation.runs.map((r) => r.fontSize));
  const prose = (r: TextRun) => !isMathRun(r) && WORD.test(r.text);
  const main = equation.runs.filter((r) => r.fontSize >= 0.85 * em).map((r) => r.baseline);
  return runs.some((r) => {
    if (!prose(r) || Math.abs(r.x - equation.x0) > 0.5 * em) return false;
    const gap = Math.max(r.y - equation.y1, equation.y0 - (r.y + r.h));
    if (gap < -0.2 * em || gap >= 0.5 * em) return false;
    // The lead from the prose line to the equation's nearest line, and the paragraph's own.
    const above = r.y < equation.y0;
    const lead = above ? Math.min(...main) - r.baseline : r.baseline - Math.max(...main);
    const paragraph = Math.min(
      ...runs
        .filter((q) => prose(q) && q.x < r.x + r.w && q.x + q.w > r.x)
        .map((q) => (above ? r.baseline - q.baseline : q.baseline - r.baseline))
        .filter((d) => d > 0.5 * em),
    );
    return !(lead > 1.15 * paragraph);
  });
};

/** The Markdown of a display equation: `$$…$$`, its number after it as on the page. */
export const displayMarkdown = (equation: DisplayEquation): string =>
  `$$${equation.body}$$${equation.number ? ` (${equation.number})` : ''}`;

/** A part of a line: runs read as text, or runs read as a formula with its LaTeX. */
export type LinePart =
  | { runs: TextRun[]; latex?: undefined }
  | {
      runs: TextRun[];
      latex: string;
      /** The formula's glyphs are followed by a word space. */
      spaceAfter: boolean;
    };

/** Runs with their whitespace taken out (math spacing comes from the glyphs' positions). */
const glyphsOf = (runs: readonly TextRun[]): TextRun[] =>
  runs.flatMap((r) => {
    const text = r.text.replace(/\s+/g, '');
    return text === '' ? [] : [text === r.text ? r : { ...r, text }];
  });

/**
 * Text that may sit among a formula's glyphs in a text font: digits, brackets, operators, a
 * percent sign (`∼` `15%` `r`).
 */
const CONNECTOR = /^[\s\d()[\]{}=+<>|/:;,.!'′−×·∗∼≤≥≠≈∈∉⊂⊆⊃⊇→←↔⇒⇔∞∂∇±∓%]+$/u;
/** Greek letters and mathematical operators, which a text font may set in a formula. */
const MATH_SIGN = /^[\s\p{Script=Greek}\u2200-\u22FF\u2190-\u21FF\u27C0-\u27EF\u2A00-\u2AFF]+$/u;
/** A Greek letter or a mathematical operator. */
const MATH_SIGN_IN = /[\p{Script=Greek}\u2200-\u22FF\u2190-\u21FF\u27C0-\u27EF\u2A00-\u2AFF]/u;
/** Connectors and math signs only. */
const CONNECTOR_OR_SIGN =
  /^[\s\d()[\]{}=+<>|/:;,.!'′\p{Script=Greek}\u2200-\u22FF\u2190-\u21FF\u27C0-\u27EF\u2A00-\u2AFF]+$/u;
/**
 * Connectors with operator names among them (`100[log(`, `) − log(`, ` = arctan(`), each name
 * apart from any word: text a formula's glyphs are set between.
 */
const CONNECTOR_WITH_NAMES =
  /^(?:[\s\d()[\]{}=+<>|/:;,.!'′−×·∗∼≤≥≠≈±∓%]|(?<!\p{L})(?:log|ln|exp|sin|cos|tan|arcsin|arccos|arctan|sinh|cosh|tanh)(?!\p{L}))+$/u;

/** Operator names set upright between a formula's glyphs. */
const FUNCTION_NAME = /^\s*(?:log|ln|exp|sin|cos|tan|max|min|sup|inf|lim|arg|det|tr|diag)\s*$/;
/**
 * A text run's start that belongs to a formula before it: `) `, `) = `, the number before a
 * percent sign (`−` `20% of`), not `-stable` or `1st`.
 */
const LEADING = /^[\d()[\]{}=+<>|/:;,.!]*(?:\s|$|(?=%))/;
/**
 * A text run's end that belongs to a formula after it: ` (`, ` = `, an operator name (` log `),
 * not `Fig(`.
 */
const TRAILING = /(?:^|\s)(?:[(=+<>[{|]+|(?:log|ln|exp|sin|cos|tan|max|min|lim|det|arg))\s*$/;

/** A number ending a text run, touching what follows it. */
const NUMBER_END = /(?<![\p{L}\d.,])\d+$/u;
/** A number ending a text run, before the space around a binary operator or a relation. */
const NUMBER_BEFORE_OPERATOR = /(?<![\p{L}\d.,])[([]?\d+(?:\.\d+)?\s?$/u;
/** LaTeX opening with a binary operator or a relation (`-`, `\times`, `\sim`). */
const OPERATOR_LATEX =
  /^\s*(?:[-+=<>]|\\(?:times|pm|mp|cdot|sim|simeq|approx|propto|leq?|geq?|ll|gg|lesssim|gtrsim)(?![A-Za-z]))/;

/** A run cut at `at` characters, its width shared by characters. */
const cut = (run: TextRun, from: number, to: number): TextRun => {
  const length = run.text.length || 1;
  return {
    ...run,
    text: run.text.slice(from, to),
    x: run.x + (run.w * from) / length,
    w: (run.w * (to - from)) / length,
  };
};

/** A run cut into pieces around each match of `pattern` (global), the matches pieces of their own. */
const cutAround = (run: TextRun, pattern: RegExp): TextRun[] => {
  const out: TextRun[] = [];
  let from = 0;
  for (const m of run.text.matchAll(pattern)) {
    if (m.index > from) out.push(cut(run, from, m.index));
    out.push(cut(run, m.index, m.index + m[0].length));
    from = m.index + m[0].length;
  }
  if (from < run.text.length) out.push(cut(run, from, run.text.length));
  return out;
};

/**
 * A run of TeX's text font cut around the upright Greek capitals it sets among words
 * (`Σ) with covariance Σ.`: TeX sets `\Sigma` in CMR, and a reader gives it in one run with
 * the text after it), so that each is a run of its own ({@link isMathRun}).
 */
const cutGreek = (run: TextRun): TextRun[] =>
  run.confidence !== undefined || !TEX_GREEK.test(run.text) || !texTextFont(run.fontName)
    ? [run]
    : cutAround(run, TEX_GREEK_ALL);

type Role = 'math' | 'connector' | 'script' | 'name' | 'text';

/** A comma and the word space after it. */
const TEXT_COMMA = /^,\s+$/;
const TEXT_COMMAS = /,\s+/g;

/**
 * A run of TeX's roman font cut around the commas followed by a word space it sets: TeX sets a
 * formula's own commas in its math italic font (`$(0,1)$`; its semicolons are roman), so a
 * roman one with a space after it is the sentence's, between two formulas
 * (`$a=0.001$, $c=0.30$`) or after one.
 */
const cutTextCommas = (run: TextRun): TextRun[] =>
  !/,\s/.test(run.text) || texFamily(run.fontName) !== 'roman'
    ? [run]
    : cutAround(run, TEXT_COMMAS);

/**
 * Whether `runs[i]` is a script of a formula's glyph (the run before it a math run on the line's
 * baseline) that `next` touches: what `next` opens with is still the formula's (`Y` `5`
 * `00 from`, TeX's `$Y_500$`). Not the second piece of a script (`cm` `−` `3`).
 */
const scriptOfFormula = (
  runs: readonly TextRun[],
  i: number,
  line: LineMetrics,
  scriptOf: (run: TextRun, line: LineMetrics) => Script,
  next: TextRun,
): boolean => {
  const script = runs[i];
  const base = runs[i - 1];
  if (!script || !base || !isMathRun(base) || scriptOf(base, line) !== '') return false;
  if (scriptOf(script, line) === '') return false;
  return next.x - (script.x + script.w) < 0.1 * line.size;
};

/**
 * Whether `run` ends with a single Latin letter that `script` (a subscript or superscript)
 * touches: the letter is the script's base, as in TeX's `\rm M_\odot` (the sun's symbol hangs
 * on a roman M) or `Z_\odot`.
 */
const baseOfScript = (
  run: TextRun,
  script: TextRun,
  line: LineMetrics,
  scriptOf: (run: TextRun, line: LineMetrics) => Script,
): boolean =>
  /(?:^|\s)[A-Za-z]$/.test(run.text) &&
  scriptOf(run, line) === '' &&
  scriptOf(script, line) !== '' &&
  script.x - (run.x + run.w) < 0.1 * line.size;

/** Short words of prose, never a unit after a number (`10 of`, `3 in the`). */
const PROSE_WORDS = new Set(
  (
    'a an the of in on at to by for and or nor but not so as is are was be it its we our if ' +
    'all any one two few per via vs'
  ).split(' '),
);

/** A word that may be a unit: one to three Latin letters (`erg`, `km`, `s`, `M`), not prose. */
const isUnitWord = (word: string): boolean =>
  /^[A-Za-z]{1,3}$/.test(word) && !PROSE_WORDS.has(word.toLowerCase());

/**
 * A number ending a text run, and the unit words after it (`should be 100–1000 `, `of 3 cm`):
 * group 1 the number, group 2 the words.
 */
const NUMBER_AND_WORDS =
  /(?<![\p{L}\d.,])(\d+(?:\.\d+)?(?:\s?[–−-]\s?\d+(?:\.\d+)?)?)((?:\s+[A-Za-z]{1,3})*)\s*$/u;

/**
 * The LaTeX of a unit's script, or of a piece of one: signs and digits (`-1`, `2`) or the sun's or
 * the Earth's symbol (`\odot`, `\oplus`); not a footnote mark (`*`, `\dagger`, `a`).
 */
const UNIT_SCRIPT = /^(?:[-+\d.\s]|\\odot|\\oplus)+$/;

/** What a piece of a unit is: a base of unit words, or a script carried by the last word. */
type UnitPiece = 'word' | 'sup' | 'sub';

/**
 * Units set after a quantity, taken into its formula: a formula ending in a digit (`10^{40}`,
 * `0.02`) or a number ending a text run (`100–1000`), followed on the line by up to four short
 * words of an upright text font (`erg`, `km`, `M`) of which one carries a script set in a math
 * font (`s^{-1}`, `M_\odot`: TeX sets the minus and the sun in CMSY). The stretch ends with the
 * last script; a word of prose or a word of more than three letters ends it earlier. Each such
 * stretch, and the number before it, is marked in `inFormula` (a number ending a text run is cut
 * off as a piece of its own) and its pieces in the map returned, as words or scripts.
 */
const unitsAfterQuantities = (
  pieces: TextRun[],
  roles: Role[],
  inFormula: boolean[],
  line: LineMetrics,
  scriptOf: (run: TextRun, line: LineMetrics) => Script,
): Map<TextRun, UnitPiece> => {
  const units = new Map<TextRun, UnitPiece>();
  const touches = (a: TextRun, b: TextRun): boolean => b.x - (a.x + a.w) < 0.15 * line.size;
  /**
   * The unit pieces from `from` on, after `before` (a text run ending in unit words, or none),
   * and the index of the last one; undefined when no word carries a script in a math font.
   */
  const stretch = (
    from: number,
    before: TextRun | undefined,
    words: number,
  ): { end: number; kinds: UnitPiece[] } | undefined => {
    let prev = before;
    let count = words;
    let math = false;
    let end = -1;
    const kinds: UnitPiece[] = [];
    for (let j = from; j < pieces.length; j++) {
      const piece = pieces[j];
      if (!piece) break;
      const text = piece.text.trim();
      if (text === '') {
        kinds.push('word');
        continue;
      }
      const script = scriptOf(piece, line);
      if (script !== '') {
        if (
          !prev ||
          !touches(prev, piece) ||
          !UNIT_SCRIPT.test(textLatex(text, piece.fontName).latex)
        ) {
          break;
        }
        math ||= isMathRun(piece);
        kinds.push(script);
        end = j;
        prev = piece;
        continue;
      }
      const role = roles[j];
      const base =
        (role === 'text' || role === 'name') &&
        !isMathRun(piece) &&
        isUprightTextFont(piece.fontName) &&
        text.split(/\s+/).every(isUnitWord);
      count += text.split(/\s+/).length;
      if (!base || count > 4) break;
      kinds.push('word');
      prev = piece;
    }
    return math && end >= from ? { end, kinds: kinds.slice(0, end - from + 1) } : undefined;
  };
  const found: {
    at: number;
    end: number;
    kinds: UnitPiece[];
    tail?: { number: number; words: number };
  }[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    if (!piece) continue;
    let unit: ReturnType<typeof stretch>;
    let tail: { number: number; words: number } | undefined;
    // A number on the line or an exponent's (`10^{40}`), not an index (`v_{200}`).
    if (inFormula[i] && /\d$/.test(piece.text.trim()) && scriptOf(piece, line) !== 'sub') {
      unit = stretch(i + 1, undefined, 0);
    } else if (
      roles[i] === 'text' &&
      !inFormula[i] &&
      isUprightTextFont(piece.fontName) &&
      !isMathRun(piece)
    ) {
      const m = NUMBER_AND_WORDS.exec(piece.text);
      const words = m?.[2]?.trim() ?? '';
      if (m && words.split(/\s+/).every((w) => w === '' || isUnitWord(w))) {
        const count = words === '' ? 0 : words.split(/\s+/).length;
        unit = stretch(i + 1, count > 0 ? piece : undefined, count);
        tail = { number: m.index, words: m.index + (m[1]?.length ?? 0) };
      }
    }
    if (!unit) continue;
    found.push({ at: i, end: unit.end, kinds: unit.kinds, tail });
    i = unit.end;
  }
  for (const { at, end, kinds, tail } of found.reverse()) {
    for (let k = at + 1; k <= end; k++) {
      const piece = pieces[k];
      const kind = kinds[k - at - 1];
      if (piece && kind) units.set(piece, kind);
      inFormula[k] = true;
    }
    const piece = pieces[at];
    if (!tail || !piece) continue;
    // The number (and the unit words after it) cut off the text before them.
    const split: [TextRun, Role, boolean][] = [];
    if (tail.number > 0) split.push([cut(piece, 0, tail.number), 'text', false]);
    split.push([cut(piece, tail.number, tail.words), 'connector', true]);
    if (piece.text.slice(tail.words).trim() !== '') {
      const words = cut(piece, tail.words, piece.text.length);
      units.set(words, 'word');
      split.push([words, 'text', true]);
    }
    pieces.splice(at, 1, ...split.map(([p]) => p));
    roles.splice(at, 1, ...split.map(([, r]) => r));
    inFormula.splice(at, 1, ...split.map(([, , f]) => f));
  }
  return units;
};

/** The base of a power of ten ending a run, apart from any word or number. */
const POWER_BASE = /(?<![\p{L}\d.,])10$/u;
/** An exponent of ten: an integer, its sign in the same font. */
const POWER_EXPONENT = /^\s*[-−+]?\d{1,3}\s*$/u;

/**
 * Whether `base` ends with `10` on the line's baseline and `exponent`, a superscript of digits,
 * touches it: a power of ten (`$10^6$`), whose digits TeX sets in roman fonts, so that no glyph
 * of it is a math font's.
 */
const powerOfTen = (
  base: TextRun | undefined,
  exponent: TextRun | undefined,
  line: LineMetrics,
  scriptOf: (run: TextRun, line: LineMetrics) => Script,
): boolean =>
  base !== undefined &&
  exponent !== undefined &&
  POWER_BASE.test(base.text) &&
  POWER_EXPONENT.test(exponent.text) &&
  scriptOf(base, line) === '' &&
  scriptOf(exponent, line) === 'sup' &&
  exponent.x - (base.x + base.w) < 0.1 * line.size;

/** Where an ordinary atom may end or start: a letter, a digit, a closing bracket or a prime. */
const ORDINARY_END = /[\p{L}\p{N})\]}′']\s+$/u;
const ORDINARY_START = /^[\p{L}\p{N}]/u;

/**
 * Whether a word space parts two formulas set one after the other (`$L_X-M_{200}$ $L_X-SFR$`):
 * `prev` ends with a space the reader found and an ordinary glyph (a letter, a digit, a closing
 * bracket), `next` is a math run on the line's baseline starting with a letter or a digit, and
 * the gap is over 0.3 em. TeX sets no space between two ordinary atoms, a thin one after an
 * operator name and a thick one (5/18 em) at most around a relation, which the glyph on either
 * side then shows.
 */
const wordSpaceBetween = (
  prev: TextRun | undefined,
  next: TextRun | undefined,
  line: LineMetrics,
  scriptOf: (run: TextRun, line: LineMetrics) => Script,
): boolean =>
  prev !== undefined &&
  next !== undefined &&
  ORDINARY_END.test(prev.text) &&
  ORDINARY_START.test(next.text) &&
  isMathRun(next) &&
  scriptOf(next, line) === '' &&
  next.x - (prev.x + prev.w) > 0.3 * line.size;

/**
 * The parts of a line of running text: formulas (runs in math fonts or of math-only code points,
 * with the digits, brackets, operators and scripts among and around them) read as LaTeX with
 * {@link lineLatex}, and text. A formula KaTeX does not parse stays text and counts in
 * `tally.failed`; one that is kept adds its box and LaTeX to `tally.inline`. Sentence
 * punctuation closing a formula (`,` `.` `;` `:`) is left to the text after it.
 *
 * @param lineRuns the line's runs left to right.
 * @param scriptOf whether a run is a superscript or a subscript of the line.
 * @returns null when the line holds no formula (the line is read as before).
 */
export const lineParts = (
  lineRuns: readonly TextRun[],
  line: LineMetrics,
  scriptOf: (run: TextRun, line: LineMetrics) => Script,
  tally?: MathTally,
): LinePart[] | null => {
  const runs = lineRuns.flatMap(cutGreek);
  if (!runs.some((r, i) => isMathRun(r) || powerOfTen(r, runs[i + 1], line, scriptOf))) {
    return null;
  }
  // Text runs next to a formula give it their leading and trailing connectors.
  const pieces: TextRun[] = [];
  runs.forEach((run, i) => {
    if (
      isMathRun(run) ||
      CONNECTOR.test(run.text) ||
      MATH_SIGN.test(run.text) ||
      CONNECTOR_WITH_NAMES.test(run.text)
    ) {
      pieces.push(run);
      return;
    }
    const before = runs[i - 1];
    const after = runs[i + 1];
    // After a name in sans serif too (`\mathsf{Exp}(1)`): it is the formula's when it touches one.
    const lead =
      before &&
      (isMathRun(before) ||
        scriptOfFormula(runs, i - 1, line, scriptOf, run) ||
        isSansName(before.fontName, before.text.trim()))
        ? (LEADING.exec(run.text)?.[0].length ?? 0)
        : 0;
    // A number whose decimal point or exponent is set in a math font is one with it (`0` `.5`).
    // So is a number before a binary operator or a relation in a math font (`30` `−100`), and
    // one touching a letter of a math font, its coefficient (`1` `σ`: TeX sets `$1\sigma$`'s
    // digit in roman, and a reader gives it in one run with the words before it).
    const number =
      after &&
      (/^[.,]\d?$/.test(after.text.trim()) || scriptOf(after, line) === 'sup') &&
      (isMathRun(after) || scriptOf(after, line) === 'sup')
        ? NUMBER_END.exec(run.text.slice(lead))
        : after &&
            isMathRun(after) &&
            scriptOf(after, line) === '' &&
            OPERATOR_LATEX.test(textLatex(after.text, after.fontName).latex)
          ? NUMBER_BEFORE_OPERATOR.exec(run.text.slice(lead))
          : after &&
              isMathRun(after) &&
              scriptOf(after, line) === '' &&
              scriptOf(run, line) === '' &&
              /^\p{L}/u.test(after.text) &&
              after.x - (run.x + run.w) < 0.1 * line.size
            ? NUMBER_END.exec(run.text.slice(lead))
            : null;
    const trail =
      number?.[0].length ??
      (after && isMathRun(after)
        ? baseOfScript(run, after, line, scriptOf)
          ? 1
          : (TRAILING.exec(run.text.slice(lead))?.[0].length ?? 0)
        : 0);
    const end = run.text.length - trail;
    if (lead > 0 && lead < run.text.length) pieces.push(cut(run, 0, lead));
    if (end > lead) pieces.push(lead > 0 || trail > 0 ? cut(run, lead, end) : run);
    if (trail > 0 && end < run.text.length) pieces.push(cut(run, end, run.text.length));
  });
  pieces.splice(0, pieces.length, ...pieces.flatMap(cutTextCommas));
  const roles: Role[] = pieces.map((p, i) => {
    if (p.text.trim() === '') return 'connector';
    if (TEXT_COMMA.test(p.text) && texFamily(p.fontName) === 'roman') return 'text';
    if (isMathRun(p)) return 'math';
    if (scriptOf(p, line) !== '') return 'script';
    if (MATH_SIGN_IN.test(p.text) && !WORD.test(p.text) && CONNECTOR_OR_SIGN.test(p.text)) {
      return 'math';
    }
    if (CONNECTOR.test(p.text) || FUNCTION_NAME.test(p.text)) return 'connector';
    if (CONNECTOR_WITH_NAMES.test(p.text)) return 'connector';
    // A word space the reader gives after the name (`EI ` `>`) does not make it prose.
    if (/^\S+\s?$/.test(p.text) && isSansName(p.fontName, p.text.trim())) return 'name';
    // A letter of TeX's bold text font is a bold symbol (`\mathbf{I}`) when it touches a formula.
    if (/^[A-Za-z]$/.test(p.text) && texFamily(p.fontName) === 'bold') return 'name';
    // A letter carrying a script in a math font is its base (`\rm M_\odot`, `Z_\odot`).
    const next = pieces[i + 1];
    if (next && isMathRun(next) && baseOfScript(p, next, line, scriptOf)) return 'name';
    return 'text';
  });
  const inFormula = roles.map((r) => r === 'math');
  // A power of ten is a formula, though set in roman fonts (`10` `6`).
  const powers = new Set<TextRun>();
  for (let i = 0; i + 1 < pieces.length; i++) {
    const [base, exponent] = [pieces[i], pieces[i + 1]];
    if (!base || !exponent || !powerOfTen(base, exponent, line, scriptOf)) continue;
    inFormula[i] = true;
    inFormula[i + 1] = true;
    powers.add(base);
  }
  // Scripts hang on the formula before them; connectors join formulas on either side of them;
  // a name in sans serif or a bold letter is one with the formula it touches
  // (`\\mathsf{EI}(\\theta)`, `0.01\\mathbf{I}_{p}`).
  for (let i = 0; i < pieces.length; i++) {
    if (roles[i] === 'script' && (inFormula[i - 1] || inFormula[i + 1])) inFormula[i] = true;
  }
  for (let i = 0; i < pieces.length; i++) {
    if (roles[i] !== 'name') continue;
    const piece = pieces[i];
    const touches = (other: TextRun | undefined): boolean =>
      piece !== undefined &&
      other !== undefined &&
      Math.max(other.x - (piece.x + piece.w), piece.x - (other.x + other.w)) <
        0.15 * piece.fontSize;
    if (
      (inFormula[i + 1] && touches(pieces[i + 1])) ||
      (inFormula[i - 1] && touches(pieces[i - 1]))
    ) {
      inFormula[i] = true;
    }
  }
  for (let i = 0; i < pieces.length; i++) {
    if (inFormula[i] || roles[i] === 'text') continue;
    let j = i;
    while (j < pieces.length && !inFormula[j] && roles[j] !== 'text') j++;
    // A stretch of connectors and scripts (`) = 2`, `(`) between or next to formulas.
    const left = inFormula[i - 1] === true;
    const right = inFormula[j] === true;
    if (left || right) for (let k = i; k < j; k++) inFormula[k] = true;
    i = j - 1;
  }
  const units = unitsAfterQuantities(pieces, roles, inFormula, line, scriptOf);
  const parts: LinePart[] = [];
  let k = 0;
  while (k < pieces.length) {
    const formula = inFormula[k] === true;
    const group: TextRun[] = [];
    for (; k < pieces.length && (inFormula[k] === true) === formula; k++) {
      const piece = pieces[k];
      if (formula && wordSpaceBetween(group.at(-1), piece, line, scriptOf)) break;
      if (piece) group.push(piece);
    }
    if (!formula) {
      parts.push({ runs: group });
      continue;
    }
    // Scripts alone (the exponent of a unit set in text, `s` `−1`) are a script of the text.
    const glyphs = group.filter((r) => r.text.trim() !== '');
    const scripts = new Set(glyphs.map((r) => scriptOf(r, line)));
    const script = scripts.size === 1 && !scripts.has('') ? [...scripts][0] : undefined;
    parts.push(
      ...formulaParts(
        group,
        tally,
        script === 'sup' ? '^' : script === 'sub' ? '_' : '',
        units,
        powers,
      ),
    );
  }
  return parts;
};

/**
 * Whether LaTeX opens with `(` whose matching `)` closes it, with more than a number between
 * them (`(M_{\text{gas}})`, not `(1)` or `(a)(b)`).
 */
const wrappedInParentheses = (latex: string): boolean => {
  if (!latex.startsWith('(') || !latex.endsWith(')') || /^\(\d*\)$/.test(latex)) return false;
  let depth = 0;
  for (let i = 0; i < latex.length; i++) {
    const c = latex[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    if (depth === 0) return i === latex.length - 1;
  }
  return false;
};

/**
 * How many closing parentheses ending LaTeX have no opening one in it (`a_{1})` has one, `(a)`
 * none).
 */
const unopenedParentheses = (latex: string): number => {
  let depth = 0;
  let lowest = 0;
  for (const c of latex) {
    if (c === '(') depth++;
    else if (c === ')') lowest = Math.min(lowest, --depth);
  }
  const trailing = /\)*$/.exec(latex)?.[0].length ?? 0;
  return Math.min(trailing, depth < 0 ? -depth : 0, -lowest);
};

/** How many opening parentheses starting LaTeX have no closing one in it (`(a_{1}` has one). */
const unclosedParentheses = (latex: string): number => {
  const open: number[] = [];
  const closed = new Set<number>();
  for (let i = 0; i < latex.length; i++) {
    if (latex[i] === '(') open.push(i);
    else if (latex[i] === ')') {
      const at = open.pop();
      if (at !== undefined) closed.add(at);
    }
  }
  let n = 0;
  while (latex[n] === '(' && !closed.has(n)) n++;
  return n;
};

/**
 * The LaTeX of a unit's pieces ({@link unitsAfterQuantities}), for `\mathrm{…}`: its words a
 * space apart, each with the scripts it carries (`erg\ s^{-1}`, `M_{\odot}\ yr^{-1}`).
 */
const unitLatex = (runs: readonly TextRun[], units: ReadonlyMap<TextRun, UnitPiece>): string => {
  const words: { word: string; sub: TextRun[]; sup: TextRun[] }[] = [];
  for (const run of runs) {
    const kind = units.get(run);
    if (kind === 'word') {
      for (const word of run.text.split(/\s+/).filter(Boolean))
        words.push({ word, sub: [], sup: [] });
    } else if (kind) words.at(-1)?.[kind].push(run);
  }
  const script = (mark: string, parts: readonly TextRun[]): string =>
    parts.length === 0 ? '' : `${mark}{${compactLatex(inlineLatex(glyphsOf(parts)).latex)}}`;
  return words.map((w) => w.word + script('_', w.sub) + script('^', w.sup)).join('\\ ');
};

/**
 * The LaTeX of a formula's runs: {@link inlineLatex}, compacted; units after a quantity as one
 * `\mathrm{…}` a word space after it (`5\times 10^{-4}\ \mathrm{cm^{-3}}`), as authors write them.
 */
const groupLatex = (group: readonly TextRun[], units: ReadonlyMap<TextRun, UnitPiece>): string => {
  const stretches: { unit: boolean; runs: TextRun[] }[] = [];
  for (const run of group) {
    const unit = units.has(run);
    const last = stretches.at(-1);
    if (last?.unit === unit) last.runs.push(run);
    else stretches.push({ unit, runs: [run] });
  }
  let out = '';
  for (const { unit, runs } of stretches) {
    if (!unit) out += compactLatex(inlineLatex(glyphsOf(runs)).latex);
    else {
      const latex = unitLatex(runs, units);
      if (latex !== '') out += `${out === '' ? '' : '\\ '}\\mathrm{${latex}}`;
    }
  }
  return out;
};

/** Sentence punctuation closing a formula's LaTeX (not `\,` or `\;`). */
const CLOSING_PUNCTUATION = /(?<!\\)[,.;:]+$/;

/**
 * The parts of a formula's runs: the formula and, after it, its closing punctuation as text; the
 * runs as text when they are only punctuation and digits (but for a script: `^{2}` after a unit
 * set in text), or when KaTeX does not parse the LaTeX. `script` marks runs that are all a
 * superscript (`^`) or a subscript (`_`) of the text before them; `powers` holds the bases of
 * powers of ten set in roman fonts, each a formula with its exponent.
 */
const formulaParts = (
  group: TextRun[],
  tally: MathTally | undefined,
  script: '^' | '_' | '',
  units: ReadonlyMap<TextRun, UnitPiece> = new Map(),
  powers: ReadonlySet<TextRun> = new Set(),
): LinePart[] => {
  // Connectors that open or close the group without a formula glyph (or a power of ten's base)
  // inside are text.
  if (
    !group.some(isMathRun) &&
    !group.some((r) => MATH_SIGN.test(r.text)) &&
    !group.some((r) => powers.has(r))
  ) {
    return [{ runs: group }];
  }
  const full = groupLatex(group, units);
  const punctuation = CLOSING_PUNCTUATION.exec(full)?.[0] ?? '';
  let body = full.slice(0, full.length - punctuation.length);
  // Parentheses around the whole formula are the sentence's, as authors write them: `($x$)`.
  const wrapped = script === '' && wrappedInParentheses(body);
  if (wrapped) body = body.slice(1, -1);
  // So is a closing one the formula does not open (`(` `0.05r_{200}<r<0.15r_{200}` `)`), and an
  // opening one it does not close (`(M_{\star}=(3-4)\times10^{11}` `M⊙)`).
  const unopened = wrapped ? 0 : unopenedParentheses(body);
  body = body.slice(0, body.length - unopened);
  const unclosed = wrapped ? 0 : unclosedParentheses(body);
  body = body.slice(unclosed);
  const opening = wrapped ? '(' : '('.repeat(unclosed);
  const closing = `${wrapped ? ')' : ')'.repeat(unopened)}${punctuation}`;
  if (body === '' || (script === '' && /^[\d\s]*$/.test(body))) return [{ runs: group }];
  const latex = script === '' ? body : `${script}{${body}}`;
  if (!katexParses(latex)) {
    if (tally) tally.failed++;
    return [{ runs: group }];
  }
  const first = group[0];
  const last = group[group.length - 1];
  if (!first || !last) return [];
  const spaced = /\s$/.test(last.text);
  const plain = { fontName: '', bold: false, italic: false };
  const parts: LinePart[] = [];
  // An opening parenthesis left out of the formula is text where its glyphs start, with the space
  // before it.
  const lead = opening !== '' ? (/^\s*/.exec(first.text)?.[0] ?? '') : '';
  if (opening !== '') {
    parts.push({ runs: [{ ...first, ...plain, text: `${lead}${opening}`, w: 0 }] });
  }
  const runs =
    lead === '' ? group : [{ ...first, text: first.text.slice(lead.length) }, ...group.slice(1)];
  parts.push({ runs, latex, spaceAfter: spaced && closing === '' });
  if (tally) {
    tally.inline.push({
      latex,
      x0: Math.min(...group.map((r) => r.x)),
      y0: Math.min(...group.map((r) => r.y)),
      x1: Math.max(...group.map((r) => r.x + r.w)),
      y1: Math.max(...group.map((r) => r.y + r.h)),
    });
  }
  if (closing !== '') {
    const text = spaced ? `${closing} ` : closing;
    // After the formula's rightmost glyph (a subscript may end past the superscript after it).
    const end = Math.max(...group.map((r) => r.x + r.w));
    parts.push({ runs: [{ ...last, ...plain, text, x: end, w: 0 }] });
  }
  return parts;
};
