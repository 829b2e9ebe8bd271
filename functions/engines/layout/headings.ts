import type { Block } from './block.js';
import { hasLetters, joinLines } from './inline.js';
import { wordCount } from './white-space.js';
import { escapeInline } from './markdown.js';
import { parseHeading } from '../../core/domain/markdown-lines.js';

/**
 * Headings: section numbering (`1`, `2.1`, `I.`, `A.1`, `(3)`) and the levels it gives, section
 * titles that stand on their own (`Abstract`, `References`, `I. INTRODUCTION`), and the page-level
 * corrections of the block-classification stage: a section number set apart from its title is
 * joined to it, a title set on two lines is one heading, and the lines under a title (authors,
 * affiliations, dates) and the running section label over it are not headings.
 */

/** A decimal section number (`1`, `2.1`, `3.2.4.`). */
const DECIMAL = /^(\d{1,2}(?:\.\d{1,2}){0,4})\.?(?=\s|$)/;
/** A roman section number (`IV.`). */
const ROMAN = /^([IVX]{1,5})\.(?=\s|$)/;
/** An appendix or subsection letter (`A.`, `B.2`, `C.1.3`). */
const LETTER = /^([A-H])((?:\.\d{1,2}){1,3}\.?|\.)(?=\s|$)/;
/** A parenthesised number (`(3)`), a level of its own below the document's numbered sections. */
const PARENTHESISED = /^\((\d{1,2})\)(?=\s|$)/;
/** Titles of the sections most documents have, recognised on their own. */
const SECTION_WORDS =
  /^(?:abstract|summary|introduction|background|related work|conclusions?|discussion|acknowledge?ments?|references|bibliography|appendix(?:\s+[A-Z0-9]+)?|contents|table of contents|preface|foreword|index|glossary)$/i;

/** What a section number says of its heading. */
export interface SectionNumber {
  /** The number as written, without a trailing period (`2.1`, `IV`, `A.1`, `(3)`). */
  label: string;
  /** Nesting depth: `1`, `I.`, `A.` are 1; `2.1`, `A.1` are 2; `(3)` is 0 (no depth). */
  depth: number;
}

/** The section number that starts `text`, if any. */
export const sectionNumber = (text: string): SectionNumber | undefined => {
  const t = text.trim();
  const decimal = DECIMAL.exec(t);
  if (decimal?.[1]) return { label: decimal[1], depth: decimal[1].split('.').length };
  const roman = ROMAN.exec(t);
  if (roman?.[1]) return { label: roman[1], depth: 1 };
  const letter = LETTER.exec(t);
  if (letter?.[1]) {
    const label = `${letter[1]}${(letter[2] ?? '').replace(/\.$/, '')}`;
    return { label, depth: label.split('.').length };
  }
  const parenthesised = PARENTHESISED.exec(t);
  if (parenthesised) return { label: parenthesised[0], depth: 0 };
  return undefined;
};

/** Whether `text` is only a section number (`2.1`, `IV.`, `A.1`): its title is elsewhere. */
export const isBareSectionNumber = (text: string): boolean => {
  const t = text.trim();
  const n = sectionNumber(t);
  return n !== undefined && n.depth > 0 && t.replace(/\.$/, '') === n.label;
};

/**
 * The heading level a section number gives: the document title is level 1, so `1` and `I.` are
 * level 2, `2.1` and `A.1` level 3, and so on (at most 6). Undefined without a numbered depth.
 */
export const numberedLevel = (text: string): number | undefined => {
  const n = sectionNumber(text);
  if (!n || n.depth === 0) return undefined;
  return Math.min(6, n.depth + 1);
};

/** The text after a leading section number. */
const afterNumber = (text: string): string => {
  const n = sectionNumber(text);
  return n ? text.trim().slice(text.trim().indexOf(' ') + 1) : text.trim();
};

/** `Abstract`, `References`, `Appendix A`…: a section title wherever it stands alone. */
export const isSectionWord = (text: string): boolean =>
  SECTION_WORDS.test(afterNumber(text).replace(/[.:]$/, '').trim());

/**
 * A numbered title in capitals (`I. INTRODUCTION`, `2 RELATED WORK`, `A. PROOFS`): a section
 * heading at body size, never a list item.
 */
export const isNumberedCapsTitle = (text: string): boolean => {
  const n = sectionNumber(text);
  if (!n || n.depth === 0) return false;
  const title = afterNumber(text);
  return (
    title !== text.trim() &&
    hasLetters(title, 4) &&
    wordCount(title) <= 10 &&
    !/[.,;]$/.test(title) &&
    title === title.toUpperCase() &&
    /\p{Lu}/u.test(title)
  );
};

