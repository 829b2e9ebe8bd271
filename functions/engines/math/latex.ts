import type { Segment, TextRun } from '../layout/types.js';
import { fontStyle } from '../pdf/font-style.js';
import { isGarbage } from '../pdf/page-geometry.js';

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
  /stix|xits|asana|euclid|mt ?extra|(?:^|\+)(?:cmbsy|cmmib|lmmi|lmsy|lmex|eusm|eufb|msbm|msam)/i;

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
  '⊗': '\\otimes',
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

/** A command ending in a letter needs a space before a following letter. */
const command = (latex: string): string => (/\\[A-Za-z]+$/.test(latex) ? `${latex} ` : latex);

/** LaTeX and what could not be read with certainty. */
export interface LatexResult {
  latex: string;
  /** One sentence per doubt (unmapped glyphs, unread layout), without duplicates. */
  notes: string[];
}

/**
 * The LaTeX of a run's text: function names as commands (outside italic math fonts, where `sin`
 * may be three variables), characters through {@link GLYPHS}; mathematical alphanumeric
 * symbols (𝑥, 𝐀) as their plain letters.
 *
 * @example
 * textLatex('α ≤ 2π', 'CMMI10'); // { latex: '\\alpha \\leq 2\\pi ', notes: [] }
 */
export const textLatex = (text: string, fontName: string): LatexResult => {
  const notes: string[] = [];
  const names = !/cmmi|lmmi|italic|-it\b/i.test(fontName);
  let out = '';
  const source = names ? text.replace(FUNCTION_NAMES, '\u0000$1\u0001') : text;
  let inName = false;
  for (const raw of source) {
    if (raw === '\u0000') {
      out += '\\';
      inName = true;
      continue;
    }
    if (raw === '\u0001') {
      out += ' ';
      inName = false;
      continue;
    }
    if (inName) {
      out += raw;
      continue;
    }
    const code = raw.codePointAt(0) ?? 0;
    // Mathematical alphanumeric symbols (𝑥, 𝐀, 𝟏): their plain letters and digits.
    const ch = code >= 0x1d400 && code <= 0x1d7ff ? raw.normalize('NFKC') : raw;
    const mapped = GLYPHS[ch];
    if (mapped !== undefined) {
      out += command(mapped);
    } else if (PLAIN.test(ch)) {
      out += ch;
    } else if (isGarbage(ch.codePointAt(0) ?? 0)) {
      out += '\\square ';
      notes.push('a glyph without a Unicode mapping was read as \\square');
    } else {
      out += ch;
      notes.push(
        `the character "${ch}" (U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}) has no LaTeX mapping and was kept as it is`,
      );
    }
  }
  return { latex: out, notes };
};

/** A lone big operator glyph (∑, ∫...), set larger than the text around it. */
const isBigOperator = (run: MathRun): boolean =>
  run.latex === undefined && BIG_OPERATORS.has(run.text.trim());

/**
 * The main size of some runs: among glyphs of about the largest size (big operators and parts
 * already read aside), the size carrying the most characters. Scripts, however many characters
 * they have, are smaller than their base.
 */
