import type { ProviderElement } from '../../core/ports/page-provider.js';
import {
  buildRows,
  foldText,
  isPageNumberText,
  makeFragment,
  rowOf,
  rowText,
  type Fragment,
  type Row,
} from './lines.js';
import { escapeBlockStart, escapeInline, renderTable } from './markdown.js';
import { bandRows, HEADING_SIZE_RATIO } from './profile.js';
import {
  findRuleBoundedTables,
  findRuledTables,
  median,
  streamTable,
  type GridReading,
  type Table,
} from './tables.js';
import type { LayoutProfile, PageText, Rect, TextRun } from './types.js';
import { xyCut, type CutItem } from './xy-cut.js';

/** Markdown of one page and its elements (boxes in pixels of the page image). */
export interface PageLayout {
  markdown: string;
  elements: ProviderElement[];
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
}

type BlockKind = 'title' | 'heading' | 'paragraph' | 'list_item' | 'code' | 'table' | 'caption';

interface Block {
  kind: BlockKind;
  /** Markdown of the block. */
  markdown: string;
  /** Plain text of the block. */
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  confidence: number;
  /** Last line of text (paragraphs), for joining across columns. */
  joinable?: boolean;
  /** A heading only for being a short bold line at body size (it may be a label instead). */
  boldOnly?: boolean;
  /** The table of a `table` block. */
  table?: Table;
}

interface Line {
  fragments: Fragment[];
  runs: TextRun[];
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  baseline: number;
  size: number;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
}

interface Item extends CutItem {
  fragment?: Fragment;
  rowIndex: number;
  table?: Table;
}

const BULLET = /^([•◦▪▫‣●○■□►▶➢✓✔◆◇·∙⁃–—*-]|[\uE000-\uF8FF])\s*/;
const ENUMERATOR = /^(\(?(?:\d{1,3}|[a-z]|[ivx]{1,5})[.)])\s+/i;
const NUMBERED_HEADING =
  /^(?:(?:chapter|section|part|appendix)\s+\S+|\d{1,2}(?:\.\d{1,2})*\.?|[A-Z]\.(?:\d{1,2}\.?)*|[IVX]{1,5}\.)\s+\S/i;
const CAPTION = /^(?:figure|fig\.|table|listing|algorithm|chart)\s*[\dIVX]+[.:]?/i;
/** A multi-level section number followed by a capitalised title (`5.1 Hyper Parameters`). */
const SECTION_NUMBER_TITLE = /^\d{1,2}(?:\.\d{1,2})+\.?\s+\p{Lu}/u;
/** A form field (`Ship Date: 13 September`, `SID#: N/A`): a label, a colon, a value. */
const FORM_FIELD = /^[^:]{1,40}:\s+\S/;
/** A vertical rule read as text by OCR. */
const RULE_GLYPH = /^[|¦]$/;
/** On OCR pages, a word gap wider than this many typical word gaps separates table cells. */
export const OCR_COLUMN_GAP_RATIO = 2.5;

/**
 * How a page's text was produced. OCR pages (every run carries a confidence) have no styles and
 * noisy sizes, and their words are runs: their table cells are found from word gaps.
 */
interface PageKind {
  ocr: boolean;
  /** Smallest word gap (pixels) read as a column gap in OCR tables; Infinity otherwise. */
  columnGap: number;
}

const lineOf = (fragments: Fragment[]): Line => {
  const sorted = fragments.slice().sort((a, b) => a.x0 - b.x0);
  const row = rowOf(sorted);
  const runs = sorted.flatMap((f) => f.runs);
  return {
    fragments: sorted,
    runs,
    text: sorted.map((f) => f.text).join(' '),
    x0: row.x0,
    y0: row.y0,
    x1: row.x1,
    y1: row.y1,
    baseline: row.baseline,
    size: row.fontSize,
    bold: sorted.every((f) => f.bold),
    italic: sorted.every((f) => f.italic),
    monospace: sorted.every((f) => f.monospace),
  };
};

