import {
  captionBefore,
  type CheckboxGroup,
  type DocLine,
  type ListBlock,
} from './document-model.js';
import { cleanValue, plain } from './markdown-text.js';

/**
 * Checkboxes and lists: the boxes of a line (`[x]`, `[ ]`, box glyphs and their OCR variants), the
 * groups of boxes on consecutive lines with the question before them, and the lists of the
 * document with their captions.
 */

const BOX = /(?:\[{1,2}([^[\]]{0,3})\]{1,2}|([☐☑☒□■✓✔]))/gu;
const CHECKED_MARK = /^[xX✓✔✗✘*/\\vV•●■¢#+-]{1,3}$/u;

/** The boxes of a line: `- [x] Label`, `[ ] A [x] B`, `☐ A ☑ B` (OCR variants such as `[[]` too). */
export function checkboxesOf(text: string): { label: string; checked: boolean }[] {
  const boxes: { at: number; end: number; checked: boolean }[] = [];
  for (const match of text.matchAll(BOX)) {
    const inner = match[1];
    const glyph = match[2];
    let checked: boolean;
    if (glyph !== undefined) checked = !['☐', '□'].includes(glyph);
    else if ((inner ?? '').trim() === '') checked = false;
    else if (CHECKED_MARK.test((inner ?? '').trim())) checked = true;
    else continue;
    boxes.push({ at: match.index, end: match.index + match[0].length, checked });
  }
  const first = boxes[0];
  if (!first) return [];
  const lead = text.slice(0, first.at).trim();
  if (boxes.length === 1 && lead !== '' && !/^(?:[-*+•]|\d{1,3}[.)])$/.test(lead)) return [];
  return boxes.map((box, i) => ({
    label: cleanValue(plain(text.slice(box.end, boxes[i + 1]?.at ?? text.length))),
    checked: box.checked,
  }));
}

/** Boxes on consecutive lines (one blank line between allowed), as groups. */
export function buildCheckboxGroups(lines: readonly DocLine[]): CheckboxGroup[] {
  const groups: CheckboxGroup[] = [];
  let current: CheckboxGroup | undefined;
  let gap = 0;
  for (const line of lines) {
    const boxes =
      line.kind === 'text' || line.kind === 'list'
        ? checkboxesOf(line.raw.replace(/^\s*[-*+•]\s+/, ''))
        : [];
    if (boxes.length === 0) {
      if (line.kind === 'blank' && current && gap === 0) {
        gap++;
        continue;
      }
      current = undefined;
      continue;
    }
    gap = 0;
    if (!current) {
      current = { line: line.index, boxes: [], context: captionBefore(lines, line.index) };
      groups.push(current);
    }
    current.boxes.push(...boxes.map((box) => ({ ...box, line: line.index })));
  }
  return groups;
}

/** The document's lists, each with the short line before it. */
export function buildLists(lines: readonly DocLine[]): ListBlock[] {
  const lists: ListBlock[] = [];
  let current: ListBlock | undefined;
  for (const line of lines) {
    if (line.kind === 'list') {
      if (!current) {
        current = { line: line.index, items: [], caption: captionBefore(lines, line.index) };
        lists.push(current);
      }
      current.items.push(line.text);
    } else if (line.kind !== 'blank' || lines[line.index + 1]?.kind !== 'list') {
      current = undefined;
    }
  }
  return lists;
}
