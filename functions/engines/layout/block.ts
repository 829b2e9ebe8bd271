import type { ProviderElement } from '../../core/ports/page-provider.js';
import { isLinkText } from './inline.js';
import { rowOf, type Fragment } from './lines.js';
import { renderTable } from './markdown.js';
import type { Table } from './tables.js';
import type { TextRun } from './types.js';

/**
 * What the block-classification stage calls a block: `title` and `heading` are Markdown
 * headings (`#`…), `caption` a figure or table caption, `code` a fenced block, `formula` a
 * display equation (`$$…$$`).
 */
export type BlockKind =
  'title' | 'heading' | 'paragraph' | 'list_item' | 'code' | 'table' | 'caption' | 'formula';

/**
 * The opening of a caption: `Figure 3`, `Fig. 2:`, `Table IV.`, `Figure 3-11 Selecting …`,
 * `Table 1 (continued)`; not a sentence that cites one (`Table 1 presents …`).
 */
export const CAPTION =
  /^(?:[Ff]igure|FIGURE|[Ff]ig\.|[Tt]able|TABLE|[Ll]isting|[Aa]lgorithm|[Cc]hart|Exhibit|Plate|Scheme)\s*(?:\d+|[IVX]+)(?:[-.–]\d+)*(?:\s*[.:—–-]|\s+[\p{Lu}\d(]|\s*$)/u;

/** A classified block with its Markdown; geometry in pixels of the page image, origin top-left. */
export interface Block {
  kind: BlockKind;
  /** Markdown of the block. */
  markdown: string;
  /** Plain text of the block. */
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Confidence in [0, 1] of the block's classification. */
  confidence: number;
  /** Last line of text (paragraphs), for joining across columns. */
  joinable?: boolean;
  /** A heading only for being a short bold line at body size (it may be a label instead). */
  boldOnly?: boolean;
  /** The table of a `table` block. */
  table?: Table;
}

/** A line of one reading-order region: its fragments left to right. */
export interface Line {
  fragments: Fragment[];
  runs: TextRun[];
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  baseline: number;
  /** Font size in pixels. */
  size: number;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
}

/**
 * The line made of `fragments` (any order), styled bold/italic/monospace only when all are (a line
 * that is only a URL or an e-mail address is never monospace).
 */
export const lineOf = (fragments: Fragment[]): Line => {
  const sorted = fragments.slice().sort((a, b) => a.x0 - b.x0);
  const row = rowOf(sorted);
  const runs = sorted.flatMap((f) => f.runs);
  const text = sorted.map((f) => f.text).join(' ');
  return {
    fragments: sorted,
    runs,
    text,
    x0: row.x0,
    y0: row.y0,
    x1: row.x1,
    y1: row.y1,
    baseline: row.baseline,
    size: row.fontSize,
    bold: sorted.every((f) => f.bold),
    italic: sorted.every((f) => f.italic),
    // A URL or e-mail address set in typewriter (TeX's \url) is a link, not code.
    monospace: sorted.every((f) => f.monospace) && !isLinkText(text),
  };
};

/** The block of a detected table, with the detector's confidence. */
export const tableBlock = (table: Table, confidence: number): Block => ({
  kind: 'table',
  markdown: renderTable(table),
  text: table.cells.map((c) => c.text).join(' '),
  x0: table.x0,
  y0: table.y0,
  x1: table.x1,
  y1: table.y1,
  confidence,
  table,
});

/** A box given by its edges, in pixels. */
export interface Edges {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * `b` as an element bbox (x, y, w, h) clamped inside the `width` × `height` page image, at least
 * one pixel wide and high, rounded to 1/100 px.
 */
export const clampBox = (b: Edges, width: number, height: number): ProviderElement['bbox'] => {
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

const LABEL_OF: Record<BlockKind, ProviderElement['label']> = {
  title: 'paragraph',
  heading: 'paragraph',
  paragraph: 'paragraph',
  caption: 'paragraph',
  list_item: 'list',
  code: 'code',
  table: 'table',
  formula: 'formula',
};

/** The grounding element of a block (`box` places it on the page). */
export const blockElement = (
  b: Block,
  box: (b: Edges) => ProviderElement['bbox'],
): ProviderElement => ({
  text: b.text,
  bbox: box(b),
  label: LABEL_OF[b.kind],
  elementType: b.kind,
  confidence: b.confidence,
});