const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const letters = (text: string): number => (text.match(/\p{L}/gu) ?? []).length;

/**
 * Renders the runs of a line with emphasis: bold or italic stretches shorter than the whole
 * block are wrapped in `**` / `*`.
 */
const styledText = (runs: readonly TextRun[], blockBold: boolean, blockItalic: boolean): string => {
  let out = '';
  let prev: TextRun | undefined;
  let open: 'b' | 'i' | '' = '';
  const close = (): void => {
    if (open === '') return;
    const trailing = /\s+$/.exec(out)?.[0] ?? '';
    out = out.slice(0, out.length - trailing.length) + (open === 'b' ? '**' : '*') + trailing;
    open = '';
  };
  for (const run of runs) {
    const text = run.text.replace(/\s+/g, ' ');
    if (prev) {
      const gap = run.x - (prev.x + prev.w);
      if (
        gap > 0.18 * Math.min(prev.fontSize, run.fontSize) &&
        !/\s$/.test(out) &&
        !/^\s/.test(text)
      ) {
        out += ' ';
      }
    }
    const style: 'b' | 'i' | '' =
      letters(text) >= 2 && run.bold && !blockBold
        ? 'b'
        : letters(text) >= 2 && run.italic && !blockItalic && !run.bold
          ? 'i'
          : '';
    if (style !== open) {
      close();
      if (style !== '') {
        const leading = /^\s*/.exec(text)?.[0] ?? '';
        out += leading + (style === 'b' ? '**' : '*');
        out += escapeInline(text.slice(leading.length));
        open = style;
        prev = run;
        continue;
      }
    }
    out += escapeInline(text);
    prev = run;
  }
  close();
  return out.replace(/\s+/g, ' ').trim();
};

/** Joins the lines of a paragraph: undoes end-of-line hyphenation, otherwise adds a space. */
const joinLines = (parts: readonly string[]): string => {
  let out = '';
  for (const part of parts) {
    const p = part.trim();
    if (p === '') continue;
    if (out === '') out = p;
    else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(p)) out = out.slice(0, -1) + p;
    else out += ` ${p}`;
  }
  return out;
};

const clampBox = (
  b: { x0: number; y0: number; x1: number; y1: number },
  width: number,
  height: number,
): { x: number; y: number; w: number; h: number } => {
  const x = Math.min(Math.max(0, b.x0), Math.max(0, width - 1));
  const y = Math.min(Math.max(0, b.y0), Math.max(0, height - 1));
  const x1 = Math.min(width, Math.max(b.x1, x + 1));
  const y1 = Math.min(height, Math.max(b.y1, y + 1));
  return {
    x: Math.round(x * 100) / 100,
    y: Math.round(y * 100) / 100,
    w: Math.max(0.01, Math.round((x1 - x) * 100) / 100),
    h: Math.max(0.01, Math.round((y1 - y) * 100) / 100),
  };
};

