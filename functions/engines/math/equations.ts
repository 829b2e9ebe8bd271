import type { PageText, Segment, TextRun } from '../layout/types.js';
import { equationLatex, isMathFont, mathLines, trueBox } from './latex.js';
import { isBracePiece, isSansName } from './tex-fonts.js';
import { connectedGroups } from '../connected-groups.js';
import { visibleLength } from '../layout/white-space.js';

/** A box: left, top, right, bottom (pixels). */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A display equation found on a page. */
export interface DisplayEquation extends Box {
  /** The LaTeX, its number (when it has one) as `\\tag{n}`. */
  latex: string;
  /** The LaTeX without the number. */
  body: string;
  /** The equation number as set on the page (`3`, `2.1`, `4a`), or null. */
  number: string | null;
  /** The runs read: the equation's and its number's. */
  runs: TextRun[];
  /** What could not be read with certainty (see {@link equationLatex}). */
  notes: string[];
}

/** An exercise or item label set before an equation (`150.`, `(a)`, `b)`). */
const LABEL = /^\(?(?:\d{1,4}|[a-z]|[ivx]{1,5})[.)]$/i;
/** An equation number set after it (`(1)`, `(2.3)`, `(4a)`). */
const NUMBER = /^\((\d{1,3}(?:\.\d{1,3})*[a-z]?)\)$/;
/** Operator names that may appear in a display equation in roman type. */
const FUNCTION_WORDS =
  /\b(?:argmax|argmin|arcsin|arccos|arctan|sinh|cosh|tanh|sin|cos|tan|cot|sec|csc|log|ln|lg|exp|lim|liminf|limsup|max|min|sup|inf|det|arg|dim|ker|gcd|deg|hom|Pr|mod)\b/g;
/** Words a display sets between its formulas (`\\qquad\\text{for } t=1,\\ldots,T`). */
const CONNECTIVES = /\b(?:for|if|and|or|otherwise|where|with|else|then|s\.t\.)\b/g;
/**
 * Units set upright after a number in a formula (`100 km s⁻¹`, `500 kpc`, `1 keV`), with or
 * without spaces between them (the glyphs of a display are read without): not prose there.
 */
const UNITS =
  /(\d[\d.,]*\s*)(?:(?:[kMGm]?pc|[kMG]?yr|[kMG]?eV|[kMG]?Hz|erg|mag|arcsec|arcmin|Jy|sr|rad|mol|km|cm|mm|nm|μm|µm|kg|mg|[MLRZ]⊙|[mgsKJWVALl]|Pa|Å)\s*)+(?!\p{L})/gu;

/** A relation or an operator opening a line of a multi-line display. */
const RELATION_FIRST = /^\s*[=<>≤≥≠≈≡∼≃≅∝≲≳⩽⩾+−]/;

/** Characters that make a line mathematics: relations, operators, big operators. */
const MATH_SIGNS = /[=<>≤≥≠≈≡∼≃≅∝≪≫⊂⊆⊃⊇∈∉→←↔⇒⇐⇔↦+−±∓×÷·⋅∗∑∏∫∮√∂∇∞]/;

const centre = (r: TextRun) => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });
const inside = (r: TextRun, boxes: readonly Box[]): boolean => {
  const c = centre(r);
  return boxes.some((b) => c.x > b.x0 && c.x < b.x1 && c.y > b.y0 && c.y < b.y1);
};

/** A piece of a line read as mathematics: its equation runs and its equation number. */
interface MathPiece {
  runs: TextRun[];
  number: string | null;
  /** The run of the equation number. */
  numberRun: TextRun | null;
  /** A formula of its own (not a lone symbol of a fraction or of limits). */
  strong: boolean;
  size: number;
}

const math = (r: TextRun) => isMathFont(r.fontName);

/**
 * Whether a piece of a line is mathematics, and its equation runs: it has glyphs in a math
 * font, and what is set in other fonts is digits, operators and punctuation (operator names,
 * and units after a number, allowed), once an item label before it (`150.`) and an equation
 * number after it (`(3)`) are set aside; or it is a {@link romanPiece}. A piece of prose with
 * inline mathematics is not one.
 */
