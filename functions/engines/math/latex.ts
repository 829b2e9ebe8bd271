import type { Segment, TextRun } from '../layout/types.js';
import { fontStyle } from '../pdf/font-style.js';
import { isGarbage } from '../pdf/page-geometry.js';
import {
  omx,
  OT1_ACCENTS,
  texFamily,
  omxCode,
  texGlyph,
  UNICODE_PIECES,
  type ExtensionGlyph,
  type TexFamily,
} from './tex-fonts.js';
import { visibleLength } from '../layout/white-space.js';

/**
 * From the glyphs of an equation to LaTeX: Unicode math characters to commands, superscripts and
 * subscripts from baseline shift and size, fractions from their bars, radicals from their
 * vinculum, limits of big operators from what is stacked over and under them. Geometry is in
 * pixels of the page image, origin top-left (y grows downwards).
 */

/**
 * Math fonts beyond {@link fontStyle}'s (TeX math italic and symbols, Symbol, *Math): the STIX
 * and XITS families, TeX Gyre and Latin Modern math fonts, Euclid and MT Extra.
 */
const MORE_MATH_FONTS =
  /(?:^|\+)(?:stix|xits|asana|euclid|mt ?extra|cmbsy|cmmib|lmmi|lmsy|lmex|eusm|eufb|msbm|msam)/i;

/** True for a font that sets mathematics (its letters are variables, its symbols operators). */
export const isMathFont = (name: string): boolean =>
  fontStyle(name).math || MORE_MATH_FONTS.test(name);

/** A run of an equation, or a part already read as LaTeX (a fraction, a radical, limits). */
export type MathRun = TextRun & { latex?: string };

/** LaTeX of the characters that need a command (or an escape) in math mode. */
const GLYPHS: Readonly<Record<string, string>> = {
  // Greek lower case (ϵ, ϑ, ϕ, ϖ, ϱ, ς are the variant forms).
  α: '\\alpha',
  β: '\\beta',
  γ: '\\gamma',
  δ: '\\delta',
  ε: '\\varepsilon',
  ϵ: '\\epsilon',
  ζ: '\\zeta',
  η: '\\eta',
  θ: '\\theta',
  ϑ: '\\vartheta',
  ι: '\\iota',
  κ: '\\kappa',
  λ: '\\lambda',
  μ: '\\mu',
  µ: '\\mu',
  ν: '\\nu',
  ξ: '\\xi',
  ο: 'o',
  π: '\\pi',
  ϖ: '\\varpi',
  ρ: '\\rho',
  ϱ: '\\varrho',
  σ: '\\sigma',
  ς: '\\varsigma',
  τ: '\\tau',
  υ: '\\upsilon',
  φ: '\\varphi',
  ϕ: '\\phi',
  χ: '\\chi',
  ψ: '\\psi',
  ω: '\\omega',
  // Greek upper case that differ from Latin letters.
  Γ: '\\Gamma',
  Δ: '\\Delta',
  // The increment sign: what a reader gives for CMR's upright Delta (glyph name `Delta`).
  '\u2206': '\\Delta',
  Θ: '\\Theta',
  Λ: '\\Lambda',
  Ξ: '\\Xi',
  Π: '\\Pi',
  Σ: '\\Sigma',
  Υ: '\\Upsilon',
  Φ: '\\Phi',
  Ψ: '\\Psi',
  Ω: '\\Omega',
  '\u2126': '\\Omega',
  // Binary operators.
  '−': '-',
  '–': '-',
  '∓': '\\mp',
  '±': '\\pm',
  '×': '\\times',
  '÷': '\\div',
  '·': '\\cdot',
  '⋅': '\\cdot',
  '∗': '\\ast',
  '∘': '\\circ',
  '•': '\\bullet',
  '⊕': '\\oplus',
  '⊖': '\\ominus',
  '⊗': '\\otimes',
  '⊘': '\\oslash',
  '⊙': '\\odot',
  '◯': '\\bigcirc',
  '⋄': '\\diamond',
  '∪': '\\cup',
  '∩': '\\cap',
  '∧': '\\wedge',
  '∨': '\\vee',
  '∖': '\\setminus',
  // Relations and arrows.
  '≤': '\\leq',
  '⩽': '\\leq',
  '≥': '\\geq',
  '⩾': '\\geq',
  '≠': '\\neq',
  '≈': '\\approx',
  '≡': '\\equiv',
  '∼': '\\sim',
  '≃': '\\simeq',
  '≅': '\\cong',
  '∝': '\\propto',
  '≪': '\\ll',
  '≫': '\\gg',
  '≺': '\\prec',
  '≻': '\\succ',
  '⪯': '\\preceq',
  '⪰': '\\succeq',
  '≍': '\\asymp',
  '⊂': '\\subset',
  '⊆': '\\subseteq',
  '⊃': '\\supset',
  '⊇': '\\supseteq',
  '∈': '\\in',
  '∉': '\\notin',
  '∋': '\\ni',
  '∣': '\\mid',
  '∥': '\\parallel',
  '⊥': '\\perp',
  '→': '\\to',
  '←': '\\leftarrow',
  '↔': '\\leftrightarrow',
  '⇒': '\\Rightarrow',
  '⇐': '\\Leftarrow',
  '⇔': '\\Leftrightarrow',
  '↦': '\\mapsto',
  '⟶': '\\longrightarrow',
  '≔': ':=',
  // A radical without its vinculum read applies to the next symbol (see equationLatex).
  '√': '\\sqrt',
  '∛': '\\sqrt[3]',
  // Big operators.
  '∑': '\\sum',
  '∏': '\\prod',
  '∐': '\\coprod',
  '∫': '\\int',
  '∬': '\\iint',
  '∭': '\\iiint',
  '∮': '\\oint',
  '⋃': '\\bigcup',
  '⋂': '\\bigcap',
  '⨁': '\\bigoplus',
  '⨂': '\\bigotimes',
  // Symbols.
  '∞': '\\infty',
  '∂': '\\partial',
  '∇': '\\nabla',
  '∀': '\\forall',
  '∃': '\\exists',
  '∄': '\\nexists',
  '∅': '\\emptyset',
  '¬': '\\neg',
  ℓ: '\\ell',
  ℏ: '\\hbar',
  ℜ: '\\Re',
  ℑ: '\\Im',
  ℵ: '\\aleph',
  '℘': '\\wp',
  '′': "'",
  '″': "''",
  '…': '\\ldots',
  '⋯': '\\cdots',
  '⋮': '\\vdots',
  '⋱': '\\ddots',
  '°': '^{\\circ}',
  '⟨': '\\langle',
  '⟩': '\\rangle',
  '〈': '\\langle',
  '〉': '\\rangle',
  '‖': '\\|',
  '⌊': '\\lfloor',
  '⌋': '\\rfloor',
  '⌈': '\\lceil',
  '⌉': '\\rceil',
  ℝ: '\\mathbb{R}',
  ℕ: '\\mathbb{N}',
  ℤ: '\\mathbb{Z}',
  ℚ: '\\mathbb{Q}',
  ℂ: '\\mathbb{C}',
  ℙ: '\\mathbb{P}',
  ℍ: '\\mathbb{H}',
  ℬ: '\\mathcal{B}',
  ℰ: '\\mathcal{E}',
  ℱ: '\\mathcal{F}',
  ℋ: '\\mathcal{H}',
  ℐ: '\\mathcal{I}',
  ℒ: '\\mathcal{L}',
  ℳ: '\\mathcal{M}',
  ℛ: '\\mathcal{R}',
  ℭ: '\\mathfrak{C}',
  ℌ: '\\mathfrak{H}',
  ℨ: '\\mathfrak{Z}',
  '⋆': '\\star',
  '≲': '\\lesssim',
  '≳': '\\gtrsim',
  '≜': '\\triangleq',
  '⊤': '\\top',
  ı: '\\imath',
  ȷ: '\\jmath',
  // Characters LaTeX reserves.
  '{': '\\{',
  '}': '\\}',
  '#': '\\#',
  '%': '\\%',
  '&': '\\&',
  $: '\\$',
  _: '\\_',
  '\\': '\\backslash',
  '~': '\\sim',
  '^': '\\wedge',
};