/** The font size (px) carrying the most characters on this page. */
const pageBodySize = (runs: readonly TextRun[]): number => {
  const weight = new Map<number, number>();
  for (const r of runs) {
    const key = Math.round(r.fontSize * 2) / 2;
    weight.set(key, (weight.get(key) ?? 0) + r.text.replace(/\s+/g, '').length);
  }
  let best = 0;
  let size = 0;
  for (const [k, w] of weight) {
    if (w > best) {
      best = w;
      size = k;
    }
  }
  return size;
};

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
  const { markdown, elements } = analyzePage(page, profile);
  return { markdown, elements };
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
  const scale = page.dpi / 72;
  const localBody = pageBodySize(page.runs);
  const body = profile.bodySize > 0 ? profile.bodySize * scale : localBody || 12 * scale;
  const elements: ProviderElement[] = [];
  const box = (b: { x0: number; y0: number; x1: number; y1: number }) =>
    clampBox(b, page.width, page.height);

  // A page set mostly in one monospace font (typewriter scans, OCR layers) is not code.
  let monoChars = 0;
  let allChars = 0;
  for (const r of page.runs) {
    const n = r.text.replace(/\s+/g, '').length;
    allChars += n;
    if (r.monospace) monoChars += n;
  }
  const runs =
    monoChars > allChars * 0.6 ? page.runs.map((r) => ({ ...r, monospace: false })) : page.runs;

  // 1. Ruled tables claim their runs first.
  const ruled = findRuledTables(page.rules, runs, scale, reading);
  const freeRuns = runs.filter((r) => !ruled.used.has(r));
  let rows = buildRows(freeRuns);
  const kind = pageKind(page.runs, rows, body);

  // 2. Running headers, footers and page numbers.
  const furniture = new Set<Row>();
  const { top, bottom } = bandRows(rows, page.height);
  const signatures = { top: new Set(profile.headers), bottom: new Set(profile.footers) };
  const isFurniture = (row: Row, band: 'top' | 'bottom'): boolean => {
    const text = rowText(row);
    if (isPageNumberText(text)) return true;
    if (signatures[band].has(foldText(text))) return true;
    if (!/[\p{L}\p{N}]/u.test(text)) return true;
    if (wordCount(text) > 24) return false;
    if (row.fragments.some((f) => signatures[band].has(foldText(f.text)))) return true;
    // A page number set well apart from the rest of the line (`400   TITLE   [Ch. XIX.`).
    const frags = row.fragments;
    return frags.some((f, k) => {
      if (!isPageNumberText(f.text)) return false;
      const before = frags[k - 1];
      const after = frags[k + 1];
      const apart = 3 * row.fontSize;
      return (
        (before === undefined || f.x0 - before.x1 > apart) &&
        (after === undefined || after.x0 - f.x1 > apart)
      );
    });
  };
  // A lone page number may sit lower (or higher) than the band.
  const firstRow = rows[0];
  const lastRow = rows[rows.length - 1];
  if (
    firstRow &&
    !top.includes(firstRow) &&
    firstRow.y1 < page.height * 0.25 &&
    isPageNumberText(rowText(firstRow))
  ) {
    top.unshift(firstRow);
  }
  if (
    lastRow &&
    !bottom.includes(lastRow) &&
    lastRow.y0 > page.height * 0.75 &&
    isPageNumberText(rowText(lastRow))
  ) {
    bottom.unshift(lastRow);
  }
  for (const [band, list] of [
    ['top', top],
    ['bottom', bottom],
  ] as const) {
    for (const row of list) {
      if (!isFurniture(row, band)) break;
      furniture.add(row);
      elements.push({
        text: rowText(row),
        bbox: box(row),
        label: band === 'top' ? 'header' : 'footer',
        elementType: isPageNumberText(rowText(row))
          ? 'page_number'
          : band === 'top'
            ? 'header'
            : 'footer',
        confidence: 0.8,
      });
    }
  }
  rows = rows.filter((r) => !furniture.has(r));

  // 3. Tables bounded by horizontal rules.
  const bounded = findRuleBoundedTables(page.rules, rows, page.width, page.height, scale, reading);
  const tables = [...ruled.tables, ...bounded.tables];

  // 4. Figures: text inside a placed image is part of the figure.
  const figures = page.images.filter(
    (im) => im.w * im.h < page.width * page.height * 0.5 && im.w > 8 * scale && im.h > 8 * scale,
  );
  const inFigure = (f: Fragment): boolean => {
    const cx = (f.x0 + f.x1) / 2;
    const cy = (f.y0 + f.y1) / 2;
    return figures.some((im) => cx > im.x && cx < im.x + im.w && cy > im.y && cy < im.y + im.h);
  };

  // 5. Reading order by XY-cut over fragments and table boxes.
  const items: Item[] = [];
  rows.forEach((row, rowIndex) => {
    for (const f of row.fragments) {
      if (bounded.used.has(f) || inFigure(f)) continue;
      const chars = f.text.replace(/\s+/g, '').length;
      items.push({
        x0: f.x0,
        y0: f.y0,
        x1: f.x1,
        y1: f.y1,
        size: f.fontSize,
        chars,
        prose: wordCount(f.text) >= 4 && chars >= 16,
        fragment: f,
        rowIndex,
      });
    }
  });
  for (const t of tables) {
    items.push({
      x0: t.x0,
      y0: t.y0,
      x1: t.x1,
      y1: t.y1,
      size: body,
      chars: 0,
      prose: false,
      rowIndex: -1,
      table: t,
    });
  }
  const leaves = xyCut(items);

  // 6. Blocks per leaf.
  const blocks: Block[] = [];
  for (const leaf of leaves) {
    const leafTables = leaf.filter((i) => i.table).map((i) => i.table as Table);
    for (const t of leafTables) {
      blocks.push(tableBlock(t, t.ruled ? 0.85 : 0.7));
    }
    const byRow = new Map<number, Fragment[]>();
    for (const i of leaf) {
      if (!i.fragment) continue;
      const list = byRow.get(i.rowIndex) ?? [];
      list.push(i.fragment);
      byRow.set(i.rowIndex, list);
    }
    const lines = [...byRow.values()]
      .flatMap((fragments) => (kind.ocr ? splitBySize(fragments) : [fragments]))
      .map(lineOf)
      .sort((a, b) => a.baseline - b.baseline);
    blocks.push(...linesToBlocks(lines, profile, body, scale, kind));
  }

  // 7. A bold line centred over a short plain one (an author's name over the affiliation) is a
  // label, not a section heading: headings introduce longer text.
  blocks.forEach((b, i) => {
    const next = blocks[i + 1];
    if (!b.boldOnly || next?.kind !== 'paragraph' || wordCount(next.text) > 8) return;
    const lineHeight = b.y1 - b.y0;
    const offset = Math.abs((b.x0 + b.x1) / 2 - (next.x0 + next.x1) / 2);
    if (offset > lineHeight || next.y0 - b.y1 > 2 * lineHeight) return;
    b.kind = 'paragraph';
    b.markdown = `**${escapeInline(b.text)}**`;
    delete b.boldOnly;
  });

  // 8. Paragraphs broken by a column or page-region change are joined back (in the Markdown;
  // each part keeps its own element).
  const merged: Block[] = [];
  for (const original of blocks) {
    const b = { ...original };
    const prev = merged[merged.length - 1];
    if (
      prev &&
      prev.kind === 'paragraph' &&
      b.kind === 'paragraph' &&
      prev.joinable === true &&
      /^\p{Ll}/u.test(b.text) &&
      !/[.!?:]$/.test(prev.text)
    ) {
      const hyphen = /\p{Ll}-$/u.test(prev.markdown);
      prev.markdown = hyphen
        ? prev.markdown.slice(0, -1) + b.markdown
        : `${prev.markdown} ${b.markdown}`;
      prev.text = hyphen ? prev.text.slice(0, -1) + b.text : `${prev.text} ${b.text}`;
      prev.joinable = b.joinable;
      continue;
    }
    merged.push(b);
  }
  for (const b of blocks) elementsFor(b, box, elements);
  for (const im of figures) {
    elements.push({
      text: '',
      bbox: box({ x0: im.x, y0: im.y, x1: im.x + im.w, y1: im.y + im.h }),
      label: 'figure',
      elementType: 'figure',
      confidence: 0.7,
    });
  }
  const markdown = merged
    .map((b) => b.markdown)
    .filter((m) => m.trim() !== '')
    .join('\n\n');
  return {
    markdown,
    elements,
    tables: blocks.flatMap((b) => (b.table ? [b.table] : [])),
    captions: blocks
      .filter((b) => b.kind === 'caption')
      .map(({ text, x0, y0, x1, y1 }) => ({ text, x0, y0, x1, y1 })),
    figures,
  };
};

