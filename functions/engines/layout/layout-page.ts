import { CONTINUED_TABLE } from '../../core/domain/continued-tables.js';
import type { ProviderElement } from '../../core/ports/page-provider.js';
import { blockElement, clampBox, tableBlock, type Block, type Edges } from './block.js';
import { demoteLabels, linesToBlocks } from './classify.js';
import { joinContentsTables } from './contents.js';
import { drawnFigureLabels, figureTexts, framedFigures, placedFigures } from './figures.js';
import { findFurniture } from './furniture.js';
import { expandFormulas, inlineFormulaElements, takeFormulas } from './formulas.js';
import type { DisplayEquation } from '../math/equations.js';
import { mayHoldMath, mathTally } from '../math/find-math.js';
import { dominantFont, markFixedPitch } from './fixed-pitch.js';
import { buildRows, type Fragment } from './lines.js';
import { joinListings } from './listings.js';
import { nestListItems } from './lists.js';
import { withoutProseFrames } from './prose-frames.js';
import { plotLabels } from './plots.js';
import { pageKind } from './ocr-lines.js';
import { joinContinuedParagraphs, readingOrder } from './reading-order.js';
import {
  findRuleBoundedTables,
  findRuledTables,
  placeRotatedText,
  type GridReading,
  type Table,
} from './tables.js';
import { bodySizeOf } from './profile.js';
import { mergeStackedTables } from './table-stack.js';
import { uprightPage, type UprightPage } from './page-rotation.js';
import type { LayoutProfile, PageText, Rect } from './types.js';
import { visibleLength } from './white-space.js';

export { OCR_COLUMN_GAP_RATIO } from './ocr-lines.js';

/** Markdown of one page and its elements (boxes in pixels of the page image). */
export interface PageLayout {
  markdown: string;
  elements: ProviderElement[];
  /** Formulas written as LaTeX, and those KaTeX did not parse (written as text); absent without math. */
  formulas?: { emitted: number; failed: number };
}

