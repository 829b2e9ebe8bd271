import { lineOf, type Block, type Line } from './block.js';
import { vocabularyOf } from './hyphenation.js';
import { joinTwo } from './inline.js';
import { makeFragment, type Fragment, type Row } from './lines.js';
import { splitBySize, type PageKind } from './ocr-lines.js';
import type { Table } from './tables.js';
import { xyCut, type CutItem } from './xy-cut.js';
import { visibleLength, wordCount } from './white-space.js';

/** One reading-order region: its tables and its lines top to bottom. */
export interface Region {
  tables: Table[];
  lines: Line[];
}

interface Item extends CutItem {
  fragment?: Fragment;
  rowIndex: number;
  table?: Table;
}

/**
 * Reading-order stage: recursive XY-cut ({@link xyCut}) over the body fragments and the table
 * boxes gives the page's regions in reading order; within a region, fragments of one row form a
 * line (on OCR pages, split by size: {@link splitBySize}), lines sorted by baseline.
 *
 * @param rows body rows (furniture removed), top to bottom.
 * @param skip fragments that belong elsewhere (rule-bounded tables, figures).
 * @param body the page's body font size in pixels (the em of table boxes).
 */
export const readingOrder = (
  rows: readonly Row[],
  tables: readonly Table[],
  skip: (f: Fragment) => boolean,
  body: number,
  kind: PageKind,
): Region[] => {
  const items: Item[] = [];
  rows.forEach((row, rowIndex) => {
    for (const f of row.fragments.flatMap((g) => (skip(g) ? [g] : splitAtRules(g, kind)))) {
      if (skip(f)) continue;
      const chars = visibleLength(f.text);
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
  const rules = (kind.verticals ?? []).map((r) => ({
    x: (r.x1 + r.x2) / 2,
    y0: Math.min(r.y1, r.y2),
    y1: Math.max(r.y1, r.y2),
  }));
  return xyCut(items, { rules }).map((leaf) => {
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
    return { tables: leaf.flatMap((i) => (i.table ? [i.table] : [])), lines };
  });
};

/**
 * A fragment cut at the vertical rules of the page (OCR pages) that run between two of its runs
 * across its middle: words of boxes set close together on a form read as one piece of text
 * otherwise, and the rule between their columns could not separate them.
 */
const splitAtRules = (f: Fragment, kind: PageKind): Fragment[] => {
  const verticals = kind.verticals ?? [];
  if (verticals.length === 0 || f.runs.length < 2) return [f];
  const middle = (f.y0 + f.y1) / 2;
  const parts: Fragment[] = [];
  let current = [f.runs[0]].filter((r) => r !== undefined);
  for (const run of f.runs.slice(1)) {
    const prev = current[current.length - 1];
    const right = prev ? prev.x + prev.w : -Infinity;
    const cut = verticals.some((r) => {
      const x = (r.x1 + r.x2) / 2;
      return (
        x >= right && x <= run.x && Math.min(r.y1, r.y2) <= middle && Math.max(r.y1, r.y2) >= middle
      );
    });
    if (cut && current.length > 0) {
      parts.push(makeFragment(current, f.direction));
      current = [];
    }
    current.push(run);
  }
  if (parts.length === 0) return [f];
  if (current.length > 0) parts.push(makeFragment(current, f.direction));
  return parts;
};

/** Blocks that float to the top of a column: tables and their captions. */
const isFloat = (b: Block): boolean => b.kind === 'table' || b.kind === 'caption';

/**
 * The block `b` may continue: the last one so far, or, when floats (a table and its caption)
 * set at the top of the next column stand between, the paragraph before them, when `b` lies in
 * a column to its right and the floats above its end.
 */
const continued = (merged: readonly Block[], b: Block): Block | undefined => {
  let k = merged.length - 1;
  while (k >= 0 && merged[k] && isFloat(merged[k] as Block)) k -= 1;
  const prev = merged[k];
  if (k === merged.length - 1 || !prev) return prev;
  const floats = merged.slice(k + 1);
  const otherColumn = b.x0 >= (prev.x0 + prev.x1) / 2;
  return otherColumn && floats.every((f) => f.y0 < prev.y1 && f.x0 >= b.x0 - (b.x1 - b.x0) * 0.1)
    ? prev
    : merged[merged.length - 1];
};

/**
 * Paragraphs broken by a column or page-region change are joined back: a paragraph whose last
 * line runs to its region's right edge, not ending a sentence, continues into the next paragraph
 * when that starts in lower case (joined as lines of one paragraph are: {@link joinTwo}), also
 * over a table and its caption set at the top of the next column. Returns new blocks;
 * `blocks` is not changed.
 */
export const joinContinuedParagraphs = (blocks: readonly Block[]): Block[] => {
  const merged: Block[] = [];
  for (const original of blocks) {
    const b = { ...original };
    const prev = continued(merged, b);
    if (
      prev &&
      prev.kind === 'paragraph' &&
      b.kind === 'paragraph' &&
      prev.joinable === true &&
      /^\p{Ll}/u.test(b.text) &&
      !/[.!?:]$/.test(prev.text)
    ) {
      const texts = [prev.text, b.text];
      let words: Set<string> | undefined;
      const vocabulary = () => (words ??= vocabularyOf(texts));
      prev.markdown = joinTwo(prev.markdown, b.markdown, vocabulary);
      prev.text = joinTwo(prev.text, b.text, vocabulary);
      prev.joinable = b.joinable;
      continue;
    }
    merged.push(b);
  }
  return merged;
};