const LABEL_OF: Record<BlockKind, ProviderElement['label']> = {
  title: 'paragraph',
  heading: 'paragraph',
  paragraph: 'paragraph',
  caption: 'paragraph',
  list_item: 'list',
  code: 'code',
  table: 'table',
};

const elementsFor = (
  b: Block,
  box: (b: { x0: number; y0: number; x1: number; y1: number }) => {
    x: number;
    y: number;
    w: number;
    h: number;
  },
  out: ProviderElement[],
): void => {
  out.push({
    text: b.text,
    bbox: box(b),
    label: LABEL_OF[b.kind],
    elementType: b.kind,
    confidence: b.confidence,
  });
};

/**
 * OCR pages: the typical word gap is the median gap between neighbouring words of a fragment; a gap
 * {@link OCR_COLUMN_GAP_RATIO} times wider (and at least half an em) separates table cells.
 */
const pageKind = (runs: readonly TextRun[], rows: readonly Row[], body: number): PageKind => {
  const ocr = runs.length > 0 && runs.every((r) => r.confidence !== undefined);
  if (!ocr) return { ocr, columnGap: Infinity };
  // Gaps inside fragments only: on a page that is mostly table, most gaps between fragments are
  // column gaps.
  const gaps: number[] = [];
  for (const f of rows.flatMap((row) => row.fragments)) {
    for (let k = 1; k < f.runs.length; k++) {
      const a = f.runs[k - 1];
      const b = f.runs[k];
      if (a && b && b.x > a.x + a.w) gaps.push(b.x - (a.x + a.w));
    }
  }
  const wordGap = median(gaps);
  return { ocr, columnGap: Math.max(OCR_COLUMN_GAP_RATIO * wordGap, 0.5 * body) };
};