/** A block of text with its box (pixels of the page image, origin top-left). */
export interface TextBlock {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * A page's layout with the structure behind it: the cell grids of its tables, its captions and
 * the placed images read as figures (see {@link analyzePage}).
 */
export interface PageAnalysis extends PageLayout {
  /** Detected tables in reading order, cells with their row and column spans. */
  tables: Table[];
  /** Caption blocks (`Figure 2: ...`, `Table 1. ...`, `Listing 3 ...`) in reading order. */
  captions: TextBlock[];
  /** Placed raster images read as figures (not page-sized scans, not icons). */
  figures: Rect[];
  /** Display equations written as `$$…$$`, top to bottom (text-layer pages with math fonts). */
  equations: DisplayEquation[];
}

/**
 * The mark before a table that continues the previous page's table (see {@link Table}); the
 * document's Markdown joins the two when their columns match (`assembleDocumentMarkdown`).
 */
export { CONTINUED_TABLE };

/** A footnote's opening: a superscript number or a note sign (`<sup>1</sup>Our code…`, `† Work done…`). */
const FOOTNOTE = /^(?:<sup>[\d*†‡§]{1,3}<\/sup>|\\\*\s?[^\s*]|[†‡§]\s?\S)/;

/**
 * A footnote: a paragraph opening with a note mark, ending its region in the bottom third of
 * the page.
 */
const isFootnote = (b: Block, height: number): boolean =>
  b.kind === 'paragraph' && b.y0 > height * (2 / 3) && FOOTNOTE.test(b.markdown);

/**
 * Lays out one page: reading order, paragraphs, headings, lists, code, tables and page
 * furniture, rendered as Markdown (furniture excluded) with one element per block.
 *
 * Works on any {@link PageText}: PDF text layers and OCR words alike. Geometry and sizes are in
 * the page's pixels; the profile's sizes are in points and scaled by `page.dpi / 72`.
 *
 * @returns Markdown (blocks separated by blank lines) and elements in reading order, boxes
 *   clamped inside the page.
 */
export const layoutPage = (page: PageText, profile: LayoutProfile): PageLayout => {
  const { markdown, elements, formulas } = analyzePage(page, profile);
  return { markdown, elements, ...(formulas ? { formulas } : {}) };
};

/**
 * Lays out one page like {@link layoutPage} and also returns the structure it found: the cell
 * grids of the tables (ruled, rule-bounded and unruled alike, spans included), the caption
 * blocks and the figures, all in pixels of the page image.
 *
 * @param reading how exactly table grids are read ({@link GridReading}; the default is the
 *   reading of {@link layoutPage}).
 */
export const analyzePage = (
  page: PageText,
  profile: LayoutProfile,
  reading: GridReading = {},
): PageAnalysis => {
  // A page whose text runs at a right angle is laid out turned upright (see page-rotation.ts).
  const upright = uprightPage(page);
  if (upright === undefined) return analyzeUprightPage(page, profile, reading);
  return turnedBack(analyzeUprightPage(upright.page, profile, reading), upright, page);
};

/**
 * The analysis of a page turned upright ({@link uprightPage}) with its boxes turned back to
 * the page image: elements, figures, captions, tables and equations (a table's column edges,
 * which run the other way on the image, are left out).
 */
const turnedBack = (analysis: PageAnalysis, upright: UprightPage, page: PageText): PageAnalysis => {
  const edges = <T extends Edges>(b: T): T => {
    const r = upright.toImage({ x: b.x0, y: b.y0, w: b.x1 - b.x0, h: b.y1 - b.y0 });
    return { ...b, x0: r.x, y0: r.y, x1: r.x + r.w, y1: r.y + r.h };
  };
  return {
    ...analysis,
    elements: analysis.elements.map((e) => {
      const r = upright.toImage(e.bbox);
      return {
        ...e,
        bbox: clampBox({ x0: r.x, y0: r.y, x1: r.x + r.w, y1: r.y + r.h }, page.width, page.height),
      };
    }),
    figures: analysis.figures.map((f) => upright.toImage(f)),
    captions: analysis.captions.map(edges),
    tables: analysis.tables.map((t) => {
      const turned = edges(t);
      delete turned.columns;
      return turned;
    }),
    equations: analysis.equations.map(edges),
  };
};

const analyzeUprightPage = (
  page: PageText,
  profile: LayoutProfile,
  reading: GridReading,
): PageAnalysis => {
  const scale = page.dpi / 72;
  const localBody = bodySizeOf(page.runs);
  const body = profile.bodySize > 0 ? profile.bodySize * scale : localBody || 12 * scale;
  const box = (b: Edges) => clampBox(b, page.width, page.height);

  // A page set mostly in one monospace font (typewriter scans, OCR layers) is not code.
  let monoChars = 0;
  let allChars = 0;
  for (const r of page.runs) {
    const n = visibleLength(r.text);
    allChars += n;
    if (r.monospace) monoChars += n;
  }
  // Otherwise fonts of one advance per glyph are monospace whatever their flags say (a listing
  // font without the fixed-pitch flag), on text layers.
  const runs =
    monoChars > allChars * 0.6
      ? page.runs.map((r) => ({ ...r, monospace: false }))
      : page.runs.some((r) => r.confidence !== undefined)
        ? page.runs
        : markFixedPitch(page.runs, profile.bodyFont ?? dominantFont(page.runs));

  // 1. Ruled tables claim their runs first.
  // Frames around running text are not tables.
  const ruled = withoutProseFrames(findRuledTables(page.rules, runs, scale, reading), page.rules);
  let free = runs.filter((r) => !ruled.used.has(r));
  let rules = ruled.rules;
  let pageRules = page.rules;
  // Display equations outside the ruled tables and placed figures take their runs; inline
  // formulas are read line by line (see styledText). Pages without math fonts skip both.
  const math = mayHoldMath(page.runs) ? mathTally() : undefined;
  let equations: DisplayEquation[] = [];
  if (math) {
    const exclude = [
      ...ruled.tables,
      ...placedFigures(page, scale).map((f) => ({
        x0: f.x,
        y0: f.y,
        x1: f.x + f.w,
        y1: f.y + f.h,
      })),
    ];
    const taken = takeFormulas(page, free, page.rules, exclude, body, math);
    equations = taken.equations;
    free = taken.runs;
    pageRules = taken.rules;
    const kept = new Set(pageRules);
    rules = rules.filter((s) => kept.has(s));
  }
  const allRows = buildRows(free);
  const kind = { ...pageKind(page.runs, allRows, body, page.rules), ...(math ? { math } : {}) };

  // 2. Running headers, footers and page numbers.
  const furniture = findFurniture(allRows, page.height, profile, box);
  const elements: ProviderElement[] = [...furniture.elements];
  const rows = allRows.filter((r) => !furniture.rows.has(r));

  // 3. Tables bounded by horizontal rules.
  const bounded = findRuleBoundedTables(rules, rows, page.width, page.height, scale);
  // A header band between rules over a ruled grid, or summary rows under it, are one table
  // when no text stands between them.
  const textBetween = (x0: number, y0: number, x1: number, y1: number): boolean =>
    rows.some((r) =>
      r.fragments.some((f) => {
        const cy = (f.y0 + f.y1) / 2;
        return !bounded.used.has(f) && cy > y0 && cy < y1 && f.x1 > x0 && f.x0 < x1;
      }),
    );
  const tables = mergeStackedTables([...ruled.tables, ...bounded.tables], 1.5 * body, textBetween);
  const rotated = placeRotatedText(tables, rows);

  // 4. Figures: text inside a placed image, or inside the frame of a drawing captioned as a
  // figure, is part of the figure (its caption excepted).
  const figures = [
    ...placedFigures(page, scale),
    ...framedFigures(
      rows.map((r) => ({ ...r, fragments: r.fragments.filter((f) => !bounded.used.has(f)) })),
      pageRules,
      page,
      scale,
    ),
  ];
  const figureText = figureTexts(rows, figures);
  const placed = (f: Fragment) =>
    bounded.used.has(f) || rotated.has(f) || figureText.members.has(f);
  // The labels of plots (axes with tick marks), then rotated labels of other vector drawings,
  // go with the drawing.
  const plots = plotLabels(rows, pageRules, placed, scale, body);
  const rotatedLabels = drawnFigureLabels(
    rows,
    pageRules,
    (f) => placed(f) || plots.members.has(f),
    scale,
  );
  const drawn = {
    figures: [...plots.figures, ...rotatedLabels.figures],
    members: new Set([...plots.members, ...rotatedLabels.members]),
  };

  // 5. Reading order by XY-cut over fragments and table boxes.
  const regions = readingOrder(
    rows,
    tables,
    (f) =>
      bounded.used.has(f) || rotated.has(f) || figureText.members.has(f) || drawn.members.has(f),
    body,
    kind,
  );

  // 6. Blocks per region; footnotes closing a column go to the page's end.
  const blocks: Block[] = [];
  const footnotes: Block[] = [];
  for (const region of regions) {
    const start = blocks.length;
    // Tables take their place among the region's lines (a caption above its table stays above).
    let rest = region.lines;
    for (const t of region.tables.slice().sort((a, b) => a.y0 - b.y0)) {
      const before = rest.filter((l) => (l.y0 + l.y1) / 2 < t.y0);
      rest = rest.filter((l) => (l.y0 + l.y1) / 2 >= t.y0);
      blocks.push(...linesToBlocks(before, profile, body, scale, kind));
      blocks.push(tableBlock(t, t.ruled ? 0.85 : 0.7));
    }
    blocks.push(...linesToBlocks(rest, profile, body, scale, kind));
    const last = blocks[blocks.length - 1];
    if (blocks.length > start && last && isFootnote(last, page.height)) {
      footnotes.push(last);
      blocks.pop();
    }
  }
  blocks.push(...footnotes);
  // Display equations written inline (inside a list item or a table) are grounded as formulas.
  const inlined: DisplayEquation[] = [];
  blocks.splice(
    0,
    blocks.length,
    ...joinListings(joinContentsTables(expandFormulas(blocks, equations, inlined)), body),
  );
  // Nested over the whole page: a region boundary (an equation, a figure beside the list) does
  // not end a list.
  nestListItems(blocks, body);
  demoteLabels(blocks);
  // A table that opens a page after the first, without a caption, continues the previous
  // page's table: said in the Markdown, for the document to join them (the columns decide).
  const opening = blocks[0];
  if (page.pageNumber > 1 && opening?.kind === 'table' && opening.table) {
    opening.table.continued = true;
    opening.markdown = `${CONTINUED_TABLE}\n${opening.markdown}`;
  }

  // 7. Paragraphs broken by a column or page-region change are joined back (in the Markdown;
  // each part keeps its own element).
  const merged = joinContinuedParagraphs(blocks);
  for (const b of blocks) elements.push(blockElement(b, box));
  figures.forEach((im, k) => {
    elements.push({
      text: figureText.texts[k] ?? '',
      bbox: box({ x0: im.x, y0: im.y, x1: im.x + im.w, y1: im.y + im.h }),
      label: 'figure',
      elementType: 'figure',
      confidence: 0.7,
    });
  });
  for (const d of drawn.figures) {
    elements.push({
      text: d.text,
      bbox: box({ x0: d.box.x, y0: d.box.y, x1: d.box.x + d.box.w, y1: d.box.y + d.box.h }),
      label: 'figure',
      elementType: 'figure',
      confidence: 0.6,
    });
  }
  if (math) elements.push(...inlineFormulaElements(math, inlined, box));
  const markdown = merged
    .map((b) => b.markdown)
    .filter((m) => m.trim() !== '')
    .join('\n\n');
  return {
    markdown,
    elements,
    ...(math
      ? { formulas: { emitted: equations.length + math.inline.length, failed: math.failed } }
      : {}),
    tables: blocks.flatMap((b) => (b.table ? [b.table] : [])),
    captions: blocks
      .filter((b) => b.kind === 'caption')
      .map(({ text, x0, y0, x1, y1 }) => ({ text, x0, y0, x1, y1 })),
    figures,
    equations,
  };
};
