import { plainText } from '../../core/domain/markdown.js';
import {
  indentWidth,
  isBlockQuote,
  markdownLines,
  type MarkdownLine,
} from '../../core/domain/markdown-lines.js';
import type { OfficeElement, PointBox } from './office-document.js';

/** A Markdown block as the flow layout places it. */
export interface MarkdownBlock {
  kind: 'heading' | 'paragraph' | 'list_item' | 'table' | 'figure' | 'code' | 'quote';
  markdown: string;
  /** Heading level (1-6), or list nesting depth (0 for top-level items). */
  level: number;
}

/** Page size and margins in points. */
export interface FlowPage {
  widthPt: number;
  heightPt: number;
  margins: { top: number; right: number; bottom: number; left: number };
}

/** US Letter with one-inch margins: the page of HTML and Markdown documents. */
export const LETTER_PAGE: FlowPage = {
  widthPt: 612,
  heightPt: 792,
  margins: { top: 72, right: 72, bottom: 72, left: 72 },
};

/** Confidence of flow-layout boxes: the order and the kinds are the document's, the positions estimated. */
export const FLOW_BOX_CONFIDENCE = 0.5;

const FIGURE = /^\s*!\[[^\]]*\]\([^)]*\)\s*$/;

/**
 * Splits Markdown into blocks, reading its lines with the Markdown line model: fenced code,
 * headings, GFM tables, list items (one block per item, continuation lines included), lone images
 * (figures), block quotes and paragraphs (runs of other lines). Blank lines separate blocks.
 */
export function markdownBlocks(markdown: string): MarkdownBlock[] {
  const lines = markdownLines(markdown);
  const blocks: MarkdownBlock[] = [];
  let i = 0;
  const push = (kind: MarkdownBlock['kind'], from: number, to: number, level = 0) => {
    const text = lines.slice(from, to).map((line) => line.text);
    blocks.push({ kind, markdown: text.join('\n'), level });
  };
  const at = (k: number): MarkdownLine => lines[k] ?? BLANK;
  const startsBlock = (line: MarkdownLine): boolean =>
    line.kind !== 'paragraph' && line.kind !== 'math' && line.kind !== 'html';
  while (i < lines.length) {
    const line = at(i);
    const start = i++;
    if (line.kind === 'blank') continue;
    if (line.kind === 'fence') {
      while (at(i).kind === 'code') i++;
      if (at(i).kind === 'fence') i++;
      push('code', start, i);
    } else if (line.heading) {
      push('heading', start, i, line.heading.level);
    } else if (line.kind === 'table') {
      while (at(i).kind === 'table') i++;
      push('table', start, i);
    } else if (FIGURE.test(line.text)) {
      push('figure', start, i);
    } else if (line.item) {
      // Continuation lines: indented deeper than the marker, not items themselves.
      const indent = line.item.indent;
      while (at(i).kind !== 'blank' && !at(i).item && indentWidth(at(i).text) > indent) i++;
      push('list_item', start, i, Math.floor(indent / 2));
    } else if (isBlockQuote(line.text)) {
      while (isBlockQuote(at(i).text)) i++;
      push('quote', start, i);
    } else {
      while (at(i).kind !== 'blank' && !startsBlock(at(i)) && !FIGURE.test(at(i).text)) i++;
      push('paragraph', start, i);
    }
  }
  return blocks;
}

const BLANK: MarkdownLine = { text: '', kind: 'blank', heading: null, item: null };

const HEADING_SIZE = [0, 20, 16, 14, 12, 12, 12];
const BODY_SIZE = 11;
const LINE_HEIGHT = 1.2;
/** Average glyph width of proportional text, in ems. */
const GLYPH_WIDTH = 0.5;
const FIGURE_HEIGHT = 144;