const dominantSize = (input: readonly MathRun[]): number => {
  const glyphs = input.filter((r) => r.latex === undefined && !isBigOperator(r));
  const candidates = glyphs.length > 0 ? glyphs : input;
  const largest = Math.max(...candidates.map((r) => r.fontSize));
  const runs = candidates.filter((r) => r.fontSize >= 0.85 * largest);
  const weight = new Map<number, { size: number; chars: number }>();
  for (const run of runs) {
    const key = Math.round(run.fontSize * 4) / 4;
    const entry = weight.get(key) ?? { size: run.fontSize, chars: 0 };
    entry.chars += run.latex === undefined ? run.text.replace(/\s+/g, '').length : 1;
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
const lineBaseline = (runs: readonly MathRun[], size: number): number => {
  const glyphs = runs.filter((r) => r.latex === undefined);
  const main = glyphs.filter((r) => Math.abs(r.fontSize - size) <= 0.1 * size);
  const pool = main.length > 0 ? main : glyphs.length > 0 ? glyphs : runs;
  const weighted = pool
    .map((r) => ({ baseline: r.baseline, weight: Math.max(1, r.text.replace(/\s+/g, '').length) }))
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
 * em) is a superscript; lowered and smaller (or by a quarter of an em) a subscript.
 */
const positionOf = (run: MathRun, baseline: number, size: number): Position => {
  if (run.latex !== undefined) return 'base';
  const smaller = run.fontSize < 0.9 * size;
  const shift = (baseline - run.baseline) / size;
  if (shift > 0.15 && (smaller || shift > 0.3)) return 'sup';
  if (shift < -0.1 && (smaller || shift < -0.25)) return 'sub';
  return 'base';
};

/**
 * The LaTeX of runs on one line, left to right: scripts (see {@link positionOf}) attach to what
 * precedes them as `^{...}` / `_{...}`; a space separates runs further apart than 0.15 em.
 */
export const lineLatex = (input: readonly MathRun[]): LatexResult => {
  const runs = [...input].sort((a, b) => a.x - b.x);
  const notes: string[] = [];
  if (runs.length === 0) return { latex: '', notes };
  const size = dominantSize(runs);
  const mainBaseline = lineBaseline(runs, size);
  let out = '';
  let prev: MathRun | undefined;
  let group: { position: Position; runs: MathRun[] } | undefined;
  const latexOf = (run: MathRun): string => {
    if (run.latex !== undefined) return run.latex;
    const result = textLatex(run.text, run.fontName);
    notes.push(...result.notes);
    return result.latex;
  };
  const closeGroup = (): void => {
    if (!group) return;
    const inner = lineLatex(group.runs);
    notes.push(...inner.notes);
    out = out.replace(/\s+$/, '');
    // A script with nothing before it (a prescript) needs an empty base.
    if (out === '') out = '{}';
    out += `${group.position === 'sup' ? '^' : '_'}{${inner.latex}}`;
    group = undefined;
  };
  for (const run of runs) {
    const position = positionOf(run, mainBaseline, size);
    if (position === 'base') {
      closeGroup();
      // Apart by more than 0.15 em, or next to a part read as LaTeX (\frac, \sqrt, limits).
      const apart =
        prev !== undefined &&
        (run.x - (prev.x + prev.w) > 0.15 * size ||
          run.latex !== undefined ||
          prev.latex !== undefined);
      if (apart && !/[\s([{]$/.test(out)) out += ' ';
      out += latexOf(run);
    } else if (group?.position === position) {
      group.runs.push(run);
    } else {
      closeGroup();
      group = { position, runs: [run] };
    }
    prev = run;
  }
  closeGroup();
  return { latex: tidy(out), notes: unique(notes) };
};

/** Collapses spaces; no space before a script or a closing brace, or after an opening one. */
const tidy = (latex: string): string =>
  latex
    .replace(/\s+/g, ' ')
    .replace(/\s+([\^_}])/g, '$1')
    .replace(/\{\s+/g, '{')
    .trim();

const unique = (notes: readonly string[]): string[] => [...new Set(notes)];

const centreX = (r: { x: number; w: number }): number => r.x + r.w / 2;
const centreY = (r: { y: number; h: number }): number => r.y + r.h / 2;

/** The union box of runs as a run carrying `latex`, on `baseline`. */
const builtRun = (
  parts: readonly MathRun[],
  latex: string,
  baseline: number,
  fontSize: number,
): MathRun => {
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
    const line = lines.find((l) => {
      const shift = Math.abs(run.baseline - l.baseline);
      if (shift <= 0.3 * Math.max(l.size, run.fontSize)) return true;
      const script = run.fontSize < 0.9 * l.size && run.y < l.bottom && run.y + run.h > l.top;
      return script && shift <= 0.7 * l.size;
    });
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

/** The LaTeX of several lines (a multi-line display), one `\\` between lines. */
const linesLatex = (runs: readonly MathRun[]): LatexResult & { lines: number } => {
  const lines = mathLines(runs);
  const notes: string[] = [];
  const parts = lines.map((line) => {
    const result = lineLatex(line);
    notes.push(...result.notes);
    return result.latex;
  });
  return { latex: parts.filter((p) => p !== '').join(' \\\\ '), notes, lines: lines.length };
};

/**
 * The LaTeX of an equation's runs and the rules drawn among them (fraction bars, the vinculum
 * of radicals):
 * 1. each bar with runs centred over and under it becomes `\frac{over}{under}` (shortest bar
 *    first, so nested fractions build inside out); a bar with runs on one side only is left
 *    out, with a note;
 * 2. a `√` whose vinculum starts at its right edge takes the runs under the vinculum as its
 *    radicand; without one it applies to what follows, with a note;
 * 3. runs stacked over and under a big operator (∑, ∏, ∫...) become its limits;
 * 4. the rest is read line by line ({@link lineLatex}); several lines are joined with `\\`,
 *    with a note that their alignment is not recovered.
 */
export const equationLatex = (
  input: readonly MathRun[],
  segments: readonly Segment[],
): LatexResult => {
  let runs: MathRun[] = input.filter((r) => r.text.trim() !== '' || r.latex !== undefined);
  const notes: string[] = [];
  const size = dominantSize(runs) || 10;
  const bars = barsOf(segments);
  const used = new Set<Bar>();

  // 2. Radicals (before fractions: a vinculum is a bar too).
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
        centreY(r) < vinculum.y + 2 * size,
    );
    if (radicand.length === 0) continue;
    used.add(vinculum);
    const inner = linesLatex(radicand);
    notes.push(...inner.notes);
    const built = builtRun(
      [root, ...radicand],
      `\\sqrt{${inner.latex}}`,
      radicand[0]?.baseline ?? root.baseline,
      dominantSize(radicand),
    );
    runs = [...runs.filter((r) => r !== root && !radicand.includes(r)), built];
  }

  // 1. Fractions.
  for (const bar of bars) {
    if (used.has(bar)) continue;
    const over = (r: MathRun) => centreX(r) > bar.x1 - 1 && centreX(r) < bar.x2 + 1;
    // Directly over and under the bar: a numerator's box ends, a denominator's starts, within
    // about an em of it (farther runs belong to an outer fraction or another line).
    const numerator = runs.filter(
      (r) =>
        over(r) &&
        centreY(r) < bar.y &&
        r.y + r.h >= bar.y - 1.2 * r.fontSize &&
        r.y + r.h <= bar.y + 0.5 * r.fontSize,
    );
    const denominator = runs.filter(
      (r) =>
        over(r) &&
        centreY(r) > bar.y &&
        r.y >= bar.y - 0.5 * r.fontSize &&
        r.y <= bar.y + 1.2 * r.fontSize,
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
    const em = dominantSize([...numerator, ...denominator]);
    const built = builtRun(
      [...numerator, ...denominator],
      `\\frac{${top.latex}}{${bottom.latex}}`,
      // The bar sits on the math axis, about a quarter of an em over the baseline.
      bar.y + 0.25 * em,
      Math.max(em, size),
    );
    runs = [...runs.filter((r) => !numerator.includes(r) && !denominator.includes(r)), built];
  }

  // Radicals left (no vinculum found) apply to the next symbol, as GLYPHS maps them.
  if (runs.some((r) => r.latex === undefined && /[√∛]/.test(r.text))) {
    notes.push(
      'a radical without a visible vinculum: its extent is a guess (\\sqrt applies to the next symbol)',
    );
  }

  // 3. Limits of big operators.
  for (const operator of runs.filter(isBigOperator)) {
    const within = (r: MathRun) =>
      r !== operator &&
      centreX(r) > operator.x - 0.2 * size &&
      centreX(r) < operator.x + operator.w + 0.2 * size;
    const top = operator.y + 0.25 * operator.h;
    const bottom = operator.y + 0.75 * operator.h;
    const upper = runs.filter(
      (r) => within(r) && r.y + r.h <= top && r.y + r.h >= top - 1.5 * size,
    );
    const lower = runs.filter((r) => within(r) && r.y >= bottom && r.y <= bottom + 1.5 * size);
    if (upper.length === 0 && lower.length === 0) continue;
    const symbol = textLatex(operator.text.trim(), operator.fontName).latex.trim();
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

  // 4. Lines.
  const body = linesLatex(runs);
  notes.push(...body.notes);
  if (body.lines > 1) {
    notes.push(
      `an equation set on ${body.lines} lines was read line by line (joined with \\\\); its alignment and any matrix structure are not recovered`,
    );
  }
  return { latex: body.latex.replace(/\s*[.,;]$/, ''), notes: unique(notes) };
};
