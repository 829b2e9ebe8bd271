import { CAPTION, lineOf, tableBlock, type Block, type BlockKind, type Line } from './block.js';
import { findContentsTables } from './contents.js';
import {
  isNumberedCapsTitle,
  isPersonalByline,
  isSectionWord,
  numberedLevel,
  refineHeadings,
  sectionNumber,
} from './headings.js';
import { hasLetters, joinLines, styledText } from './inline.js';
import { codeBlock } from './listings.js';
import { makeFragment, type Fragment } from './lines.js';
import { attachMarkers, BULLET, BULLET_GLYPH, ENUMERATOR, symbolBullets } from './lists.js';
import { escapeBlockStart, escapeInline } from './markdown.js';
import { ocrCells, type PageKind } from './ocr-lines.js';
import type { MathTally } from '../math/find-math.js';
import { isMathLike } from './math-guard.js';
import { bodySizeOf, HEADING_SIZE_RATIO } from './profile.js';
import { median } from './tables.js';
import type { LayoutProfile } from './types.js';
import { findLineTables } from './unruled-tables.js';
import { visibleLength, wordCount } from './white-space.js';

const NUMBERED_HEADING =
  /^(?:(?:chapter|section|part|appendix)\s+\S+|\d{1,2}(?:\.\d{1,2})*\.?|[A-Z]\.(?:\d{1,2}\.?)*|[IVX]{1,5}\.|\(\d{1,2}\))\s+\S/i;
/** A bullet at the start of a line's Markdown (`*` and `-` come escaped; a small one as `<sup>`). */
const MARKDOWN_BULLET = new RegExp(`^(?:<su[bp]>)?\\\\?(?:${BULLET_GLYPH})(?:</su[bp]>)?\\s*`);
/** A multi-level section number followed by a capitalised title (`5.1 Hyper Parameters`). */
const SECTION_NUMBER_TITLE = /^\d{1,2}(?:\.\d{1,2})+\.?\s+\p{Lu}/u;
/** A form field (`Ship Date: 13 September`, `SID#: N/A`): a label, a colon, a value. */
const FORM_FIELD = /^[^:]{1,40}:\s+\S/;
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
  hasLetters(text, 2) &&
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

/**
 * Whether a line of an OCR page may be a title: at body size or larger, 8 letters or more, no
 * digits or commas, and title-like ({@link isTitleLike}).
 */
const isOcrTitleLine = (text: string, size: number, body: number): boolean =>
  size >= body * 0.9 && hasLetters(text, 8) && !/[\d,]/.test(text) && isTitleLike(text);

/** The font carrying the most characters of a line, without its subset prefix (`ABCDEF+`). */
const fontOf = (line: Line): string => {
  const chars = new Map<string, number>();
  let best = '';
  let most = -1;
  for (const r of line.runs) {
    const name = r.fontName.replace(/^[A-Z]{6}\+/, '');
    const n = (chars.get(name) ?? 0) + visibleLength(r.text);
    chars.set(name, n);
    if (n > most) {
      most = n;
      best = name;
    }
  }
  return best;
};

/**
 * Whether a line's letters and digits are all set in bold: symbols from other fonts in it (a
 * dingbat marker, `√` from a CJK font) do not make a bold line plain.
 */
const boldText = (line: Line): boolean => {
  if (line.bold) return true;
  let bold = 0;
  let all = 0;
  for (const r of line.runs) {
    const n = (r.text.match(/[\p{L}\p{N}]/gu) ?? []).length;
    all += n;
    if (r.bold) bold += n;
  }
  return all > 0 && bold === all;
};

/** A glyph of a symbol font without a Unicode mapping (a control character): a list marker. */
const UNMAPPED_MARKER = /^\p{Cc}+\s*/u;

const isCaps = (text: string): boolean =>
  hasLetters(text, 4) && text === text.toUpperCase() && /\p{Lu}/u.test(text);