/**
 * The fragments of one row split into lines of about one size: OCR reads a title and a smaller
 * field beside it (`Uniform ... INVOICE`) as one row.
 */
const splitBySize = (fragments: Fragment[]): Fragment[][] => {
  const groups: Fragment[][] = [];
  for (const f of fragments.slice().sort((a, b) => b.fontSize - a.fontSize)) {
    const group = groups.find((g) => {
      const size = g[0]?.fontSize ?? 0;
      return f.fontSize >= size / HEADING_SIZE_RATIO;
    });
    if (group) group.push(f);
    else groups.push([f]);
  }
  return groups;
};

/**
 * The cells of an OCR line: its words split at gaps wider than `columnGap` and at vertical rules
 * read as `|` (which are dropped).
 */
const ocrCells = (line: Line, columnGap: number): Fragment[] => {
  const cells: Fragment[] = [];
  let current: TextRun[] = [];
  let right = -Infinity;
  for (const run of line.runs) {
    const rule = RULE_GLYPH.test(run.text.trim());
    if (current.length > 0 && (rule || run.x - right > columnGap)) {
      cells.push(makeFragment(current));
      current = [];
    }
    if (rule) continue;
    current.push(run);
    right = run.x + run.w;
  }
  if (current.length > 0) cells.push(makeFragment(current));
  return cells;
};

const headingLevel = (size: number, profile: LayoutProfile, scale: number): number => {
  const pt = size / scale;
  const sizes = profile.headingSizes;
  let bestIndex = -1;
  let bestDistance = Infinity;
  sizes.forEach((s, i) => {
    const d = Math.abs(s - pt);
    if (d < bestDistance) {
      bestDistance = d;
      bestIndex = i;
    }
  });
  if (bestIndex >= 0 && bestDistance <= 0.9) return bestIndex + 1;
  const larger = sizes.filter((s) => s > pt + 0.9).length;
  return larger + 1;
};

