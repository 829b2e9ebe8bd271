import { CAPTION, lineOf, type Block, type Line } from './block.js';
import { vocabularyOf } from './hyphenation.js';
import { joinTwo } from './inline.js';
import { makeFragment, type Fragment, type Row } from './lines.js';
import { splitBySize, type PageKind } from './ocr-lines.js';
import { median, type Table } from './tables.js';
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
  const regions = xyCut(items, { rules }).map((leaf) => {
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
  return kind.ocr ? regions : joinStackedLines(regions, rows);
};

/** The median distance between consecutive baselines of `lines` (0 for fewer than two). */
const leading = (lines: readonly Line[]): number => {
  const deltas: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const a = lines[i - 1];
    const b = lines[i];
    if (a && b && b.baseline > a.baseline) deltas.push(b.baseline - a.baseline);
  }
  return median(deltas);
};

/**
 * The line pitch of the page's text set in `size` pixels (within 12%): the median distance
 * between consecutive baselines of that size inside regions of two lines or more (captions
 * aside, often set tighter than the text), where a paragraph's lines stand together; else
 * between consecutive rows of the page that overlap across it (a page whose every line is a
 * region of its own); 0 without either.
 */
const pagePitch = (regions: readonly Region[], rows: readonly Row[], size: number): number => {
  const near = (s: number): boolean => Math.abs(s - size) <= 0.12 * Math.max(s, size);
  const inside: number[] = [];
  for (const { lines } of regions) {
    if (lines.length < 2 || CAPTION.test(lines[0]?.text ?? '')) continue;
    for (let i = 1; i < lines.length; i++) {
      const a = lines[i - 1];
      const b = lines[i];
      if (a && b && near(a.size) && near(b.size) && b.baseline > a.baseline) {
        inside.push(b.baseline - a.baseline);
      }
    }
  }
  if (inside.length > 0) return median(inside);
  const across: number[] = [];
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1];
    const b = rows[i];
    if (!a || !b || b.x0 >= a.x1 || a.x0 >= b.x1 || !near(a.fontSize) || !near(b.fontSize)) {
      continue;
    }
    if (b.baseline > a.baseline) across.push(b.baseline - a.baseline);
  }
  return median(across);
};

/** Lines either side of a line that tell whether it runs to its column's edge. */
const NEIGHBOURS = 20;

const joinStackedLines = (regions: readonly Region[], rows: readonly Row[]): Region[] => {
  const all = regions.flatMap((r) => r.lines);
  const index = new Map(all.map((l, i) => [l, i]));
  // A line runs to the right edge of its column when no other line near it in reading order
  // (20 either side) starting within 4 em of it reaches 2 em further, and two of them end as
  // far as it within 1 em (justified text; a page's longest line alone is no edge).
  const full = (line: Line): boolean => {
    const em = line.size;
    const i = index.get(line) ?? 0;
    const others = all
      .slice(Math.max(0, i - NEIGHBOURS), i + NEIGHBOURS + 1)
      .filter((l) => l !== line && Math.abs(l.x0 - line.x0) < 4 * em);
    return (
      others.every((l) => l.x1 < line.x1 + 2 * em) &&
      others.filter((l) => l.x1 >= line.x1 - em).length >= 2
    );
  };
  const pitches = new Map<number, number>();
  const pitchFor = (size: number): number => {
    let pitch = pitches.get(size);
    if (pitch === undefined) {
      pitch = pagePitch(regions, rows, size);
      pitches.set(size, pitch);
    }
    return pitch;
  };
  const out: Region[] = [];
  // The horizontal span of each region of `out`, and its leading (its own where it has two
  // lines or more, else the pitch its lines were joined at), kept as lines join it.
  const spans: Span[] = [];
  const leadings: number[] = [];
  for (const region of regions) {
    const prev = out[out.length - 1];
    const above = spans[spans.length - 1];
    const a = prev?.lines[prev.lines.length - 1];
    const b = region.lines[0];
    const below = spanOf(region.lines);
    const own = leading(region.lines);
    // The leading of the paragraph above (or below), else the page's for that size.
    const pitch = a ? leadings[leadings.length - 1] || own || pitchFor(a.size) : 0;
    if (
      prev &&
      above &&
      a &&
      b &&
      prev.tables.length === 0 &&
      region.tables.length === 0 &&
      stacked(a, b, pitch) &&
      sameColumn(above, below, b.size) &&
      full(a)
    ) {
      prev.lines.push(...region.lines);
      spans[spans.length - 1] = {
        x0: Math.min(above.x0, below.x0),
        x1: Math.max(above.x1, below.x1),
      };
      leadings[leadings.length - 1] = pitch;
      continue;
    }
    out.push({ tables: [...region.tables], lines: [...region.lines] });
    spans.push(below);
    leadings.push(own);
  }
  return out;
};

interface Span {
  x0: number;
  x1: number;
}

const spanOf = (lines: readonly Line[]): Span => {
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const l of lines) {
    x0 = Math.min(x0, l.x0);
    x1 = Math.max(x1, l.x1);
  }
  return { x0, x1 };
};

/** `b` is the line after `a` at the line pitch (within 15%), in a type size within 12%. */
const stacked = (a: Line, b: Line, pitch: number): boolean => {
  const delta = b.baseline - a.baseline;
  return (
    pitch > 0 &&
    b.y0 >= a.y1 - 0.2 * a.size &&
    delta > 0 &&
    delta <= 1.15 * pitch &&
    Math.abs(a.size - b.size) <= 0.12 * Math.max(a.size, b.size)
  );
};

/** Two runs of lines share a column: their spans overlap over 80% of the narrower one. */
const sameColumn = (above: Span, below: Span, em: number): boolean => {
  const overlap = Math.min(above.x1, below.x1) - Math.max(above.x0, below.x0);
  return (
    overlap >= 0.8 * Math.min(above.x1 - above.x0, below.x1 - below.x0) &&
    Math.abs(above.x0 - below.x0) < 4 * em
  );
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