/**
 * Places blocks top to bottom on a page, at heights estimated from their text (lines of about
 * `width / (0.5 em)` characters at 11 pt, headings larger, tables row by row, figures 2 inches),
 * with half a line between blocks. When the blocks are taller than the text area (a page of a
 * word-processing file is one printed page or more), every box is compressed vertically to fit,
 * keeping the order and relative sizes. The boxes are approximations: confidence
 * {@link FLOW_BOX_CONFIDENCE}.
 */
export function flowLayout(blocks: readonly MarkdownBlock[], page: FlowPage): OfficeElement[] {
  const left = page.margins.left;
  const width = Math.max(72, page.widthPt - page.margins.left - page.margins.right);
  const top = page.margins.top;
  const available = Math.max(72, page.heightPt - page.margins.top - page.margins.bottom);
  const placed: { block: MarkdownBlock; box: PointBox; text: string }[] = [];
  let y = top;
  for (const block of blocks) {
    const text =
      block.kind === 'figure'
        ? (/!\[([^\]]*)\]/.exec(block.markdown)?.[1] ?? '')
        : plainText(block.markdown);
    const indent = block.kind === 'list_item' ? 18 * (block.level + 1) : 0;
    const w = block.kind === 'figure' ? Math.min(width, 288) : width - indent;
    const h = blockHeight(block, text, w);
    placed.push({ block, text, box: { x: left + indent, y, w, h } });
    y += h + (block.kind === 'heading' ? 8 : BODY_SIZE / 2);
  }
  const used = y - top;
  const scale = used > available ? available / used : 1;
  return placed.map(({ block, box, text }) => ({
    text,
    box: {
      x: box.x,
      y: top + (box.y - top) * scale,
      w: box.w,
      h: Math.max(1, box.h * scale),
    },
    ...labelOf(block),
    confidence: FLOW_BOX_CONFIDENCE,
  }));
}

function blockHeight(block: MarkdownBlock, text: string, width: number): number {
  switch (block.kind) {
    case 'figure':
      return FIGURE_HEIGHT;
    case 'heading': {
      const size = HEADING_SIZE[block.level] ?? 12;
      return linesOf(text, width, size) * size * LINE_HEIGHT;
    }
    case 'table': {
      const rows = block.markdown
        .split('\n')
        .filter((l) => !/^\s*\|?\s*:?-{3,}/.test(l))
        .map((l) =>
          l
            .trim()
            .replace(/^\||\|$/g, '')
            .split('|'),
        );
      const size = 10;
      const columns = rows.reduce((max, r) => Math.max(max, r.length), 1);
      return rows.reduce((sum, cells) => {
        const lines = Math.max(1, ...cells.map((c) => linesOf(c.trim(), width / columns, size)));
        return sum + lines * size * LINE_HEIGHT + 4;
      }, 0);
    }
    case 'code': {
      const size = 10;
      const lines = Math.max(1, block.markdown.split('\n').length - 2);
      return lines * size * LINE_HEIGHT;
    }
    case 'paragraph':
    case 'list_item':
    case 'quote':
      return linesOf(text, width, BODY_SIZE) * BODY_SIZE * LINE_HEIGHT;
  }
}

function linesOf(text: string, width: number, size: number): number {
  const perLine = Math.max(1, Math.floor(width / (size * GLYPH_WIDTH)));
  return Math.max(1, Math.ceil(text.length / perLine));
}

function labelOf(block: MarkdownBlock): Pick<OfficeElement, 'label' | 'elementType'> {
  switch (block.kind) {
    case 'heading':
      return { label: 'paragraph', elementType: 'heading' };
    case 'list_item':
      return { label: 'list', elementType: 'list_item' };
    case 'table':
      return { label: 'table', elementType: 'table' };
    case 'figure':
      return { label: 'figure', elementType: 'figure' };
    case 'code':
      return { label: 'code', elementType: 'code' };
    case 'quote':
      return { label: 'paragraph', elementType: 'quote' };
    case 'paragraph':
      return { label: 'paragraph', elementType: 'paragraph' };
  }
}