const levelOf = (b: Block): number => parseHeading(b.markdown)?.level ?? 0;
const isHeading = (b: Block): boolean => b.kind === 'heading' || b.kind === 'title';
const height = (b: Block): number => b.y1 - b.y0;
const overlapX = (a: Block, b: Block): boolean => a.x0 < b.x1 && b.x0 < a.x1;

/** `b` as a heading at `level` with `text`. */
const setHeading = (b: Block, text: string, level: number): void => {
  b.text = text;
  b.markdown = `${'#'.repeat(level)} ${escapeInline(text)}`;
};

/** `b` as a plain paragraph. */
const toParagraph = (b: Block): void => {
  b.kind = 'paragraph';
  b.markdown = escapeInline(b.text);
  delete b.boldOnly;
};

/**
 * A section number set apart from its title (a fragment of its own that reading order put in a
 * region of its own, or a line at the title's height) is joined to the heading beside it, and
 * the heading takes the level of the number. Returns the blocks left.
 */
const joinBareNumbers = (blocks: Block[]): Block[] => {
  const out: Block[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (!b) continue;
    if (b.kind === 'paragraph' && isBareSectionNumber(b.text)) {
      const mid = (b.y0 + b.y1) / 2;
      // The heading it numbers: beside it on the right, at the same height, within a few blocks.
      const j = blocks.findIndex(
        (h, k) =>
          k > i &&
          k <= i + 3 &&
          isHeading(h) &&
          h.x0 >= b.x1 - 1 &&
          h.x0 - b.x1 < 6 * height(b) &&
          mid > h.y0 &&
          mid < h.y1,
      );
      const h = blocks[j];
      if (h) {
        const text = `${b.text.trim().replace(/\.$/, '')} ${h.text}`;
        setHeading(h, text, numberedLevel(text) ?? Math.max(1, levelOf(h)));
        h.x0 = Math.min(h.x0, b.x0);
        h.y0 = Math.min(h.y0, b.y0);
        h.y1 = Math.max(h.y1, b.y1);
        continue;
      }
    }
    out.push(b);
  }
  return out;
};

/**
 * A title set on two or three lines that reading order or an indent split (a centred title) is
 * one heading: consecutive headings of one level, one line height, overlapping horizontally and
 * closer than about half a line apart. Two bold lines at body size were set apart by a marker or
 * an indent, and stay two.
 */
const joinSplitHeadings = (blocks: Block[]): Block[] => {
  const out: Block[] = [];
  for (const b of blocks) {
    const prev = out[out.length - 1];
    if (
      prev &&
      isHeading(prev) &&
      isHeading(b) &&
      !(prev.boldOnly && b.boldOnly) &&
      levelOf(prev) === levelOf(b) &&
      sectionNumber(b.text) === undefined &&
      !/[.:!?]$/.test(prev.text) &&
      overlapX(prev, b) &&
      Math.abs(height(prev) - height(b)) <= 0.2 * Math.max(height(prev), height(b)) &&
      b.y0 >= prev.y0 &&
      b.y0 - prev.y1 < 0.6 * height(b) &&
      wordCount(prev.text) + wordCount(b.text) <= 24
    ) {
      setHeading(prev, joinLines([prev.text, b.text]), levelOf(prev));
      prev.x0 = Math.min(prev.x0, b.x0);
      prev.x1 = Math.max(prev.x1, b.x1);
      prev.y1 = Math.max(prev.y1, b.y1);
      continue;
    }
    out.push(b);
  }
  return out;
};

/** Names (`Johan Dahlin, Mattias Villani and Thomas B. Schön`), with marks and initials. */
const NAME_LIST =
  /^(?:[\p{Lu}][\p{L}\p{M}\p{Sk}'’.-]*\s*(?:[\p{Lu}][\p{L}\p{M}\p{Sk}'’.-]*\s*){0,3}[\d*†‡§¶∗,]*\s*(?:,|and|&|·)?\s*)+$/u;
/** An institution: a line naming one under a title is an affiliation. */
const INSTITUTION =
  /\b(?:universit|institut|department|dept\.|school|college|laborator|faculty|centre|center|academy|hospital)|@|\b(?:19|20)\d{2}\b/i;