const mathPiece = (runs: readonly TextRun[]): MathPiece | null => {
  let from = 0;
  let to = runs.length;
  // An item label and an equation number are set at the text's size; `(2)` in a script is
  // part of the formula (`v_t^{(2)}`).
  const textSize = 0.85 * Math.max(...runs.map((r) => r.fontSize));
  const first = runs[0];
  if (first && !math(first) && first.fontSize >= textSize && LABEL.test(first.text.trim())) {
    from = 1;
  }
  const last = runs[to - 1];
  const numbered =
    last && to - from > 1 && !math(last) && last.fontSize >= textSize
      ? NUMBER.exec(last.text.trim())
      : null;
  if (numbered) to -= 1;
  const body = runs.slice(from, to);
  if (!body.some((r) => math(r) && visibleLength(r.text) > 0)) {
    const roman = romanPiece(body);
    return (
      roman && {
        ...roman,
        number: numbered?.[1] ?? null,
        numberRun: numbered && last ? last : null,
      }
    );
  }
  const largest = Math.max(...body.map((r) => r.fontSize));
  // Words in scripts are labels of the formula (`θ_MAP`, `x_max`), not prose.
  const other = body
    .filter((r) => !math(r) && !isSansName(r.fontName, r.text) && r.fontSize >= 0.85 * largest)
    .map((r) => r.text)
    .join(' ')
    .replace(FUNCTION_WORDS, '')
    .replace(CONNECTIVES, '');
  if (/\p{L}{2,}/u.test(other.replace(UNITS, '$1'))) return null;
  const text = body.map((r) => r.text).join('');
  const chars = visibleLength(text);
  const size = Math.max(...body.map((r) => r.fontSize));
  const scripted = body.some((r) => r.fontSize < 0.85 * size);
  return {
    runs: body,
    number: numbered?.[1] ?? null,
    numberRun: numbered && last ? last : null,
    strong: chars >= 3 && (MATH_SIGNS.test(text) || scripted),
    size,
  };
};

/**
 * Upright letters, digits and signs (no sentence punctuation but a closing one); TeX's text
 * fonts set upright Greek capitals at control codes (`Θ` is 0x02 in CMR).
 */
// eslint-disable-next-line no-control-regex
const ROMAN_MATH = /^[\p{L}\d.,()[\]+\-−=/⊙\u0000-\u000a]+$/u;

/**
 * A piece without math-font glyphs that may still be part of a display: a few upright letters,
 * digits and units with no word among them but in scripts (a fraction's numerator `v₂₀₀` or
 * denominator `f_{O VII}` set in roman, the exponent after a big delimiter). Never an equation
 * by itself: it joins the equation it is stacked against.
 */
const romanPiece = (runs: readonly TextRun[]): MathPiece | null => {
  const size = Math.max(...runs.map((r) => r.fontSize));
  const main = runs
    .filter((r) => r.fontSize >= 0.85 * size)
    .map((r) => r.text)
    .join(' ');
  const glyphs = runs
    .map((r) => r.text)
    .join('')
    .replace(/\s+/g, '');
  if (!ROMAN_MATH.test(glyphs) || visibleLength(main) > 12) return null;
  if (/\p{L}{2,}/u.test(main.replace(UNITS, '$1'))) return null;
  return { runs: [...runs], number: null, numberRun: null, strong: false, size };
};

/**
 * The pieces of a line: its runs split where they are more than three ems apart (columns, or an
 * equation number set at the margin), but for the pieces of a brace. A piece that is only an equation number is given to the
 * piece before it.
 */
const piecesOf = (line: readonly TextRun[]): TextRun[][] => {
  const pieces: TextRun[][] = [];
  let right = -Infinity;
  for (const run of line) {
    const current = pieces[pieces.length - 1];
    const previous = current?.[current.length - 1];
    const em = Math.max(run.fontSize, previous?.fontSize ?? 0);
    // The pieces of an over- or underbrace are far apart along it, with rules between them.
    const brace =
      previous !== undefined &&
      isBracePiece(run.fontName, run.text) &&
      isBracePiece(previous.fontName, previous.text);
    if (current && (run.x - right <= 3 * em || brace)) current.push(run);
    else pieces.push([run]);
    right = Math.max(right, run.x + run.w);
  }
  const out: TextRun[][] = [];
  for (const piece of pieces) {
    const previous = out[out.length - 1];
    const only = piece.length === 1 && piece[0] !== undefined ? piece[0] : undefined;
    if (previous && only && !math(only) && NUMBER.test(only.text.trim())) previous.push(only);
    else out.push(piece);
  }
  return out;
};

/** The union box of runs (and segments). */
const boxOf = (runs: readonly TextRun[], segments: readonly Segment[] = []): Box => ({
  x0: Math.min(...runs.map((r) => r.x), ...segments.map((s) => Math.min(s.x1, s.x2))),
  y0: Math.min(...runs.map((r) => r.y), ...segments.map((s) => Math.min(s.y1, s.y2))),
  x1: Math.max(...runs.map((r) => r.x + r.w), ...segments.map((s) => Math.max(s.x1, s.x2))),
  y1: Math.max(...runs.map((r) => r.y + r.h), ...segments.map((s) => Math.max(s.y1, s.y2))),
});

/**
 * Clusters of rows joined where one continues the equation over it: a line opening with a
 * relation or an operator (`= …` under `a = …`, `− …` under a line broken before it), its top
 * under an em and a half below the equation over it, the two overlapping across; lines that
 * both carry a number are equations of their own.
 */