/**
 * A line that is a section title whatever surrounds it (`I. INTRODUCTION`, a bold or capitalised
 * `Abstract`, `References`): a block of its own.
 */
const standsAlone = (line: Line, body: number): boolean =>
  isNumberedCapsTitle(line.text) ||
  (isSectionWord(line.text) &&
    (line.bold || isCaps(line.text) || line.size >= body * 1.05) &&
    line.size >= body * 0.85);

/**
 * A small label at the start of a large line (`Chapter 1.` at 7 pt beside a 26 pt chapter title)
 * is a line of its own, so that the title is a heading by itself.
 */
const splitLabels = (lines: readonly Line[]): Line[] =>
  lines.flatMap((line) => {
    const [first, ...rest] = line.fragments;
    if (!first) return [line];
    const small = first.runs.findIndex((r) => r.fontSize >= 0.5 * line.size);
    if (small <= 0) return [line];
    const label = first.runs.slice(0, small);
    if (wordCount(label.map((r) => r.text).join(' ')) > 3) return [line];
    const title = makeFragment(first.runs.slice(small));
    return [lineOf([makeFragment(label)]), lineOf([title, ...rest])];
  });

/** The font size (px) carrying the most characters of `lines`. */
const regionBodySize = (lines: readonly Line[]): number => bodySizeOf(lines.flatMap((l) => l.runs));

/**
 * Whether a region's paragraphs are set with a hanging indent (a list of references: each entry's
 * first line flush left, the lines after it indented): a line that runs to the right edge
 * followed by an indented one that the next line goes on under (or that ends the entry) is
 * evidence; an indented line running to the edge followed by a flush one (a paragraph whose first
 * line is set in) is evidence against. Lines opening with a list marker do not count (list items
 * hang their lines too), nor do lines of formulas, nor indented lines that stop short of the
 * right edge before more (a quotation set in on both sides).
 */
const hangingIndents = (
  lines: readonly Line[],
  leafX0: number,
  leafX1: number,
  spacing: number,
): boolean => {
  const full = (l: Line): boolean => l.x1 >= leafX1 - 2 * l.size;
  const flush = (l: Line): boolean => l.x0 - leafX0 < 0.3 * l.size;
  const close = (a: Line, b: Line | undefined): b is Line =>
    b !== undefined && b.baseline - a.baseline <= 1.45 * spacing;
  let hangs = 0;
  let firstIndents = 0;
  for (let i = 0; i + 1 < lines.length; i++) {
    const a = lines[i];
    const b = lines[i + 1];
    const c = lines[i + 2];
    if (!a || !close(a, b) || !full(a) || wordCount(a.text) < 4) continue;
    if (BULLET.test(a.text) || ENUMERATOR.test(a.text) || UNMAPPED_MARKER.test(a.text)) continue;
    if (isMathLike(a.runs) || isMathLike(b.runs)) continue;
    const step = b.x0 - a.x0;
    if (flush(a) && step > 0.8 * b.size && step < 4 * b.size) {
      const goesOn = close(b, c);
      if (!goesOn || (full(b) && Math.abs(c.x0 - b.x0) < 0.3 * c.size)) hangs += 1;
    } else if (flush(b) && -step > 0.8 * a.size && -step < 4 * a.size) {
      firstIndents += 1;
    }
  }
  return hangs > firstIndents;
};

/** Lines after a dash-opened line searched for another item of a flush dash list. */
const DASH_ITEM_LOOKAHEAD = 12;

/**
 * A line of a justified paragraph that happens to open with a dash (`– increases with the total
 * mass`, a parenthetical dash falling at a line start), not a list item: the line before runs to
 * the right edge without closing a sentence or a clause, this line starts at its left edge and
 * runs to the right edge too, its first word is lower-case, and the line after it (if any) starts
 * at the same left edge with no marker. A dash list set flush with its paragraph has short items,
 * or wraps them under their text, or has another item: a line among the next
 * {@link DASH_ITEM_LOOKAHEAD} opening with a dash at the same left edge.
 */
