import type { ProviderElement } from '../../core/ports/page-provider.js';
import { type Box, type DisplayEquation } from '../math/equations.js';
import { displayMarkdown, pageEquations, type MathTally } from '../math/find-math.js';
import { delimitersOnTheirLines } from '../math/latex.js';
import type { Block, Edges } from './block.js';
import { escapeBlockStart } from './markdown.js';
import type { PageText, Segment, TextRun } from './types.js';
import { parseHeading } from '../../core/domain/markdown-lines.js';

/**
 * Display equations in the page layout: each equation's runs (and its number) are taken out of
 * the page and one stand-in run takes their place, so that the equation keeps its place in the
 * reading order; the blocks holding a stand-in are then split around it, the equation becoming
 * a `formula` block of its own (`$$…$$ (3)`).
 */

/** The stand-in of equation `k` in the text of lines and blocks. */
const STAND_IN = /\s*\u2045(\d+)\u2046\s*/g;
const standIn = (k: number): string => `\u2045${k}\u2046`;

/** A page's display equations and the runs left for the rest of the layout. */
export interface PageFormulas {
  equations: DisplayEquation[];
  /** The page's runs less the equations', with one stand-in run per equation. */
  runs: TextRun[];
  /** The page's rules less those drawn inside an equation (fraction bars, vincula). */
  rules: Segment[];
}

const within = (s: Segment, b: Box, margin: number): boolean =>
  Math.min(s.x1, s.x2) >= b.x0 - margin &&
  Math.max(s.x1, s.x2) <= b.x1 + margin &&
  Math.min(s.y1, s.y2) >= b.y0 - margin &&
  Math.max(s.y1, s.y2) <= b.y1 + margin;

/**
 * Finds the display equations among `runs` (those KaTeX parses; a failure counts in
 * `tally.failed` and leaves its runs as text) outside the `exclude` boxes (tables, figures), and
 * puts a stand-in run set at `body` size in place of each. Sized delimiters left in running text
 * are put on the baselines of their lines ({@link delimitersOnTheirLines}).
 */
export const takeFormulas = (
  page: PageText,
  runs: readonly TextRun[],
  rules: readonly Segment[],
  exclude: readonly Box[],
  body: number,
  tally: MathTally,
): PageFormulas => {
  const found = pageEquations({ ...page, runs: [...runs] }, exclude);
  tally.failed += found.failed;
  const { equations } = found;
  if (equations.length === 0) {
    return { equations, runs: [...delimitersOnTheirLines(runs)], rules: [...rules] };
  }
  const claimed = new Set(equations.flatMap((e) => e.runs));
  const standIns = equations.map((e, k): TextRun => {
    const baseline = (e.y0 + e.y1) / 2 + 0.35 * body;
    return {
      text: standIn(k),
      x: e.x0,
      y: baseline - 0.8 * body,
      w: Math.max(1, e.x1 - e.x0),
      h: body,
      baseline,
      fontSize: body,
      // No font name: never a math font's run (see isMathRun), whatever the body's font is.
      fontName: '',
      bold: false,
      italic: false,
      monospace: false,
    };
  });
  return {
    equations,
    runs: [...delimitersOnTheirLines(runs.filter((r) => !claimed.has(r))), ...standIns],
    rules: rules.filter((s) => !equations.some((e) => within(s, e, 2))),
  };
};

/** `text` with each stand-in replaced by the inline form of its equation. */
const inlined = (text: string, equations: readonly DisplayEquation[]): string =>
  text.replace(STAND_IN, (_, k: string) => {
    const e = equations[Number(k)];
    return e ? ` $${e.body}$ ` : ' ';
  });

/**
 * The blocks with their stand-ins expanded: a paragraph, caption or heading is split around
 * each, the equation a `formula` block between the parts (the part before it no longer joins a
 * following column; the parts of a heading are paragraphs); in list items, tables and code the
 * equation is written inline (`$…$`) and added to `inline`.
 */
export const expandFormulas = (
  blocks: readonly Block[],
  equations: readonly DisplayEquation[],
  inline: DisplayEquation[] = [],
): Block[] => {
  if (equations.length === 0) return [...blocks];
  const out: Block[] = [];
  for (const b of blocks) {
    if (!b.markdown.includes('\u2045') && !b.text.includes('\u2045')) {
      out.push(b);
      continue;
    }
    if (b.kind === 'list_item' || b.kind === 'table' || b.kind === 'code') {
      out.push({
        ...b,
        markdown: inlined(b.markdown, equations).trim(),
        text: inlined(b.text, equations).trim(),
      });
      for (const [, k] of b.markdown.matchAll(STAND_IN)) {
        const e = equations[Number(k)];
        if (e) inline.push(e);
      }
      continue;
    }
    const heading = b.kind === 'heading' || b.kind === 'title';
    const markdownParts = b.markdown.split(STAND_IN);
    const textParts = b.text.split(STAND_IN);
    // split() with a capture group alternates text and equation numbers.
    for (let i = 0; i < markdownParts.length; i++) {
      const part = markdownParts[i] ?? '';
      if (i % 2 === 1) {
        const e = equations[Number(part)];
        if (!e) continue;
        out.push({
          kind: 'formula',
          markdown: displayMarkdown(e),
          text: e.latex,
          x0: e.x0,
          y0: e.y0,
          x1: e.x1,
          y1: e.y1,
          confidence: 0.85,
        });
        continue;
      }
      // A heading cut by an equation was a heading only for being short: its parts are text.
      const body = i === 0 && heading ? (parseHeading(part)?.text ?? part) : part;
      const markdown = escapeBlockStart(body.trim());
      if (markdown === '') continue;
      const last = i === markdownParts.length - 1;
      out.push({
        ...b,
        kind: b.kind === 'caption' && i === 0 ? 'caption' : 'paragraph',
        markdown,
        text: (textParts[i] ?? body).trim(),
        joinable: last ? b.joinable : false,
      });
    }
  }
  return out;
};

/**
 * The grounding elements of the inline formulas of a page (`formula`, one per `$…$`): those of
 * running text and the display equations written inline.
 */
export const inlineFormulaElements = (
  tally: MathTally,
  equations: readonly DisplayEquation[],
  box: (b: Edges) => ProviderElement['bbox'],
): ProviderElement[] => [
  ...equations.map((e): ProviderElement => ({
    text: e.latex,
    bbox: box(e),
    label: 'formula',
    elementType: 'formula',
    confidence: 0.8,
  })),
  ...tally.inline.map((f): ProviderElement => ({
    text: f.latex,
    bbox: box(f),
    label: 'formula',
    elementType: 'inline_formula',
    confidence: 0.8,
  })),
];