const isHeadingText = (text: string): boolean =>
  letters(text) >= 2 &&
  wordCount(text) <= 16 &&
  !CAPTION.test(text) &&
  !/^[\p{P}\p{S}\d\s]+$/u.test(text) &&
  !/[,;]$/.test(text);

/**
 * Whether a line reads like a title: 2 to 8 words, no closing punctuation, and every word of
 * four letters or more capitalised ("Boots Self-Locking Nut", not "see the figure below").
 */
const isTitleLike = (text: string): boolean => {
  const words = text.trim().split(/\s+/);
  if (words.length < 2 || words.length > 8 || /[.,;:!?]$/.test(text.trim())) return false;
  return words.filter((w) => /^\p{L}{4,}/u.test(w)).every((w) => /^\p{Lu}/u.test(w));
};

/** Groups the lines of one leaf into blocks: tables, code, headings, list items, paragraphs. */
const linesToBlocks = (
  lines: Line[],
  profile: LayoutProfile,
  body: number,
  scale: number,
  kind: PageKind,
): Block[] => {
  const blocks: Block[] = [];
  if (lines.length === 0) return blocks;
  const leafX0 = Math.min(...lines.map((l) => l.x0));
  const leafX1 = Math.max(...lines.map((l) => l.x1));
  const deltas: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const a = lines[i - 1];
    const b = lines[i];
    if (a && b) deltas.push(b.baseline - a.baseline);
  }
  const spacing = median(deltas) || body * 1.2;

  // Unruled tables: windows of lines with two or more fragments (cells on OCR pages).
  const cellsOf = (l: Line): Fragment[] => {
    if (!kind.ocr) return l.fragments;
    const cells = ocrCells(l, kind.columnGap);
    return cells.length > 0 ? cells : l.fragments;
  };
  const lineCells = lines.map(cellsOf);
  const cellCount = (k: number): number => lineCells[k]?.length ?? 0;
  const tableRows = (from: number, to: number): Row[] =>
    lineCells.slice(from, to).map((cells) => rowOf(cells));
  const tableAt = new Map<number, { table: Table; end: number }>();
  let i = 0;
  while (i < lines.length) {
    if (cellCount(i) < 2) {
      i++;
      continue;
    }
    let j = i;
    let multi = 0;
    while (j < lines.length) {
      const l = lines[j];
      if (!l) break;
      if (cellCount(j) >= 2) multi++;
      else if (cellCount(j + 1) < 2) break;
      j++;
    }
    if (multi >= 3) {
      const window = tableRows(i, j);
      let table = streamTable(window, { minMultiRows: 3, maxWordsPerCell: 5 });
      let start = i;
      if (table && table.colCount >= 2) {
        // Header lines just above (bold, or split like the columns) belong to the table.
        for (let k = i - 1; k >= Math.max(0, i - 3); k--) {
          const above = lines[k];
          const below = lines[k + 1];
          if (!above || !below || tableAt.has(k)) break;
          const close = below.baseline - above.baseline <= spacing * 1.6;
          const inside = above.x0 >= table.x0 - above.size && above.x1 <= table.x1 + above.size;
          const headerLike = (above.bold || cellCount(k) >= 2) && wordCount(above.text) <= 16;
          if (
            !close ||
            !inside ||
            !headerLike ||
            (above.x0 <= table.x0 + 0.5 * above.size && cellCount(k) < 2)
          )
            break;
          const extended = streamTable(tableRows(k, j), { minMultiRows: 3, maxWordsPerCell: 5 });
          if (!extended || extended.colCount < table.colCount) break;
          table = extended;
          start = k;
        }
        tableAt.set(start, { table, end: j });
        i = j;
        continue;
      }
    }
    i = j > i ? j : i + 1;
  }

  let current: Line[] = [];
  let currentKind: BlockKind = 'paragraph';
  const flush = (): void => {
    if (current.length === 0) return;
    blocks.push(makeBlock(current, currentKind, profile, body, scale, leafX1, kind));
    current = [];
  };
  for (let k = 0; k < lines.length; k++) {
    const table = tableAt.get(k);
    if (table) {
      flush();
      const t = table.table;
      blocks.push(tableBlock(t, 0.65));
      k = table.end - 1;
      continue;
    }
    const line = lines[k];
    if (!line) continue;
    const prev = current[current.length - 1];
    const kind: BlockKind = line.monospace
      ? 'code'
      : BULLET.test(line.text) || (ENUMERATOR.test(line.text) && !line.bold)
        ? 'list_item'
        : 'paragraph';
    if (!prev) {
      current = [line];
      currentKind = kind;
      continue;
    }
    const gap = line.baseline - prev.baseline;
    const sizeChange = Math.abs(line.size - prev.size) > 0.12 * Math.max(line.size, prev.size);
    const styleChange = line.bold !== prev.bold && letters(line.text) > 1 && letters(prev.text) > 1;
    // A short italic line on its own above roman text: a run-in heading ("Elastic Stop Nut").
    const italicLead =
      current.length === 1 &&
      prev.italic &&
      !line.italic &&
      prev.x1 < leafX1 - 3 * prev.size &&
      isTitleLike(prev.text);
    const bigGap = gap > Math.max(spacing * 1.45, prev.size * 1.9) || gap < 0;
    let split = sizeChange || bigGap || styleChange || italicLead;
    if (!split) {
      if (currentKind === 'code') split = kind !== 'code';
      else if (kind === 'code') split = true;
      else if (kind === 'list_item') split = true;
      else if (currentKind === 'list_item') {
        // Continuation lines hang to the right of the marker.
        const first = current[0];
        split = !first || line.x0 < first.x0 + 0.5 * line.size;
        if (split) currentKind = 'list_item';
      } else {
        const indent = line.x0 - prev.x0 > 0.8 * line.size && line.x0 - leafX0 < 4 * line.size;
        const prevShort = prev.x1 < leafX1 - 3 * prev.size && /[.!?:]$/.test(prev.text);
        split = indent || prevShort;
      }
    }
    if (split) {
      flush();
      current = [line];
      currentKind = kind;
    } else {
      current.push(line);
    }
  }
  flush();
  return blocks;
};