const dashContinues = (
  line: Line,
  prev: Line,
  following: readonly Line[],
  leafX1: number,
): boolean => {
  const em = line.size;
  const full = (l: Line): boolean => l.x1 >= leafX1 - 2 * l.size;
  const next = following[0];
  return (
    /^[–—-]\s+\p{Ll}/u.test(line.text) &&
    !following
      .slice(0, DASH_ITEM_LOOKAHEAD)
      .some((l) => /^[–—-]\s/u.test(l.text) && Math.abs(l.x0 - line.x0) < 0.5 * em) &&
    full(prev) &&
    full(line) &&
    !/[.!?:;]$/.test(prev.text.trim()) &&
    Math.abs(line.x0 - prev.x0) < 0.5 * em &&
    (next === undefined ||
      (Math.abs(next.x0 - line.x0) < 0.5 * em &&
        !BULLET.test(next.text) &&
        next.baseline > line.baseline))
  );
};

/**
 * Whether a line opening with an enumerator (`(2) in analogue with …`) goes on with the
 * paragraph above rather than opening a list item: it starts under the line above, which runs
 * to the region's right edge without closing a sentence or a clause (an equation number or a
 * year wrapped to the start of a line). Text layers only: OCR line edges are too rough to tell
 * a wrapped line from a field of a form.
 */
const enumeratorContinues = (line: Line, prev: Line, leafX1: number): boolean =>
  ENUMERATOR.test(line.text) &&
  prev.x1 >= leafX1 - 2 * prev.size &&
  !/[.!?:;]$/.test(prev.text.trim()) &&
  Math.abs(line.x0 - prev.x0) < 0.5 * line.size;

/**
 * Block-classification stage: groups the lines of one reading-order region into blocks (unruled
 * tables, code, headings, list items, captions, paragraphs). Lines split into a new block at a
 * size or weight change, a gap wider than 1.45 × the region's line spacing, an indent, a list
 * marker, a short line ending a sentence, or (on OCR pages) under a centred title line.
 *
 * @param body the page's body font size in pixels; `scale` pixels per point (profile sizes are
 *   in points).
 */