/** A company's legal form: an affiliation under a paper's title, or part of a report's title. */
const COMPANY = /\b(?:inc\.|ltd|gmbh|corporation)/i;
const DATE =
  /^(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?\d{4}$|^\d{4}-\d{2}-\d{2}$/i;

/** Capitalised names joined by commas or `and`, or with an initial: names, not a subtitle. */
const isNameList = (t: string): boolean => {
  const words = t.split(/\s+/);
  const joined = /,|\sand\s|&|·|\b\p{Lu}\.?(?:\s|$)|[*†‡∗]/u.test(t);
  return words.length >= 2 && words.length <= 24 && joined && NAME_LIST.test(t);
};

/** Whether a line under a title reads as its byline: authors, affiliations, a date. */
const isByline = (text: string): boolean => {
  const t = text.trim();
  if (sectionNumber(t) !== undefined || isSectionWord(t)) return false;
  if (DATE.test(t) || INSTITUTION.test(t) || COMPANY.test(t)) return true;
  return isNameList(t);
};

/**
 * Whether a line reads as authors' names, an institution or a date: a byline whatever stands
 * above it. A line naming a company may title a report (`Audit for BioTech Innovations Ltd`).
 */
export const isPersonalByline = (text: string): boolean => {
  const t = text.trim();
  if (sectionNumber(t) !== undefined || isSectionWord(t)) return false;
  return DATE.test(t) || INSTITUTION.test(t) || isNameList(t);
};

/**
 * The title block: the headings just under the page's title that read as a byline (authors,
 * affiliations, dates) are plain lines, and a short heading right above the title and smaller
 * than it (a running section label such as `INDUSTRY WATCH`) is one too.
 */
const titleBlock = (blocks: Block[]): void => {
  const t = blocks.findIndex((b) => b.kind === 'title');
  const title = blocks[t];
  if (!title) return;
  const above = blocks[t - 1];
  if (
    above &&
    isHeading(above) &&
    height(above) < 0.85 * height(title) &&
    wordCount(above.text) <= 4 &&
    !isSectionWord(above.text) &&
    title.y0 - above.y1 < 4 * height(above)
  ) {
    toParagraph(above);
  }
  for (let i = t + 1; i < blocks.length && i <= t + 6; i++) {
    const b = blocks[i];
    if (!b) break;
    if (b.kind === 'paragraph' && wordCount(b.text) > 20) break;
    if (b.kind === 'title' || b.kind === 'table') break;
    if (!isHeading(b)) continue;
    if (!isByline(b.text)) break;
    toParagraph(b);
  }
};

/**
 * A column of headings that heads nothing: two or more headings of one level set one under the
 * other in one column, beside text at their height, with no text under the last of them in that
 * column (a cover's bold blurbs beside its abstract, `Implement roles …` over `Leverage row
 * permissions …`), are plain lines. Headings introduce the text under them.
 */
const labelColumns = (blocks: Block[]): void => {
  let i = 0;
  while (i < blocks.length) {
    const first = blocks[i];
    if (!first || first.kind !== 'heading') {
      i += 1;
      continue;
    }
    let j = i;
    for (;;) {
      const a = blocks[j];
      const b = blocks[j + 1];
      if (!a || !b || b.kind !== 'heading' || levelOf(b) !== levelOf(first)) break;
      if (b.y0 < a.y1 - 0.5 * height(a) || !overlapX(a, b)) break;
      j += 1;
    }
    const last = blocks[j];
    const after = blocks[j + 1];
    const headsText =
      after !== undefined && last !== undefined && after.y0 >= last.y1 - 1 && overlapX(after, last);
    const column = blocks.slice(i, j + 1);
    const top = first.y0;
    const bottom = last?.y1 ?? first.y1;
    // Text set beside the column, at its height: the column is a margin of blurbs.
    const besideText = blocks.some(
      (o) =>
        !column.includes(o) &&
        !isHeading(o) &&
        o.y0 < bottom &&
        o.y1 > top &&
        column.every((h) => !overlapX(h, o)),
    );
    if (j > i && !headsText && besideText) column.forEach(toParagraph);
    i = j + 1;
  }
};

/**
 * Page-level heading corrections, in place of `blocks` (reading order): bare section numbers
 * joined to their titles, split titles joined, the title block's byline and running label made
 * plain lines, columns of headings that head nothing made plain lines ({@link labelColumns}).
 * Changes `blocks` in place.
 */
export const refineHeadings = (blocks: Block[]): void => {
  const joined = joinSplitHeadings(joinBareNumbers(blocks));
  titleBlock(joined);
  labelColumns(joined);
  blocks.splice(0, blocks.length, ...joined);
};