const continuations = (clusters: MathPiece[][]): MathPiece[][] => {
  const boxed = clusters
    .map((rows) => ({ rows, box: boxOf(rows.flatMap((r) => r.runs)) }))
    .sort((a, b) => a.box.y0 - b.box.y0);
  const out: typeof boxed = [];
  for (const cluster of boxed) {
    // The cluster's leftmost formula opens with the relation (not a limit over it).
    const first = cluster.rows
      .filter((r) => r.strong)
      .sort((a, b) => (a.runs[0]?.x ?? 0) - (b.runs[0]?.x ?? 0))[0];
    const opening = first && RELATION_FIRST.test(first.runs[0]?.text ?? '');
    const em = Math.max(...cluster.rows.map((r) => r.size));
    const numbered = cluster.rows.some((r) => r.number !== null);
    const above = opening
      ? out.find(
          (o) =>
            o.rows.some((r) => r.strong) &&
            !(numbered && o.rows.some((r) => r.number !== null)) &&
            cluster.box.y0 - o.box.y1 >= -0.2 * em &&
            cluster.box.y0 - o.box.y1 < 1.5 * em &&
            Math.min(o.box.x1, cluster.box.x1) - Math.max(o.box.x0, cluster.box.x0) > 0,
        )
      : undefined;
    if (!above) {
      out.push(cluster);
      continue;
    }
    above.rows.push(...cluster.rows);
    above.box = boxOf(above.rows.flatMap((r) => r.runs));
  }
  return out.map((c) => c.rows);
};

/**
 * Finds the display equations of a page from its text layer: lines that are mathematics
 * (see {@link mathRow}) with a relation, an operator or a script, together with the lines
 * stacked right against them (numerators, denominators, limits) and the rules drawn among them
 * (fraction bars, vincula), each read as LaTeX with {@link equationLatex}. Inline mathematics in
 * a line of prose is not a display equation. Runs inside `exclude` (tables, figures) are not
 * considered. An equation number `(n)` at the end of the line becomes `\tag{n}`.
 *
 * @returns the equations top to bottom, boxes in pixels of the page image.
 */
export const findDisplayEquations = (
  page: PageText,
  exclude: readonly Box[],
): DisplayEquation[] => {
  // Rows and their extent from the boxes glyphs really cover: a big delimiter or operator of
  // TeX's extension font hangs far below the box a reader gives it, beside the line it belongs to.
  const original = new Map<TextRun, TextRun>();
  const runs = page.runs
    .filter((r) => r.text.trim() !== '' && !inside(r, exclude))
    .map((r) => {
      const shaped = trueBox(r);
      original.set(shaped, r);
      return shaped;
    });
  const given = (shaped: readonly TextRun[]): TextRun[] => shaped.map((r) => original.get(r) ?? r);
  const rows = mathLines(runs)
    .flatMap(piecesOf)
    .map(mathPiece)
    .filter((r): r is MathPiece => r !== null);
  // Rows of one equation: under half a line apart (a brace's pieces and what it spans or
  // labels, a line and more), and overlapping across (or side by side on one line: a fraction
  // next to what precedes it).
  const boxes = rows.map((r) => boxOf(r.runs));
  const brace = rows.map((r) => r.runs.every((run) => isBracePiece(run.fontName, run.text)));
  const groups = connectedGroups(rows, (ra, rb, i, j) => {
    const a = boxes[i] as Box;
    const b = boxes[j] as Box;
    const em = Math.max(ra.size, rb.size);
    const gapY = Math.max(a.y0, b.y0) - Math.min(a.y1, b.y1);
    const gapX = Math.max(a.x0, b.x0) - Math.min(a.x1, b.x1);
    const reach = brace[i] === true || brace[j] === true ? 1.2 : 0.5;
    return gapY < reach * em && gapX < (gapY < 0 ? 2.5 : 1) * em;
  });
  const clusters = continuations(groups);
  const equations: DisplayEquation[] = [];
  for (const cluster of clusters) {
    if (!cluster.some((r) => r.strong)) continue;
    const eqRuns = cluster.flatMap((r) => r.runs);
    const box = boxOf(eqRuns);
    const em = Math.max(...cluster.map((r) => r.size));
    const segments = page.rules.filter(
      (s) =>
        Math.abs(s.y1 - s.y2) < 1 &&
        Math.min(s.x1, s.x2) >= box.x0 - 0.5 * em &&
        Math.max(s.x1, s.x2) <= box.x1 + 0.5 * em &&
        s.y1 > box.y0 - 0.3 * em &&
        s.y1 < box.y1 + 0.3 * em,
    );
    const { latex, notes } = equationLatex(given(eqRuns), segments);
    if (latex === '') continue;
    const numbered = cluster.find((r) => r.number !== null);
    const number = numbered?.number ?? null;
    equations.push({
      ...boxOf(eqRuns, segments),
      latex: number ? `${latex} \\tag{${number}}` : latex,
      body: latex,
      number,
      runs: given(numbered?.numberRun ? [...eqRuns, numbered.numberRun] : eqRuns),
      notes,
    });
  }
  return equations.sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
};