const makeBlock = (
  lines: Line[],
  kind: BlockKind,
  profile: LayoutProfile,
  body: number,
  scale: number,
  leafX1: number,
  page: PageKind,
): Block => {
  const x0 = Math.min(...lines.map((l) => l.x0));
  const y0 = Math.min(...lines.map((l) => l.y0));
  const x1 = Math.max(...lines.map((l) => l.x1));
  const y1 = Math.max(...lines.map((l) => l.y1));
  const geometry = { x0, y0, x1, y1 };
  const plain = joinLines(lines.map((l) => l.text));
  if (kind === 'code') {
    const runs = lines.flatMap((l) => l.runs);
    const charWidth =
      runs.reduce((a, r) => a + r.w, 0) /
        Math.max(
          1,
          runs.reduce((a, r) => a + r.text.length, 0),
        ) || body * 0.6;
    const code = lines.map((l) => {
      let text = '';
      let cursor = x0;
      for (const run of l.runs) {
        const pad = Math.round((run.x - cursor) / charWidth);
        if (pad > 0) text += ' '.repeat(Math.min(pad, 80));
        else if (text !== '' && !/\s$/.test(text) && run.x - cursor > 0.1 * charWidth) text += ' ';
        text += run.text;
        cursor = run.x + run.w;
      }
      return text.replace(/\s+$/, '');
    });
    const fence = code.some((c) => c.includes('```')) ? '~~~' : '```';
    return {
      kind,
      markdown: `${fence}\n${code.join('\n')}\n${fence}`,
      text: code.join('\n'),
      ...geometry,
      confidence: 0.8,
    };
  }
  const size = median(lines.map((l) => l.size));
  const allBold = lines.every((l) => l.bold);
  const allItalic = lines.every((l) => l.italic);
  // On OCR pages sizes are estimates: form fields are not headings whatever their size, and a
  // numbered section title at body size is one.
  const ocrField = page.ocr && FORM_FIELD.test(plain);
  if (lines.length <= 3 && isHeadingText(plain) && !ocrField) {
    const larger = size >= body * HEADING_SIZE_RATIO;
    const endsSentence = /[.!?]$/.test(plain) && wordCount(plain) > 6;
    const boldHeading =
      allBold &&
      size >= body * 0.95 &&
      wordCount(plain) <= 12 &&
      !/[.:]$/.test(plain) &&
      !/^\p{Ll}/u.test(plain);
    const numbered =
      (NUMBERED_HEADING.test(plain) &&
        (allBold || size >= body * 1.05) &&
        wordCount(plain) <= 12) ||
      (page.ocr &&
        lines.length === 1 &&
        SECTION_NUMBER_TITLE.test(plain) &&
        !/[.,;:]$/.test(plain) &&
        wordCount(plain) <= 10 &&
        size >= body * 0.85);
    const italicHeading =
      allItalic && lines.length === 1 && size >= body * 0.95 && isTitleLike(plain);
    if ((larger && !endsSentence) || boldHeading || italicHeading || numbered) {
      let level = larger ? headingLevel(size, profile, scale) : profile.headingSizes.length + 1;
      const depth = /^(\d{1,2}(?:\.\d{1,2})+)\s/.exec(plain)?.[1]?.split('.').length;
      if (!larger && depth !== undefined) level = Math.max(level, depth);
      level = Math.min(6, Math.max(1, level));
      const text = escapeInline(plain);
      return {
        kind: level === 1 && size >= body * 1.5 ? 'title' : 'heading',
        markdown: `${'#'.repeat(level)} ${text}`,
        text: plain,
        ...geometry,
        confidence: 0.75,
        ...(boldHeading && !larger && !numbered && !italicHeading ? { boldOnly: true } : {}),
      };
    }
  }
  const parts = lines.map((l) => styledText(l.runs, allBold, allItalic));
  if (kind === 'list_item') {
    const first = parts[0] ?? '';
    const rest = parts.slice(1);
    const bullet = BULLET.exec(lines[0]?.text ?? '');
    const enumerator = ENUMERATOR.exec(lines[0]?.text ?? '');
    let itemText: string;
    let marker: string;
    if (bullet) {
      marker = '-';
      itemText = joinLines([
        first.replace(/^(\\?[•◦▪▫‣●○■□►▶➢✓✔◆◇·∙⁃–—*-]|[\uE000-\uF8FF])\s*/, ''),
        ...rest,
      ]);
    } else {
      const raw = enumerator?.[1] ?? '';
      marker = /^\d+[.)]$/.test(raw) ? raw : `- ${raw}`;
      itemText = joinLines([first.replace(/^\S+\s+/, ''), ...rest]);
    }
    return {
      kind,
      markdown: `${marker} ${itemText}`.trim(),
      text: plain,
      ...geometry,
      confidence: 0.75,
    };
  }
  const caption = CAPTION.test(plain);
  const last = lines[lines.length - 1];
  return {
    kind: caption ? 'caption' : 'paragraph',
    markdown: escapeBlockStart(joinLines(parts)),
    text: plain,
    ...geometry,
    confidence: 0.85,
    joinable: !caption && last !== undefined && last.x1 >= leafX1 - 2 * last.size,
  };
};

/** The block of a detected table, with the detector's confidence. */
function tableBlock(table: Table, confidence: number): Block {
  return {
    kind: 'table',
    markdown: renderTable(table),
    text: table.cells.map((c) => c.text).join(' '),
    x0: table.x0,
    y0: table.y0,
    x1: table.x1,
    y1: table.y1,
    confidence,
    table,
  };
}