/** Characters that stand for themselves in math mode. */
const PLAIN = /^[A-Za-z0-9+\-=<>()[\]/|,.;:!?'*@"\s]$/;

/** Big operators whose limits may be stacked over and under them. */
const BIG_OPERATORS = new Set(['∑', '∏', '∐', '⋃', '⋂', '⨁', '⨂', '∫', '∬', '∭', '∮']);

/** Operator names set upright (`\sin x`), as whole words. */
const FUNCTION_NAMES =
  /(?<![A-Za-z\\])(arcsin|arccos|arctan|sinh|cosh|tanh|sin|cos|tan|cot|sec|csc|log|ln|lg|exp|lim|liminf|limsup|max|min|sup|inf|det|arg|dim|ker|gcd|deg|hom|Pr)(?![A-Za-z])/g;

/** A text starting with an operator name. */
const OPERATOR_NAME = new RegExp(`^${FUNCTION_NAMES.source}`);

/** Operator names whose limits a display stacks under them (`\max_{i}`, `\lim_{n\to\infty}`). */
const LIMIT_NAMES = /^(?:lim|liminf|limsup|max|min|sup|inf|det|gcd|Pr|arg\s*max|arg\s*min)$/;

/** Combining accents and the commands that set them. */
const ACCENTS: Readonly<Record<string, string>> = {
  '\u0300': '\\grave',
  '\u0301': '\\acute',
  '\u0302': '\\hat',
  '\u0303': '\\tilde',
  '\u0304': '\\bar',
  '\u0305': '\\bar',
  '\u0306': '\\breve',
  '\u0307': '\\dot',
  '\u0308': '\\ddot',
  '\u030c': '\\check',
  '\u20d7': '\\vec',
  '\u20d1': '\\vec',
};

/** Accents set as glyphs of their own over a base (spacing forms). */
const ACCENT_GLYPHS: Readonly<Record<string, string>> = {
  ˆ: '\\hat',
  '^': '\\hat',
  '˜': '\\tilde',
  '~': '\\tilde',
  '¯': '\\bar',
  ˉ: '\\bar',
  '˙': '\\dot',
  '¨': '\\ddot',
  ˇ: '\\check',
  '˘': '\\breve',
  '´': '\\acute',
  '`': '\\grave',
  '\u20d7': '\\vec',
};

/**
 * Mathematical Alphanumeric Symbols (U+1D400–U+1D7FF): the first code of each alphabet and the
 * command that sets it ('' for the italic alphabets, plain letters in math mode).
 */
const ALPHABETS: readonly (readonly [number, number, string])[] = [
  [0x1d400, 52, '\\mathbf'],
  [0x1d434, 52, ''],
  [0x1d468, 52, '\\bm'],
  [0x1d49c, 52, '\\mathcal'],
  [0x1d4d0, 52, '\\mathcal'],
  [0x1d504, 52, '\\mathfrak'],
  [0x1d538, 52, '\\mathbb'],
  [0x1d56c, 52, '\\mathfrak'],
  [0x1d5a0, 52, '\\mathsf'],
  [0x1d5d4, 52, '\\mathsf'],
  [0x1d608, 52, '\\mathsf'],
  [0x1d63c, 52, '\\mathsf'],
  [0x1d670, 52, '\\mathtt'],
  [0x1d6a8, 58, '\\bm'],
  [0x1d6e2, 58, ''],
  [0x1d71c, 58, '\\bm'],
  [0x1d756, 58, '\\bm'],
  [0x1d790, 58, '\\bm'],
  [0x1d7ce, 10, '\\mathbf'],
  [0x1d7d8, 10, '\\mathbb'],
  [0x1d7e2, 10, '\\mathsf'],
  [0x1d7ec, 10, '\\mathsf'],
  [0x1d7f6, 10, '\\mathtt'],
];

/** The alphabet command of a mathematical alphanumeric symbol, undefined outside the block. */
const alphabetOf = (code: number): string | undefined => {
  if (code < 0x1d400 || code > 0x1d7ff) return undefined;
  for (const [start, length, commandName] of ALPHABETS) {
    if (code >= start && code < start + length) return commandName;
  }
  return '';
};

/** A command ending in a letter needs a space before a following letter. */
const command = (latex: string): string => (/\\[A-Za-z]+$/.test(latex) ? `${latex} ` : latex);

/** LaTeX and what could not be read with certainty. */
export interface LatexResult {
  latex: string;
  /** One sentence per doubt (unmapped glyphs, unread layout), without duplicates. */
  notes: string[];
}

/** Fonts whose letters are upright text (roman words in math are `\text{…}`). */
const isTextFont = (fontName: string, family: TexFamily): boolean =>
  family === 'roman' ||
  (family === 'other' &&
    fontName !== '' &&
    !isMathFont(fontName) &&
    !fontStyle(fontName).italic &&
    !fontStyle(fontName).monospace);

/** What {@link textLatex} needs to know of a font. */
interface FontInfo {
  family: TexFamily;
  /** Letters are variables (a math italic font): no operator names read in them. */
  italic: boolean;
  /** Words are text (an upright text font). */
  words: boolean;
}

/** Font facts by name; a page has a few dozen fonts, so the map stays small. */
const FONT_INFO = new Map<string, FontInfo>();

const fontInfo = (fontName: string): FontInfo => {
  let info = FONT_INFO.get(fontName);
  if (!info) {
    const family = texFamily(fontName);
    info = {
      family,
      italic: /cmmi|lmmi|italic|-it\b/i.test(fontName),
      words: isTextFont(fontName, family),
    };
    if (FONT_INFO.size >= 1024) FONT_INFO.clear();
    FONT_INFO.set(fontName, info);
  }
  return info;
};

/** Whether a font sets upright text: TeX's roman fonts, other upright fonts that are not math. */
export const isUprightTextFont = (fontName: string): boolean => fontInfo(fontName).words;

/** The LaTeX of one character (without its accents) in a font of `family`. */
const charLatex = (ch: string, family: TexFamily, notes: string[]): string => {
  const tex = texGlyph(ch, family);
  if (tex !== undefined) return command(tex);
  const code = ch.codePointAt(0) ?? 0;
  const alphabet = alphabetOf(code);
  if (alphabet !== undefined) {
    const plain = ch.normalize('NFKC');
    const inner = GLYPHS[plain] ?? plain;
    return alphabet === '' ? command(inner) : `${alphabet}{${inner}}`;
  }
  const mapped = GLYPHS[ch];
  if (mapped !== undefined) return command(mapped);
  if (PLAIN.test(ch)) return ch;
  if (isGarbage(code)) {
    notes.push('a glyph without a Unicode mapping was read as \\square');
    return '\\square ';
  }
  notes.push(
    `the character "${ch}" (U+${code.toString(16).toUpperCase().padStart(4, '0')}) has no LaTeX mapping and was kept as it is`,
  );
  return ch;
};

/** A letter (with its combining marks), a word of letters, or any other character. */
const TOKEN = /(?:\p{L}\p{M}*)+|[\s\S]\p{M}*/gu;

/**
 * The LaTeX of a run's text in its font: operator names upright as commands (outside italic math
 * fonts, where `sin` may be three variables), other words of an upright text font as `\text{…}`
 * (a lone letter as `\textrm{…}`); the glyphs of TeX's math fonts by their encodings (`N` in CMSY
 * is `\mathcal{N}`, `0` a prime, `R` in MSBM `\mathbb{R}`, a raw code in CMEX its delimiter or
 * operator); mathematical alphanumeric symbols by their alphabet (𝔼 is `\mathbb{E}`, 𝑥 `x`);
 * other characters through {@link GLYPHS}; combining accents as `\hat{…}`, `\check{…}`...
 *
 * @example
 * textLatex('α ≤ 2π', 'CMMI10'); // { latex: '\\alpha \\leq 2\\pi ', notes: [] }
 */
export const textLatex = (text: string, fontName: string): LatexResult => {
  const notes: string[] = [];
  const { family, italic, words } = fontInfo(fontName);
  const bold = family === 'bold-letters';
  let out = '';
  let spaced = false;
  for (const [token] of text.normalize('NFD').matchAll(TOKEN)) {
    const letters = /^\p{L}/u.test(token) && !/[\u0300-\u036f\u20d0-\u20ff]/.test(token);
    if (letters && !italic && FUNCTION_NAMES.test(token)) {
      FUNCTION_NAMES.lastIndex = 0;
      // One operator name, or names run together (`logp` is two): each as its command.
      const rest = token.replace(FUNCTION_NAMES, '');
      FUNCTION_NAMES.lastIndex = 0;
      if (rest === '') {
        out += token.replace(FUNCTION_NAMES, '\\$1 ');
        FUNCTION_NAMES.lastIndex = 0;
        continue;
      }
    }
    FUNCTION_NAMES.lastIndex = 0;
    if (letters && words && /^[A-Za-z]+$/.test(token)) {
      // Words a space apart are one text (`\\text{O\\,VII}`), units after a number too
      // (`100\\,\\text{km\\,s}`); a lone small letter after a word is a variable (`for d`).
      const words = spaced ? /(?<=(\d\\,)?)\\text(?:rm)?\{([A-Za-z\\,]+)\}\s*$/.exec(out) : null;
      if (words && (words[1] !== undefined || !/^[a-z]$/.test(token))) {
        out = `${out.slice(0, words.index)}\\text{${words[2] ?? ''}\\,${token}}`;
      } else {
        if (spaced && /\d\s*$/.test(out)) out = `${out.trimEnd()}\\,`;
        out += token.length === 1 ? `\\textrm{${token}}` : `\\text{${token}}`;
      }
      spaced = false;
      continue;
    }
    spaced = /^\s+$/.test(token);
    for (const [grapheme] of token.matchAll(/[\s\S]\p{M}*/gu)) {
      const base = Array.from(grapheme)[0] ?? '';
      const marks = Array.from(grapheme).slice(1);
      let latex = charLatex(base.normalize('NFC'), family, notes);
      if (bold && /^(?:[A-Za-z]|\\[A-Za-z]+ ?)$/.test(latex)) latex = `\\bm{${latex.trim()}}`;
      for (const mark of marks) {
        const accent = ACCENTS[mark];
        if (accent) latex = `${accent}{${latex.trim()}}`;
      }
      out += latex;
    }
  }
  return { latex: out, notes };
};

/** A run, or a part already read as LaTeX, with what the equation reading knows of it. */
type Part = MathRun & {
  /** A part read as LaTeX that still sits on a baseline as a glyph does (an accented letter). */
  atom?: boolean;
  /** A glyph of a TeX extension font (CMEX), or a delimiter built from its pieces. */
  ext?: ExtensionGlyph;
};

/** A lone big operator glyph (∑, ∫...), set larger than the text around it. */
const isBigOperator = (run: Part): boolean =>
  (run.latex === undefined && BIG_OPERATORS.has(run.text.trim())) || run.ext?.kind === 'operator';

/** A glyph, or a part that sits on a baseline as one. */
const isGlyph = (run: Part): boolean => run.latex === undefined || run.atom === true;

/**
 * The main size of some runs: among glyphs of about the largest size (big operators and parts
 * already read aside), the size carrying the most characters. Scripts, however many characters
 * they have, are smaller than their base.
 */
const dominantSize = (input: readonly Part[]): number => {
  const glyphs = input.filter((r) => isGlyph(r) && !isBigOperator(r) && r.ext === undefined);
  const candidates = glyphs.length > 0 ? glyphs : input;
  const largest = Math.max(...candidates.map((r) => r.fontSize));
  const runs = candidates.filter((r) => r.fontSize >= 0.85 * largest);
  const weight = new Map<number, { size: number; chars: number }>();
  for (const run of runs) {
    const key = Math.round(run.fontSize * 4) / 4;
    const entry = weight.get(key) ?? { size: run.fontSize, chars: 0 };
    entry.chars += run.latex === undefined ? visibleLength(run.text) : 1;
    weight.set(key, entry);
  }
  let best = { size: runs[0]?.fontSize ?? 0, chars: -1 };
  for (const entry of weight.values()) {
    if (entry.chars > best.chars || (entry.chars === best.chars && entry.size > best.size)) {
      best = entry;
    }
  }
  return best.size;
};

type Position = 'base' | 'sup' | 'sub';

/**
 * The baseline of a line: the character-weighted median baseline of its runs of the main size
 * (parts already read as LaTeX only when there is nothing else).
 */
const lineBaseline = (runs: readonly Part[], size: number): number => {
  const glyphs = runs.filter((r) => isGlyph(r) && r.ext === undefined);
  const main = glyphs.filter((r) => Math.abs(r.fontSize - size) <= 0.1 * size);
  const pool = main.length > 0 ? main : glyphs.length > 0 ? glyphs : runs;
  const weighted = pool
    .map((r) => ({ baseline: r.baseline, weight: Math.max(1, visibleLength(r.text)) }))
    .sort((a, b) => a.baseline - b.baseline);
  const total = weighted.reduce((sum, w) => sum + w.weight, 0);
  let seen = 0;
  for (const w of weighted) {
    seen += w.weight;
    if (seen * 2 >= total) return w.baseline;
  }
  return pool[0]?.baseline ?? 0;
};

/**
 * Where a run sits against the line's baseline: raised and smaller (or raised by a third of an
 * em) is a superscript; lowered and smaller (or by a quarter of an em) a subscript. A part read
 * as LaTeX is a base, unless it is a fraction at scriptscript size (an exponent `^{\\frac{a}{b}}`).
 */
const positionOf = (run: Part, baseline: number, size: number): Position => {
  // Parts read as LaTeX stand on the line, but for a fraction set in a script.
  if ((!isGlyph(run) && run.fontSize >= 0.6 * size) || run.ext !== undefined) return 'base';
  const smaller = run.fontSize < 0.9 * size;
  const shift = (baseline - run.baseline) / size;
  if (shift > 0.15 && (smaller || shift > 0.3)) return 'sup';
  if (shift < -0.1 && (smaller || shift < -0.25)) return 'sub';
  return 'base';
};

/** Unbalanced `\left` / `\right` of one line closed with `\right.` / opened with `\left.`. */
const balanced = (latex: string): string => {
  const lefts = (latex.match(/\\left(?![A-Za-z])/g) ?? []).length;
  const rights = (latex.match(/\\right(?![A-Za-z])/g) ?? []).length;
  if (lefts > rights) return latex + '\\right.'.repeat(lefts - rights);
  if (rights > lefts) return '\\left.'.repeat(rights - lefts) + latex;
  return latex;
};

/** A word of an upright text font set as a glyph (a unit after a number: `10^{5}\\,\\textrm{K}`). */
const isUnit = (run: Part): boolean =>
  run.latex === undefined &&
  /^\p{L}/u.test(run.text) &&
  fontInfo(run.fontName).words &&
  !OPERATOR_NAME.test(run.text);

/**
 * The LaTeX of runs on one line, left to right: scripts (see {@link positionOf}) attach to what
 * precedes them as `^{...}` / `_{...}`; a gap of an em or two between runs is `\quad` or
 * `\qquad`, as a display sets its pieces apart.
 */
export const lineLatex = (input: readonly MathRun[]): LatexResult => {
  const runs = [...(input as readonly Part[])].sort((a, b) => a.x - b.x);
  const notes: string[] = [];
  if (runs.length === 0) return { latex: '', notes };
  const size = dominantSize(runs);
  const mainBaseline = lineBaseline(runs, size);
  let out = '';
  let prev: Part | undefined;
  // The right edge of what is read so far: a base's scripts may end past the last script read
  // (a subscript wider than the superscript over it).
  let right = -Infinity;
  // The scripts after a base, until the next base: subscripts and superscripts together, so
  // that `x_{t}^{(i)}` is one subscript and one superscript whatever the order of their glyphs.
  let scripts: { sub: Part[]; sup: Part[] } | undefined;
  const latexOf = (run: Part): string => {
    if (run.latex !== undefined) return run.latex;
    const result = textLatex(run.text, run.fontName);
    notes.push(...result.notes);
    return result.latex;
  };
  const script = (mark: string, parts: readonly Part[]): string => {
    if (parts.length === 0) return '';
    const inner = lineLatex(parts);
    notes.push(...inner.notes);
    return `${mark}{${inner.latex}}`;
  };
  const closeGroup = (): void => {
    if (!scripts) return;
    out = out.replace(/\s+$/, '');
    // A script with nothing before it (a prescript) needs an empty base.
    if (out === '' || /[{&]$/.test(out)) out += '{}';
    out += script('_', scripts.sub) + script('^', scripts.sup);
    scripts = undefined;
  };
  for (const run of runs) {
    const position = positionOf(run, mainBaseline, size);
    const last = scripts
      ? [...scripts.sub, ...scripts.sup].sort((a, b) => b.x + b.w - (a.x + a.w))[0]
      : undefined;
    if (
      position === 'base' &&
      scripts &&
      last &&
      run.fontSize < 0.8 * size &&
      run.x - (last.x + last.w) < 0.2 * size
    ) {
      // A script of a script (the prime of `p_{\theta'}`) sits near the main baseline.
      (scripts.sub.includes(last) ? scripts.sub : scripts.sup).push(run);
    } else if (position === 'base') {
      closeGroup();
      const gap = prev === undefined ? 0 : (run.x - right) / size;
      if (gap >= 1.6) out += '\\qquad ';
      else if (gap >= 0.8) out += '\\quad ';
      else if (gap >= 0.2 && isUnit(run) && /(?:\d|\^\{[-\d.]+\})$/.test(out)) out += '\\,';
      // A word space after a word of text (`\\text{for}~t`).
      else if (gap >= 0.2 && /\\text\{[^{}]*\}$/.test(out)) out += '~';
      else out += ' ';
      out += latexOf(run);
    } else {
      scripts ??= { sub: [], sup: [] };
      scripts[position].push(run);
    }
    prev = run;
    right = Math.max(right, run.x + run.w);
  }
  closeGroup();
  return { latex: balanced(unitsAfterNumbers(tidy(out))), notes: unique(notes) };
};

/**
 * The LaTeX of an inline formula's runs: {@link lineLatex}, after the glyphs of TeX's extension
 * font are given their meaning and true box and accents are read over their bases, as
 * {@link equationLatex} does (`\\widehat{p}^{N}` for a CMEX wide hat set over `p`, which read
 * alone is a bare `\\widehat`). Runs without an extension-font glyph go to lineLatex as they are.
 */
export const inlineLatex = (runs: readonly MathRun[]): LatexResult =>
  runs.some((r) => r.latex === undefined && texFamily(r.fontName) === 'extension')
    ? lineLatex(readAccents(prepare(runs)))
    : lineLatex(runs);

/** Commands setting an alphabet, whose neighbours merge (`\mathcal{G}\mathcal{P}` is `\mathcal{GP}`). */
const ALPHABET_RUN = /\\(mathcal|mathbb|mathfrak|mathsf|mathbf|mathtt|mathscr)\{([^{}]*)\}\\\1\{/g;

/**
 * Compact LaTeX, as TeX sources converted by LaTeXML read: no spaces but the one a command word
 * needs before a letter, the one authors write between a command word and a digit (`\sim 0.4`,
 * `\times 10^{5}`) and control spaces (`\ `); `\not=` as `\neq`; dots set one by one as `\ldots`
 * or `\cdots`; neighbouring letters of one alphabet in one group.
 */
const tidy = (latex: string): string => {
  let out = latex
    // Three dots set one by one are an ellipsis (`y_{1},\\ldots,y_{T}`).
    .replace(/(?<![.\d])\.\s*\.\s*\.(?![.\d])/g, '\\ldots ')
    .replace(/(?:\\cdot\s*){3}/g, '\\cdots ')
    .replace(/\s+/g, ' ')
    // A space only where a command word meets a letter or a digit (`\\log p`, `\\times 10`).
    .split(/(?<=\\[A-Za-z]+) (?=[A-Za-z0-9])/)
    // A control space (`\ `: an odd number of backslashes before it) stays.
    .map((part) => part.replace(/(?<=(?:^|[^\\])(?:\\\\)*) /g, ''))
    .join(' ')
    .replace(/\\not=/g, '\\neq')
    .replace(/\\not\\in(?![A-Za-z])/g, '\\notin');
  for (let previous = ''; previous !== out;) {
    previous = out;
    out = out.replace(ALPHABET_RUN, '\\$1{$2');
  }
  return out.trim();
};

/**
 * Units after a number set in an upright text font (`10^{5}\,\textrm{K}`,
 * `100\,\text{km\,s}^{-1}`), with the scripts on their last word: one `\mathrm{…}` a word space
 * after the number, its words a space apart, as authors write them (`100\ \mathrm{km\ s^{-1}}`).
 */
const UNITS_AFTER_NUMBER =
  /(?<=\d|\^\{[-\d.]+\})\\,\\text(?:rm)?\{([A-Za-z]+(?:\\,[A-Za-z]+)*)\}((?:[_^]\{[^{}]*\})*)/g;

const unitsAfterNumbers = (latex: string): string =>
  latex.includes('\\,')
    ? latex.replace(
        UNITS_AFTER_NUMBER,
        (_, words: string, scripts: string) =>
          `\\ \\mathrm{${words.split('\\,').join('\\ ')}${scripts}}`,
      )
    : latex;

const unique = (notes: readonly string[]): string[] => [...new Set(notes)];

const centreX = (r: { x: number; w: number }): number => r.x + r.w / 2;
const centreY = (r: { y: number; h: number }): number => r.y + r.h / 2;

/** The union box of runs as a run carrying `latex`, on `baseline`. */
const builtRun = (
  parts: readonly Part[],
  latex: string,
  baseline: number,
  fontSize: number,
): Part => {
  const x0 = Math.min(...parts.map((r) => r.x));
  const y0 = Math.min(...parts.map((r) => r.y));
  const x1 = Math.max(...parts.map((r) => r.x + r.w));
  const y1 = Math.max(...parts.map((r) => r.y + r.h));
  return {
    text: latex,
    latex,
    x: x0,
    y: y0,
    w: x1 - x0,
    h: y1 - y0,
    baseline,
    fontSize,
    fontName: '',
    bold: false,
    italic: false,
    monospace: false,
  };
};

/** A horizontal segment as a bar: its height, left and right. */
interface Bar {
  y: number;
  x1: number;
  x2: number;
}

/** Horizontal segments, shortest first (inner fractions are read before outer ones). */
const barsOf = (segments: readonly Segment[]): Bar[] =>
  segments
    .filter((s) => Math.abs(s.y1 - s.y2) < 1 && Math.abs(s.x2 - s.x1) >= 2)
    .map((s) => ({ y: (s.y1 + s.y2) / 2, x1: Math.min(s.x1, s.x2), x2: Math.max(s.x1, s.x2) }))
    .sort((a, b) => a.x2 - a.x1 - (b.x2 - b.x1));

/**
 * Groups runs into lines, top to bottom: runs of the larger sizes first set the lines (baselines
 * within 0.3 em), then a smaller run joins the line its box overlaps, as a script, when its
 * baseline is within 0.7 em of the line's. A script read before its base would otherwise open a
 * line of its own.
 *
 * @typeParam R a run, or a part already read as LaTeX.
 */
export const mathLines = <R extends TextRun>(runs: readonly R[]): R[][] => {
  const lines: { baseline: number; size: number; top: number; bottom: number; runs: R[] }[] = [];
  const bySize = [...runs].sort((a, b) => b.fontSize - a.fontSize || a.baseline - b.baseline);
  for (const run of bySize) {
    const line =
      lines.find(
        (l) => Math.abs(run.baseline - l.baseline) <= 0.3 * Math.max(l.size, run.fontSize),
      ) ??
      // A script: the line it overlaps whose baseline is nearest (a script of a tall part, a
      // \Big delimiter or a fraction, sits farther from the baseline).
      lines
        .filter((l) => {
          const shift = Math.abs(run.baseline - l.baseline);
          const script = run.fontSize < 0.9 * l.size && run.y < l.bottom && run.y + run.h > l.top;
          // A script of a tall part may sit as far from the baseline as the part reaches (the
          // exponent of a \\Bigg delimiter).
          const height = (l.bottom - l.top) / l.size;
          const reach = height > 1.6 ? Math.max(1.2, 0.5 * height) : 0.7;
          return script && shift <= reach * l.size;
        })
        .sort(
          (a, b) => Math.abs(run.baseline - a.baseline) - Math.abs(run.baseline - b.baseline),
        )[0];
    if (line) {
      line.runs.push(run);
      line.top = Math.min(line.top, run.y);
      line.bottom = Math.max(line.bottom, run.y + run.h);
    } else {
      lines.push({
        baseline: run.baseline,
        size: run.fontSize,
        top: run.y,
        bottom: run.y + run.h,
        runs: [run],
      });
    }
  }
  return lines.sort((a, b) => a.baseline - b.baseline).map((l) => l.runs.sort((a, b) => a.x - b.x));
};

/** Relations a multi-line display aligns on. */
const RELATION = /^(?:=|≤|≥|<|>|≈|≡|∼|≃|≅|∝|≠|⩽|⩾|≲|≳|≔)$/;

/** The first relation set on a line's own baseline (not in a script). */
const relationOf = (line: readonly Part[]): Part | undefined => {
  const size = dominantSize(line);
  const baseline = lineBaseline(line, size);
  return line.find(
    (r) =>
      r.latex === undefined &&
      positionOf(r, baseline, size) === 'base' &&
      RELATION.test(r.text.trim()),
  );
};

/**
 * The LaTeX of several lines (a multi-line display): lines whose relations (`=`, `≤`...) stand
 * one under the other as `\begin{aligned}…\end{aligned}`, aligned on them; other lines joined
 * with `\\`.
 */
const linesLatex = (runs: readonly Part[]): LatexResult & { lines: number; aligned: boolean } => {
  const lines = mathLines(runs);
  const notes: string[] = [];
  const read = (line: readonly Part[]): string => {
    const result = lineLatex(line);
    notes.push(...result.notes);
    return result.latex;
  };
  if (lines.length > 1) {
    const relations = lines.map(relationOf);
    const em = dominantSize(runs) || 10;
    const anchor = relations.find((r) => r !== undefined);
    const aligned = relations.filter(
      (r) => r !== undefined && anchor !== undefined && Math.abs(r.x - anchor.x) <= 0.75 * em,
    );
    if (anchor && aligned.length >= 2) {
      const rows = lines.map((line, i) => {
        const relation = relations[i];
        if (relation === undefined || !aligned.includes(relation)) return `&${read(line)}`;
        const left = line.filter((r) => centreX(r) < relation.x);
        const right = line.filter((r) => !left.includes(r));
        return `${read(left)}&${read(right)}`;
      });
      return {
        latex: `\\begin{aligned}${rows.join('\\\\')}\\end{aligned}`,
        notes,
        lines: lines.length,
        aligned: true,
      };
    }
  }
  const parts = lines.map(read);
  return {
    latex: parts.filter((p) => p !== '').join('\\\\'),
    notes,
    lines: lines.length,
    aligned: false,
  };
};

/** Splits a run's text into pieces at the characters `at` matches, widths shared by character. */
const splitRun = (run: Part, at: RegExp): Part[] => {
  const chars = Array.from(run.text.normalize('NFC'));
  if (chars.length < 2 || !chars.some((c) => at.test(c))) return [run];
  const width = run.w / chars.length;
  const pieces: Part[] = [];
  let start = 0;
  const push = (from: number, to: number): void => {
    const text = chars.slice(from, to).join('');
    if (text.trim() === '') return;
    pieces.push({ ...run, text, x: run.x + from * width, w: (to - from) * width });
  };
  chars.forEach((c, i) => {
    if (!at.test(c)) return;
    push(start, i);
    push(i, i + 1);
    start = i + 1;
  });
  push(start, chars.length);
  return pieces;
};

/** Characters a run is split at, so that relations stand alone (alignment) and so do glyphs of CMEX. */
const SPLIT_AT = /[=≤≥<>≈≡∼≃≅∝≠⩽⩾≲≳ˆ˜¯ˉ˙¨ˇ˘´]/;
/** The same in TeX's symbol font (CMSY), and its arrows and minus: `−→` is a long arrow. */
const SPLIT_AT_SYMBOLS = /[=≤≥<>≈≡∼≃≅∝≠⩽⩾≲≳ˆ˜¯ˉ˙¨ˇ˘´→←⇒⇐−]/;
/** The same in TeX's text fonts, whose accents are ASCII and control codes (OT1). */
// OT1 puts accents at control codes (0x12-0x16 grave to macron, 0x7f dieresis).
// eslint-disable-next-line no-control-regex
const SPLIT_AT_ROMAN = /[=<>^~_\u0012-\u0016\u007f]/;

/**
 * Gives each glyph of a TeX extension font (CMEX) its meaning and its true box: CMEX glyphs hang
 * below their baseline (a `\Big(` is 1.8 em deep), so a reader's box, made from the font's
 * ascent, sits above them. A sized delimiter becomes a part on the math axis of its line
 * (`\Big{(}`); pieces of one extensible delimiter stacked one on another become one delimiter
 * (`\left(`); big operators and radicals keep their glyph, with their box.
 */
const prepare = (input: readonly MathRun[]): Part[] => {
  const out: Part[] = [];
  const pieces: Part[] = [];
  for (const run of input as readonly Part[]) {
    if (run.latex !== undefined || run.text.trim() === '') {
      if (run.latex !== undefined) out.push(run);
      continue;
    }
    const family = texFamily(run.fontName);
    if (family === 'symbols' && /^[√p]$/.test(run.text.trim())) {
      // CMSY's radical hangs below its baseline as CMEX glyphs do (height 0.04 em, depth 0.96).
      const em = run.fontSize;
      out.push({
        ...run,
        text: '√',
        y: run.baseline - 0.04 * em,
        h: em,
        baseline: run.baseline + 0.9 * em,
      });
      continue;
    }
    const extension = family === 'extension';
    const unicodePieces = Array.from(run.text.trim()).every((c) => UNICODE_PIECES[c]);
    if (!extension && !unicodePieces) {
      // An accent glyph may share a run with its neighbours of the same font.
      const at =
        family === 'roman' || family === 'bold'
          ? SPLIT_AT_ROMAN
          : family === 'symbols'
            ? SPLIT_AT_SYMBOLS
            : SPLIT_AT;
      out.push(...splitRun(run, at));
      continue;
    }
    const chars = Array.from(run.text.replace(/\s+/g, ''));
    const width = run.w / Math.max(1, chars.length);
    const em = run.fontSize;
    chars.forEach((ch, i) => {
      const unicode = UNICODE_PIECES[ch];
      const glyph: ExtensionGlyph | undefined = unicode
        ? {
            latex: unicode[0],
            kind: 'piece',
            delimiter: unicode[0],
            opens: unicode[1],
            height: 0,
            depth: 0,
          }
        : omx(omxCode(ch));
      const x = run.x + i * width;
      if (!glyph) {
        // A CMEX glyph already given as Unicode (∑, ∫) keeps its text and box.
        out.push({ ...run, text: ch, x, w: width });
        return;
      }
      const y = unicode ? run.y : run.baseline - glyph.height * em;
      const h = unicode ? run.h : (glyph.height + glyph.depth) * em;
      const part: Part = { ...run, text: ch, x, w: width, y, h, ext: glyph };
      // On the math axis (a quarter of an em over the baseline) of the line it belongs to.
      const baseline = y + h / 2 + 0.25 * em;
      if (glyph.kind === 'piece') {
        pieces.push(part);
      } else if (glyph.kind === 'open' || glyph.kind === 'close' || glyph.kind === 'middle') {
        out.push({ ...part, latex: `${glyph.size ?? ''}{${glyph.latex}}`, baseline });
      } else if (glyph.kind === 'operator') {
        out.push({ ...part, text: GLYPH_OF[glyph.latex] ?? glyph.latex, baseline });
      } else if (glyph.kind === 'radical') {
        out.push({ ...part, text: '√', baseline: y + h });
      } else {
        // Accents, and pieces of over- and underbraces (read with what they span, readBraces).
        out.push(part);
      }
    });
  }
  // Pieces of one delimiter: one x, stacked with no gap between them.
  pieces.sort((a, b) => a.x - b.x || a.y - b.y);
  const stacks: Part[][] = [];
  for (const piece of pieces) {
    const stack = stacks.find((s) => {
      const last = s[s.length - 1] as Part;
      return (
        Math.abs(last.x - piece.x) <= 0.3 * piece.fontSize &&
        piece.y <= last.y + last.h + 0.3 * piece.fontSize &&
        last.ext?.delimiter === piece.ext?.delimiter
      );
    });
    if (stack) stack.push(piece);
    else stacks.push([piece]);
  }
  const bars = stacks.filter((s) => /^\\?\|$/.test(s[0]?.ext?.delimiter ?? ''));
  for (const stack of stacks) {
    const first = stack[0] as Part;
    const ext = first.ext as ExtensionGlyph;
    if (ext.latex === '\\sqrt') continue;
    const bar = bars.indexOf(stack);
    const opens = bar >= 0 ? bar % 2 === 0 : ext.opens === true;
    const built = builtRun(
      stack,
      `${opens ? '\\left' : '\\right'}${ext.delimiter ?? '.'}`,
      0,
      first.fontSize,
    );
    built.baseline = centreY(built) + 0.25 * first.fontSize;
    built.ext = { ...ext, kind: opens ? 'open' : 'close' };
    out.push(built);
  }
  return out;
};

/**
 * The runs with each sized delimiter of TeX's extension font set in a line of text (`\big(` of
 * `$\mathcal{O}\big((K\log K)^{1/2}\big)$`) put on the baseline of that line: such a glyph
 * hangs from 0.8 em over the line's baseline, and read by its own baseline it would make a line
 * of its own, with the scripts near it. Its line is that of a body-size run beside it (within
 * half an em) whose math axis (a quarter em over its baseline) is the glyph's centre, within
 * 0.3 em. A delimiter moved takes its glyph's true box ({@link trueBox}) and carries its LaTeX
 * (`\big{(}`), which is no longer to be read from its glyph and baseline. Other runs are kept as
 * they are, and so is the array when nothing moves.
 */
export const delimitersOnTheirLines = (runs: readonly TextRun[]): readonly TextRun[] => {
  let out: MathRun[] | undefined;
  runs.forEach((run, i) => {
    if (texFamily(run.fontName) !== 'extension') return;
    const text = run.text.trim();
    if (text.length !== 1) return;
    const glyph = omx(omxCode(text));
    if (!glyph || !['open', 'close', 'middle'].includes(glyph.kind)) return;
    const box = trueBox(run);
    const em = run.fontSize;
    const centre = box.y + box.h / 2;
    let line: TextRun | undefined;
    let nearest = Infinity;
    for (const other of runs) {
      if (other === run || texFamily(other.fontName) === 'extension') continue;
      if (other.fontSize < 0.85 * em || other.fontSize > 1.2 * em) continue;
      const gap = Math.max(other.x - (run.x + run.w), run.x - (other.x + other.w));
      if (gap > 0.5 * em || gap >= nearest) continue;
      if (Math.abs(other.baseline - 0.25 * other.fontSize - centre) > 0.3 * em) continue;
      line = other;
      nearest = gap;
    }
    if (!line || Math.abs(line.baseline - run.baseline) < 0.1 * em) return;
    const latex = `${glyph.size ?? ''}{${glyph.latex}}`;
    out ??= [...runs];
    out[i] = { ...box, baseline: line.baseline, latex };
  });
  return out ?? runs;
};

/**
 * A run with the box its glyphs really cover: a run of TeX's extension font (CMEX) or CMSY's
 * radical hangs below its baseline (a `\\Big(` is 1.8 em deep, a display integral 2.2 em), while
 * a reader's box is made from the font's ascent and sits above the glyph. For finding an
 * equation's extent before reading it (the rows of a display, its limits and delimiters).
 *
 * @example
 * trueBox(cmexBigParen); // y from 0.04 em over the baseline to 1.76 em under it
 */
export const trueBox = <R extends TextRun>(run: R): R => {
  const family = texFamily(run.fontName);
  const em = run.fontSize;
  if (family === 'symbols' && /^[√p]$/.test(run.text.trim())) {
    return { ...run, y: run.baseline - 0.04 * em, h: em };
  }
  if (family !== 'extension') return run;
  let top = Infinity;
  let bottom = -Infinity;
  for (const ch of run.text.replace(/\s+/g, '')) {
    const glyph = omx(omxCode(ch));
    if (!glyph) return run;
    top = Math.min(top, run.baseline - glyph.height * em);
    bottom = Math.max(bottom, run.baseline + glyph.depth * em);
  }
  return top < bottom ? { ...run, y: top, h: bottom - top } : run;
};

/** Unicode of CMEX big operators, so that they read as the operators typed in Unicode. */
const GLYPH_OF: Readonly<Record<string, string>> = {
  '\\sum': '∑',
  '\\prod': '∏',
  '\\coprod': '∐',
  '\\int': '∫',
  '\\oint': '∮',
  '\\bigcup': '⋃',
  '\\bigcap': '⋂',
  '\\bigoplus': '⨁',
  '\\bigotimes': '⨂',
};

/** Matrix environments by their delimiter. */
const MATRICES: Readonly<Record<string, string>> = {
  '(': 'pmatrix',
  '[': 'bmatrix',
  '\\{': 'Bmatrix',
  '|': 'vmatrix',
  '\\|': 'Vmatrix',
};

/** The cells of one row of a matrix: runs split where they are an em or more apart. */
const cellsOf = (row: readonly Part[], em: number): Part[][] => {
  const cells: Part[][] = [];
  let right = -Infinity;
  for (const run of [...row].sort((a, b) => a.x - b.x)) {
    const current = cells[cells.length - 1];
    if (current && run.x - right < 0.8 * em) current.push(run);
    else cells.push([run]);
    right = Math.max(right, run.x + run.w);
  }
  return cells;
};

/** The rows of a matrix, `&` between cells and `\\` between rows (short rows padded). */
const gridLatex = (rows: readonly Part[][], em: number, notes: string[]): string => {
  const cells = rows.map((row) => cellsOf(row, em));
  const columns = Math.max(...cells.map((c) => c.length));
  return cells
    .map((row) => {
      const texts = row.map((cell) => {
        const result = lineLatex(cell);
        notes.push(...result.notes);
        return result.latex;
      });
      while (texts.length < columns) texts.push('');
      return texts.join('&');
    })
    .join('\\\\');
};

/**
 * Matrices and cases: a delimiter taller than two lines with rows of runs inside it (and its
 * partner on the right at the same height) is `\begin{pmatrix}…\end{pmatrix}` (`bmatrix`,
 * `vmatrix`...); a left brace with rows on its right and no partner is `\begin{cases}…`.
 */
const readArrays = (input: Part[], notes: string[]): Part[] => {
  let runs = input;
  const opens = runs
    .filter((r) => r.ext?.kind === 'open' || (r.ext?.kind === 'middle' && /\|/.test(r.ext.latex)))
    .sort((a, b) => b.x - a.x);
  for (const open of opens) {
    if (!runs.includes(open)) continue;
    const em = open.fontSize;
    if (open.h < 2 * em) continue;
    const delimiter = open.ext?.delimiter ?? open.ext?.latex ?? '';
    const close = runs
      .filter(
        (r) =>
          r !== open &&
          r.x > open.x &&
          (r.ext?.kind === 'close' || r.ext?.kind === 'middle') &&
          Math.abs(centreY(r) - centreY(open)) <= 0.3 * em &&
          Math.abs(r.h - open.h) <= 0.2 * open.h,
      )
      .sort((a, b) => a.x - b.x)[0];
    const right = close ? close.x : Infinity;
    const inside = runs.filter(
      (r) =>
        r !== open &&
        r !== close &&
        centreX(r) > open.x + open.w &&
        centreX(r) < right &&
        centreY(r) > open.y &&
        centreY(r) < open.y + open.h,
    );
    const rows = mathLines(inside);
    if (rows.length < 2) continue;
    let latex: string;
    if (close) {
      const environment = MATRICES[delimiter];
      if (!environment) continue;
      latex = `\\begin{${environment}}${gridLatex(rows, em, notes)}\\end{${environment}}`;
    } else if (delimiter === '\\{') {
      latex = `\\begin{cases}${gridLatex(rows, em, notes)}\\end{cases}`;
    } else {
      continue;
    }
    const parts = [open, ...inside, ...(close ? [close] : [])];
    const built = builtRun(parts, latex, centreY(open) + 0.25 * em, em);
    runs = [...runs.filter((r) => !parts.includes(r)), built];
  }
  return runs;
};

/** The accent command of a run that is one accent glyph (by its font's encoding), if it is one. */
const accentOf = (run: Part): string | undefined => {
  const text = run.text.trim();
  if (Array.from(text).length !== 1) return undefined;
  const family = texFamily(run.fontName);
  if (family === 'letters' && text === '~') return '\\vec';
  if (family === 'roman' || family === 'bold') return OT1_ACCENTS[text] ?? ACCENT_GLYPHS[text];
  return ACCENT_GLYPHS[text];
};

/**
 * Accents over a base: a glyph of {@link ACCENT_GLYPHS} (or CMMI's vector arrow) set over a
 * letter, a wide hat or tilde of CMEX over one or more glyphs. The base becomes a part read as
 * `\hat{x}` / `\widehat{xy}` that still takes scripts as a glyph.
 */
const readAccents = (input: Part[]): Part[] => {
  let runs = input;
  const accents = runs.filter((r) => {
    if (r.latex !== undefined) return false;
    if (r.ext?.kind === 'accent') return true;
    return accentOf(r) !== undefined;
  });
  for (const accent of accents) {
    const wide = accent.ext?.kind === 'accent';
    const em = accent.fontSize;
    const bases = runs.filter(
      (r) =>
        r !== accent &&
        !accents.includes(r) &&
        isGlyph(r) &&
        r.ext === undefined &&
        centreX(r) > accent.x - 0.15 * em &&
        centreX(r) < accent.x + accent.w + 0.15 * em &&
        r.baseline >= accent.baseline - 0.1 * em &&
        r.baseline <= accent.baseline + 1.2 * em &&
        r.fontSize >= 0.7 * em,
    );
    // The base, under the accent: its own characters only (a run may hold more letters).
    const split = bases.flatMap((b) => splitRun(b, /[\s\S]/u));
    const slack = wide ? 0 : 0.15 * em;
    const under = split.filter(
      (r) =>
        r.text.trim() !== '' &&
        centreX(r) > accent.x - slack &&
        centreX(r) < accent.x + accent.w + slack,
    );
    if (under.length === 0) continue;
    if (!wide && under.length > 1) under.splice(1);
    const first = under[0] as Part;
    const commandName = wide ? (accent.ext?.latex ?? '\\widehat') : (accentOf(accent) ?? '\\hat');
    const inner = lineLatex(under).latex;
    const built = builtRun(under, `${commandName}{${inner}}`, first.baseline, first.fontSize);
    built.atom = true;
    built.fontName = first.fontName;
    const rest = split.filter((r) => !under.includes(r));
    runs = [...runs.filter((r) => r !== accent && !bases.includes(r)), ...rest, built];
  }
  return runs;
};

/**
 * Over- and underbraces: the pieces of one brace (on one baseline) span the runs over (or under)
 * it within two ems and a half, read as `\\underbrace{…}_{label}` (`\\overbrace{…}^{label}`)
 * with the smaller runs on its other side as the label. TeX's `\\underbrace` opens with the
 * piece `\\bracelu` (0x7C, `|`), `\\overbrace` with `\\braceld` (0x7A, `z`). Pieces left over
 * carry nothing of the formula's text.
 */
const readBraces = (input: Part[]): Part[] => {
  let runs = input;
  const braces: Part[][] = [];
  for (const piece of runs.filter((r) => r.ext?.kind === 'brace').sort((a, b) => a.x - b.x)) {
    const brace = braces.find(
      (b) => Math.abs((b[0] as Part).baseline - piece.baseline) < 0.2 * piece.fontSize,
    );
    if (brace) brace.push(piece);
    else braces.push([piece]);
  }
  for (const brace of braces) {
    const first = brace[0] as Part;
    const last = brace[brace.length - 1] as Part;
    const em = first.fontSize;
    const top = Math.min(...brace.map((p) => p.y));
    const bottom = Math.max(...brace.map((p) => p.y + p.h));
    const under = first.text === '|';
    const spanned = (r: Part) =>
      r.ext?.kind !== 'brace' && centreX(r) > first.x && centreX(r) < last.x + last.w;
    const body = runs.filter(
      (r) =>
        spanned(r) &&
        (under
          ? r.y + r.h <= bottom + 0.2 * em && r.baseline >= top - 2.5 * em
          : r.y >= top - 0.2 * em && r.baseline <= bottom + 2.5 * em),
    );
    if (body.length === 0) continue;
    const label = runs.filter(
      (r) =>
        spanned(r) &&
        !body.includes(r) &&
        r.fontSize < 0.9 * Math.max(...body.map((b) => b.fontSize)) &&
        (under
          ? r.y >= top - 0.2 * em && r.y <= bottom + 1.5 * em
          : r.y + r.h <= bottom + 0.2 * em && r.y + r.h >= top - 1.5 * em),
    );
    const size = dominantSize(body);
    const inner = lineLatex(body).latex;
    const mark = label.length > 0 ? `${under ? '_' : '^'}{${lineLatex(label).latex}}` : '';
    const built = builtRun(
      [...brace, ...body, ...label],
      `\\${under ? 'underbrace' : 'overbrace'}{${inner}}${mark}`,
      lineBaseline(body, size),
      size,
    );
    runs = [
      ...runs.filter((r) => !brace.includes(r) && !body.includes(r) && !label.includes(r)),
      built,
    ];
  }
  return runs.filter((r) => r.ext?.kind !== 'brace');
};

/**
 * Long arrows TeX builds of two glyphs that touch (`\\longrightarrow` is a minus joined to an
 * arrow, `−→`), by the pair's first and second glyph.
 */
const LONG_ARROWS: Readonly<Record<string, string>> = {
  '−→': '⟶',
  '←−': '⟵',
  '=⇒': '⟹',
  '⇐=': '⟸',
};

/** Glyphs of two parts that touch on one baseline joined where they make a {@link LONG_ARROWS}. */
const readLongArrows = (input: Part[]): Part[] => {
  const out: Part[] = [];
  for (const run of [...input].sort((a, b) => a.x - b.x)) {
    // The glyph before, on the run's baseline (a label over the arrow may come between).
    const at = out.findIndex(
      (before) =>
        before.latex === undefined &&
        run.latex === undefined &&
        LONG_ARROWS[before.text.trim() + run.text.trim()] !== undefined &&
        Math.abs(before.baseline - run.baseline) < 0.1 * run.fontSize &&
        Math.abs(run.x - (before.x + before.w)) < 0.15 * run.fontSize,
    );
    const before = out[at];
    if (before) {
      const text = LONG_ARROWS[before.text.trim() + run.text.trim()] ?? run.text;
      out[at] = { ...before, text, w: run.x + run.w - before.x };
    } else out.push(run);
  }
  return out;
};

/** Relations and arrows that may carry a small label over them (`\\stackrel{d}{\\longrightarrow}`). */
const STACKABLE = /^(?:=|≈|∼|≃|≡|→|←|⇒|⇐|⟶|⟵|⟹|⟸|↦)$/;

/**
 * A relation or an arrow with a smaller run set over it, within its width
 * (`\\stackrel{d}{\\longrightarrow}`, `\\stackrel{\\text{def}}{=}`): read as one relation.
 */
const readStackedRelations = (input: Part[], size: number): Part[] => {
  let runs = input;
  for (const relation of runs.filter(
    (r) => r.latex === undefined && r.fontSize >= 0.9 * size && STACKABLE.test(r.text.trim()),
  )) {
    const em = relation.fontSize;
    const over = runs.filter(
      (r) =>
        r !== relation &&
        r.fontSize < 0.9 * em &&
        r.x >= relation.x - 0.2 * em &&
        r.x + r.w <= relation.x + relation.w + 0.2 * em &&
        r.baseline < relation.baseline - 0.25 * em &&
        r.baseline > relation.baseline - 1.2 * em,
    );
    if (over.length === 0) continue;
    const symbol = tidy(textLatex(relation.text.trim(), relation.fontName).latex);
    const label = lineLatex(over).latex;
    const built = builtRun(
      [relation, ...over],
      `\\stackrel{${label}}{${symbol}}`,
      relation.baseline,
      em,
    );
    runs = [...runs.filter((r) => r !== relation && !over.includes(r)), built];
  }
  return runs;
};

/**
 * Operator names with limits stacked under them (`\max_{i}`, `\lim_{n\to\infty}`,
 * `\operatorname*{arg\,max}_{\theta}`): a run of the main size reading as one, and smaller
 * runs centred under it.
 */
const readNamedLimits = (input: Part[], size: number): Part[] => {
  let runs = input;
  const names = runs.filter(
    (r) =>
      r.latex === undefined &&
      !isMathFont(r.fontName) &&
      r.fontSize >= 0.9 * size &&
      LIMIT_NAMES.test(r.text.trim()),
  );
  for (const name of names) {
    // `arg` and `max` may be two runs.
    const arg = /^(?:max|min)$/.test(name.text.trim())
      ? runs.find(
          (r) =>
            r.latex === undefined &&
            r.text.trim() === 'arg' &&
            Math.abs(r.baseline - name.baseline) < 0.1 * size &&
            name.x - (r.x + r.w) < 0.6 * size &&
            name.x > r.x,
        )
      : undefined;
    const head = arg ? builtRun([arg, name], '', name.baseline, name.fontSize) : name;
    const lower = runs.filter(
      (r) =>
        r !== name &&
        r !== arg &&
        r.fontSize < 0.9 * size &&
        centreX(r) > head.x - 0.3 * size &&
        centreX(r) < head.x + head.w + 0.3 * size &&
        r.y >= name.baseline - 0.1 * size &&
        r.y <= name.baseline + 1.2 * size,
    );
    if (lower.length === 0) continue;
    const word = `${arg ? 'arg ' : ''}${name.text.trim()}`.replace(/\s+/g, ' ');
    const operator = /^arg\s?(max|min)$/.exec(word);
    const symbol = operator ? `\\operatorname*{arg\\,${operator[1] ?? 'max'}}` : `\\${word}`;
    const below = linesLatex(lower).latex;
    const parts = [name, ...(arg ? [arg] : []), ...lower];
    const built = builtRun(parts, `${symbol}_{${below}}`, name.baseline, name.fontSize);
    runs = [...runs.filter((r) => !parts.includes(r)), built];
  }
  return runs;
};

/**
 * A limit wider than its operator: the `core` runs over (or under) it and the `candidates` on
 * their baseline that follow on, less than a fifth of an em apart, either side.
 */
const chained = (core: readonly Part[], candidates: readonly Part[], size: number): Part[] => {
  const out = [...core];
  for (let grown = true; grown;) {
    grown = false;
    for (const r of candidates) {
      if (out.includes(r)) continue;
      const next = out.some(
        (o) =>
          Math.abs(o.baseline - r.baseline) < 0.2 * size &&
          Math.max(o.x, r.x) - Math.min(o.x + o.w, r.x + r.w) < 0.2 * size,
      );
      if (next) {
        out.push(r);
        grown = true;
      }
    }
  }
  return out;
};

/**
 * Runs of a fraction's numerator or denominator and their scripts: the `candidates` on the
 * same side of the bar whose boxes overlap the core's band (a subscript hanging under it).
 */
const withScripts = (core: readonly Part[], candidates: readonly Part[]): Part[] => {
  if (core.length === 0) return [];
  const top = Math.min(...core.map((r) => r.y));
  const bottom = Math.max(...core.map((r) => r.y + r.h));
  return candidates.filter(
    (r) =>
      core.includes(r) ||
      (r.y < bottom &&
        r.y + r.h > top &&
        r.fontSize < 0.9 * Math.max(...core.map((c) => c.fontSize))),
  );
};

/**
 * The LaTeX of an equation's runs and the rules drawn among them (fraction bars, the vinculum
 * of radicals), a baseline tree read from glyph geometry (Zanibbi, Blostein and Cordy 2002):
 * 0. glyphs of TeX's extension font get their meaning and true box (sized delimiters as
 *    `\Big{(}`, pieces of a tall delimiter as one `\left(`);
 * 1. a `√` whose vinculum starts at its right edge takes the runs under the vinculum as its
 *    radicand, and a small run over its left arm as its index (`\sqrt[3]{x}`); without a
 *    vinculum it applies to what follows, with a note;
 * 2. each bar with runs centred over and under it becomes `\frac{over}{under}` (shortest bar
 *    first, so nested fractions build inside out); a bar with runs on one side only is left
 *    out, with a note;
 * 3. runs stacked over and under a big operator (∑, ∏, ∫...) become its limits, and runs under
 *    `max`, `lim`, `arg max`... theirs;
 * 4. accents over a base (`\hat{x}`, `\widehat{p}`);
 * 5. rows inside a tall delimiter become a matrix (`pmatrix`...) or `cases`;
 * 6. the rest is read line by line ({@link lineLatex}); lines aligned on their relations become
 *    `\begin{aligned}…\end{aligned}`, other lines are joined with `\\`, with a note.
 */
export const equationLatex = (
  input: readonly MathRun[],
  segments: readonly Segment[],
): LatexResult => {
  let runs: Part[] = prepare(input.filter((r) => r.text.trim() !== '' || r.latex !== undefined));
  const notes: string[] = [];
  const size = dominantSize(runs) || 10;
  const bars = barsOf(segments);
  const used = new Set<Bar>();

  // 4 (first for the letters of fractions and radicands). Accents.
  runs = readAccents(runs);
  // Long arrows, and labels set over relations.
  runs = readStackedRelations(readLongArrows(runs), size);

  // 1. Radicals (before fractions: a vinculum is a bar too).
  for (const root of runs.filter((r) => r.latex === undefined && r.text.trim() === '√')) {
    const right = root.x + root.w;
    const vinculum = bars.find(
      (b) =>
        !used.has(b) &&
        Math.abs(b.x1 - right) <= 0.5 * size &&
        b.y >= root.y - 0.5 * size &&
        b.y <= root.y + 0.6 * root.h,
    );
    if (!vinculum) continue;
    const radicand = runs.filter(
      (r) =>
        r !== root &&
        centreX(r) > vinculum.x1 &&
        centreX(r) < vinculum.x2 &&
        centreY(r) > vinculum.y &&
        centreY(r) < vinculum.y + Math.max(2 * size, root.h),
    );
    if (radicand.length === 0) continue;
    // An index: smaller, over the radical sign's left half, above its middle.
    const index = runs.filter(
      (r) =>
        r !== root &&
        !radicand.includes(r) &&
        r.fontSize < 0.9 * size &&
        centreX(r) >= root.x - 0.5 * size &&
        centreX(r) <= root.x + 0.6 * root.w &&
        r.y + r.h <= centreY(root) + 0.1 * size &&
        r.y + r.h >= root.y - 0.5 * size,
    );
    used.add(vinculum);
    const inner = linesLatex(radicand);
    notes.push(...inner.notes);
    const degree = index.length > 0 ? `[${lineLatex(index).latex}]` : '';
    const built = builtRun(
      [root, ...radicand, ...index],
      `\\sqrt${degree}{${inner.latex}}`,
      lineBaseline(radicand, dominantSize(radicand)),
      dominantSize(radicand),
    );
    runs = [
      ...runs.filter((r) => r !== root && !radicand.includes(r) && !index.includes(r)),
      built,
    ];
  }

  // 3. Limits of big operators.
  for (const operator of runs.filter(isBigOperator)) {
    const within = (r: Part) =>
      r !== operator &&
      r.x < operator.x + operator.w + 0.2 * size &&
      r.x + r.w > operator.x - 0.2 * size;
    const top = operator.y + 0.25 * operator.h;
    const bottom = operator.y + 0.75 * operator.h;
    const isUpper = (r: Part) => r.y + r.h <= top && r.y + r.h >= top - 1.5 * size;
    const isLower = (r: Part) => r.y >= bottom && r.y <= bottom + 1.5 * size;
    const upper = chained(
      runs.filter((r) => within(r) && isUpper(r)),
      runs.filter(isUpper),
      size,
    );
    const lower = chained(
      runs.filter((r) => within(r) && isLower(r)),
      runs.filter(isLower),
      size,
    );
    if (upper.length === 0 && lower.length === 0) continue;
    const symbol = tidy(textLatex(operator.text.trim(), operator.fontName).latex);
    const below = lower.length > 0 ? `_{${linesLatex(lower).latex}}` : '';
    const above = upper.length > 0 ? `^{${linesLatex(upper).latex}}` : '';
    const built = builtRun(
      [operator, ...upper, ...lower],
      `${symbol}${below}${above}`,
      // A big operator is centred on the math axis, about a quarter of an em over the baseline.
      centreY(operator) + 0.25 * size,
      size,
    );
    runs = [
      ...runs.filter((r) => r !== operator && !upper.includes(r) && !lower.includes(r)),
      built,
    ];
  }
  // The rules between the pieces of a brace are no fraction bars.
  for (const piece of runs.filter((r) => r.ext?.kind === 'brace')) {
    const em = piece.fontSize;
    for (const bar of bars) {
      const along =
        bar.y >= piece.y - 0.3 * em &&
        bar.y <= piece.y + piece.h + 0.3 * em &&
        Math.min(Math.abs(bar.x1 - (piece.x + piece.w)), Math.abs(bar.x2 - piece.x)) < 0.3 * em;
      if (along) used.add(bar);
    }
  }
  // 2. Fractions.
  for (const bar of bars) {
    if (used.has(bar)) continue;
    const over = (r: Part) => centreX(r) > bar.x1 - 1 && centreX(r) < bar.x2 + 1;
    // Directly over and under the bar: a numerator's box ends, a denominator's starts, within
    // about an em of it (farther runs belong to an outer fraction or another line).
    const em = (r: Part) => Math.max(r.fontSize, size);
    const numerator = withScripts(
      runs.filter(
        (r) =>
          over(r) &&
          centreY(r) < bar.y &&
          r.y + r.h >= bar.y - 1.2 * em(r) &&
          r.y + r.h <= bar.y + 0.5 * em(r),
      ),
      runs.filter((r) => over(r) && centreY(r) < bar.y),
    );
    const denominator = withScripts(
      runs.filter(
        (r) =>
          over(r) && centreY(r) > bar.y && r.y >= bar.y - 0.5 * em(r) && r.y <= bar.y + 1.2 * em(r),
      ),
      runs.filter((r) => over(r) && centreY(r) > bar.y),
    );
    if (numerator.length === 0 || denominator.length === 0) {
      if (numerator.length + denominator.length > 0) {
        notes.push('a horizontal rule in an equation (an overline or underline?) was not read');
      }
      continue;
    }
    used.add(bar);
    const top = linesLatex(numerator);
    const bottom = linesLatex(denominator);
    notes.push(...top.notes, ...bottom.notes);
    const fontSize = dominantSize([...numerator, ...denominator]);
    const built = builtRun(
      [...numerator, ...denominator],
      `\\frac{${top.latex}}{${bottom.latex}}`,
      // The bar sits on the math axis, about a quarter of an em over the baseline.
      bar.y + 0.25 * fontSize,
      // A fraction in text style (parts at script size) stands on the line; one whose parts are
      // at scriptscript size is itself in a script (the exponent of a \\Bigg delimiter).
      fontSize < 0.6 * size ? fontSize : Math.max(fontSize, size),
    );
    runs = [...runs.filter((r) => !numerator.includes(r) && !denominator.includes(r)), built];
  }

  // Radicals left (no vinculum found) apply to the next symbol, as GLYPHS maps them.
  if (runs.some((r) => r.latex === undefined && /[√∛]/.test(r.text))) {
    notes.push(
      'a radical without a visible vinculum: its extent is a guess (\\sqrt applies to the next symbol)',
    );
  }

  runs = readNamedLimits(runs, size);
  runs = readBraces(runs);

  // 5. Matrices and cases.
  runs = readArrays(runs, notes);

  // 6. Lines.
  const body = linesLatex(runs);
  notes.push(...body.notes);
  if (body.lines > 1 && !body.aligned) {
    notes.push(
      `an equation set on ${body.lines} lines was read line by line (joined with \\\\); its alignment is not recovered`,
    );
  }
  // The sentence's punctuation after a display is not part of the formula.
  const latex = body.latex.replace(/\s*[.,;](\\end\{aligned\})?$/, '$1');
  return { latex, notes: unique(notes) };
};