export const linesToBlocks = (
  regionLines: Line[],
  profile: LayoutProfile,
  body: number,
  scale: number,
  kind: PageKind & { math?: MathTally },
): Block[] => {
  const blocks: Block[] = [];
  if (regionLines.length === 0) return blocks;
  const lines = splitLabels(attachMarkers(symbolBullets(regionLines)));
  const leafX0 = Math.min(...lines.map((l) => l.x0));
  const leafX1 = Math.max(...lines.map((l) => l.x1));
  const deltas: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const a = lines[i - 1];
    const b = lines[i];
    if (a && b) deltas.push(b.baseline - a.baseline);
  }
  const spacing = median(deltas) || body * 1.2;
  const hangingEntries = hangingIndents(lines, leafX0, leafX1, spacing);
  // A region set in much smaller type than the document's body (a flyer bound into a report)
  // has its headings judged against its own text.
  const own = regionBodySize(lines);
  const blockBody = !kind.ocr && own > 0 && own < 0.8 * body ? own : body;
  const ocrPage = kind.ocr;

  // Unruled tables: windows of lines with two or more fragments (cells on OCR pages).
  const cellsOf = (l: Line): Fragment[] => {
    if (!kind.ocr) return l.fragments;
    const cells = ocrCells(l, kind.columnGap, kind.verticals);
    return cells.length > 0 ? cells : l.fragments;
  };
  // Contents entries (lines closed by a dot leader and a page number) come before other tables.
  const tableAt = findContentsTables(lines, spacing);
  const claimed = (start: number, end: number): boolean =>
    [...tableAt.values()].some((t) => t.start < end && start < t.end);
  for (const [start, t] of findLineTables(lines, cellsOf, spacing)) {
    if (!claimed(t.start, t.end)) tableAt.set(start, t);
  }

  let current: Line[] = [];
  let currentKind: BlockKind = 'paragraph';
  const flush = (): void => {
    if (current.length === 0) return;
    blocks.push(makeBlock(current, currentKind, profile, blockBody, scale, leafX1, kind));
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
    const alone = standsAlone(line, body);
    const kind: BlockKind = line.monospace
      ? 'code'
      : !alone &&
          (BULLET.test(line.text) ||
            UNMAPPED_MARKER.test(line.text) ||
            (ENUMERATOR.test(line.text) && !line.bold)) &&
          !(
            prev &&
            currentKind === 'paragraph' &&
            (dashContinues(line, prev, lines.slice(k + 1, k + 1 + DASH_ITEM_LOOKAHEAD), leafX1) ||
              (!ocrPage && enumeratorContinues(line, prev, leafX1)))
          )
        ? 'list_item'
        : 'paragraph';
    if (!prev) {
      current = [line];
      currentKind = kind;
      continue;
    }
    const gap = line.baseline - prev.baseline;
    const sizeDiff = Math.abs(line.size - prev.size) / Math.max(line.size, prev.size);
    const sizeChange = sizeDiff > 0.12;
    // A slightly larger line in another font (a run-in section title set 1 pt up); not a
    // larger line hanging under a list item's text (its wrap, holding a formula set larger).
    const hangsInItem =
      currentKind === 'list_item' &&
      current[0] !== undefined &&
      line.size > prev.size &&
      line.x0 >= current[0].x0 + 0.5 * line.size;
    const fontChange = sizeDiff > 0.04 && fontOf(line) !== fontOf(prev) && !hangsInItem;
    const aloneBefore = current.length === 1 && standsAlone(prev, body);
    const styleChange =
      line.bold !== prev.bold && hasLetters(line.text, 2) && hasLetters(prev.text, 2);
    // A short italic line on its own above roman text: a run-in heading ("Elastic Stop Nut").
    const italicLead =
      current.length === 1 &&
      prev.italic &&
      !line.italic &&
      prev.x1 < leafX1 - 3 * prev.size &&
      isTitleLike(prev.text);
    const bigGap = gap > Math.max(spacing * 1.45, prev.size * 1.9) || gap < 0;
    // On an OCR page (no weights known) a complete title line centred over another centred
    // title-like line is a title over its subtitle, not one paragraph.
    const titleOverSubtitle =
      ocrPage &&
      current.length === 1 &&
      isOcrTitleLine(prev.text, prev.size, blockBody) &&
      isTitleLike(line.text) &&
      !/(?:^|\s)\p{Ll}+$/u.test(prev.text.trim()) &&
      Math.abs((line.x0 + line.x1) / 2 - (prev.x0 + prev.x1) / 2) < 2 * line.size &&
      line.x0 > prev.x0 + line.size &&
      line.x1 < prev.x1 - line.size;
    let split =
      sizeChange || fontChange || bigGap || styleChange || italicLead || titleOverSubtitle;
    split ||= alone || aloneBefore;
    if (!split) {
      if (currentKind === 'code') split = kind !== 'code';
      else if (kind === 'code') split = true;
      else if (kind === 'list_item') split = true;
      else if (currentKind === 'list_item') {
        // Continuation lines hang to the right of the marker; in a list set flush (no hanging
        // indent) they start under the marker, after a line that runs to the right edge, and a
        // short line closing a sentence ends such an item (an indented line after it opens a
        // paragraph).
        const first = current[0];
        const underMarker = (l: Line): boolean =>
          first !== undefined && Math.abs(l.x0 - first.x0) < 0.5 * l.size;
        const hanging = first !== undefined && line.x0 >= first.x0 + 0.5 * line.size;
        const flushWrap = underMarker(line) && prev.x1 >= leafX1 - 2 * prev.size;
        const flushEnd =
          current.slice(1).some(underMarker) &&
          prev.x1 < leafX1 - 3 * prev.size &&
          /[.!?:]$/.test(prev.text);
        split = (!hanging && !flushWrap) || flushEnd;
        if (split) currentKind = 'list_item';
      } else {
        // Centred lines (a title over two lines) start further right without being indented.
        const centred =
          Math.abs((line.x0 + line.x1) / 2 - (prev.x0 + prev.x1) / 2) < line.size &&
          line.x1 < prev.x1 - 0.8 * line.size;
        const indent =
          line.x0 - prev.x0 > 0.8 * line.size && line.x0 - leafX0 < 4 * line.size && !centred;
        const prevShort = prev.x1 < leafX1 - 3 * prev.size && /[.!?:]$/.test(prev.text);
        // Entries set with a hanging indent (references) go on indented and open flush left.
        split = hangingEntries
          ? line.x0 < prev.x0 - 0.8 * line.size || prevShort
          : indent || prevShort;
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

/**
 * Single lines of OCR pages that read like a title (capitalised words, no digits or commas, at
 * body size or larger): headings when the page-level pass finds them centred on the page.
 */
const ocrTitleCandidates = new WeakSet<Block>();

/**
 * The type size of a block's lines: the median weighted by characters, so that a short line in
 * larger type (a formula in a math font wrapped into a list item) does not make the block larger.
 */
const typeSize = (lines: readonly Line[]): number => {
  const sorted = lines
    .map((l) => ({ size: l.size, weight: Math.max(1, visibleLength(l.text)) }))
    .sort((a, b) => a.size - b.size);
  const half = sorted.reduce((sum, l) => sum + l.weight, 0) / 2;
  let seen = 0;
  for (const l of sorted) {
    seen += l.weight;
    if (seen >= half) return l.size;
  }
  return median(lines.map((l) => l.size));
};

/**
 * On an OCR page (no weights known) a title-like line centred on the page's text, well short of
 * its width, is a heading (`Quality System Audit for BioTech Innovations (Pty) Ltd`, not
 * `Page 1 of 7` or an address line).
 */
const promoteCentredTitles = (blocks: Block[]): void => {
  if (blocks.length < 2) return;
  const x0 = Math.min(...blocks.map((b) => b.x0));
  const x1 = Math.max(...blocks.map((b) => b.x1));
  const width = x1 - x0;
  for (const b of blocks) {
    if (b.kind !== 'paragraph' || !ocrTitleCandidates.has(b) || isPersonalByline(b.text)) continue;
    const lineHeight = b.y1 - b.y0;
    const offset = Math.abs((b.x0 + b.x1) / 2 - (x0 + x1) / 2);
    if (b.x1 - b.x0 > 0.8 * width || b.x0 - x0 < 4 * lineHeight) continue;
    if (offset > Math.max(lineHeight, 0.03 * width)) continue;
    b.kind = 'heading';
    b.markdown = `## ${escapeInline(b.text)}`;
  }
};

const makeBlock = (
  lines: Line[],
  kind: BlockKind,
  profile: LayoutProfile,
  body: number,
  scale: number,
  leafX1: number,
  page: PageKind & { math?: MathTally },
): Block => {
  const x0 = Math.min(...lines.map((l) => l.x0));
  const y0 = Math.min(...lines.map((l) => l.y0));
  const x1 = Math.max(...lines.map((l) => l.x1));
  const y1 = Math.max(...lines.map((l) => l.y1));
  const geometry = { x0, y0, x1, y1 };
  const plain = joinLines(lines.map((l) => l.text)).replace(UNMAPPED_MARKER, '');
  if (kind === 'code') return codeBlock(lines, body);
  const size = typeSize(lines);
  const allBold = lines.every((l) => l.bold);
  const allItalic = lines.every((l) => l.italic);
  // On OCR pages sizes are estimates: form fields are not headings whatever their size, and a
  // numbered section title at body size is one.
  const ocrField = page.ocr && FORM_FIELD.test(plain);
  if (lines.length <= 3 && isHeadingText(plain) && !ocrField) {
    // A heading starts with a capital or a number: a lowercase start is a wrapped line's end.
    const larger = size >= body * HEADING_SIZE_RATIO && !/^\p{Ll}+\b/u.test(plain);
    // A question may be a title (`… the tobacco industry: hope or hype?`); a sentence is not.
    const endsSentence = /[.!]$/.test(plain) && wordCount(plain) > 6;
    const boldHeading =
      lines.every(boldText) &&
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
    // `I. INTRODUCTION`, `Abstract` in bold: section titles at body size or a little under it.
    const sectionTitle = lines.length <= 2 && lines.every((l) => standsAlone(l, body));
    // A short line or two in capitals set a little larger than the body (`THE CONTEXT`).
    const capsHeading =
      lines.length <= 2 &&
      isCaps(plain) &&
      wordCount(plain) <= 8 &&
      !/[.,;]$/.test(plain) &&
      size >= body * 1.03;
    if (
      (larger && !endsSentence) ||
      boldHeading ||
      italicHeading ||
      numbered ||
      sectionTitle ||
      capsHeading
    ) {
      // Section numbering gives the level (`1` → 2 under the title, `2.1` → 3); otherwise the
      // size does, or the level under the document's heading sizes.
      const byNumber = numberedLevel(plain);
      let level =
        byNumber ??
        (larger
          ? headingLevel(size, profile, scale)
          : sectionTitle || capsHeading
            ? 2
            : profile.headingSizes.length + 1);
      level = Math.min(6, Math.max(1, level));
      const text = escapeInline(plain);
      return {
        kind:
          level === 1 && size >= body * 1.5 && sectionNumber(plain) === undefined
            ? 'title'
            : 'heading',
        markdown: `${'#'.repeat(level)} ${text}`,
        text: plain,
        ...geometry,
        confidence: 0.75,
        ...(boldHeading && !larger && !numbered && !italicHeading ? { boldOnly: true } : {}),
      };
    }
  }
  const parts = lines.map((l) =>
    styledText(l.runs, allBold, allItalic, l.fragments[0]?.direction, page.math),
  );
  if (kind === 'list_item') {
    const first = parts[0] ?? '';
    const rest = parts.slice(1);
    const bullet = BULLET.exec(lines[0]?.text ?? '') ?? UNMAPPED_MARKER.exec(lines[0]?.text ?? '');
    const enumerator = ENUMERATOR.exec(lines[0]?.text ?? '');
    let itemText: string;
    let marker: string;
    if (bullet) {
      marker = '-';
      itemText = joinLines([
        first.replace(UNMAPPED_MARKER, '').replace(MARKDOWN_BULLET, ''),
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
  const block: Block = {
    kind: caption ? 'caption' : 'paragraph',
    markdown: escapeBlockStart(joinLines(parts)),
    text: plain,
    ...geometry,
    confidence: 0.85,
    joinable: !caption && last !== undefined && last.x1 >= leafX1 - 2 * last.size,
  };
  if (page.ocr && !caption && lines.length === 1 && isOcrTitleLine(plain, size, body)) {
    ocrTitleCandidates.add(block);
  }
  return block;
};

/**
 * Page-level heading corrections: those of {@link refineHeadings}; centred title lines of OCR
 * pages made headings (not names, institutions or dates under a title); a bold line centred
 * over a short plain one (an author's name over the affiliation) is a label, not a section
 * heading, as headings introduce longer text. Changes `blocks` in place.
 */
export const demoteLabels = (blocks: Block[]): void => {
  refineHeadings(blocks);
  promoteCentredTitles(blocks);
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
};
