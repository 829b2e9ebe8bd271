/**
 * Step 4 of post-processing: list markers.
 *
 * Text layers and models write bullets as `•`, `●` or `–` and nest items by eye; they are made
 * GFM lists (`-`, `1.`, indentation under the parent's content) so that renderers see one list.
 * The list walk is shared with the plain-paragraphs step, which needs the same items.
 */
import {
  isBlockQuote,
  isProse,
  isThematicBreak,
  markdownLines,
  type ListItem,
  type MarkdownLine,
} from '../markdown-lines.js';
import { plural, warning, type StepResult } from './step.js';

/**
 * Normalises list markers to GFM: bullets (`•`, `●`, `▪`, `◦`, `–`, `*`, `+`, …) become `- `,
 * `1)` becomes `1.`, one space follows the marker, and nested items are indented under their
 * parent's content (2 spaces per `-` level, 3 under `1.`, 4 under `10.`). Numbers stay as printed.
 *
 * Never touched: `*emphasis*` and `**bold**` at a line start (no space after the `*`), rules
 * (`***`, `---`, `* * *`), table rows, HTML, block quotes and code. A line indented 4+ spaces
 * outside a list is indented code, not an item.
 */
export function normalizeLists(markdown: string, pageNumber: number): StepResult {
  const lines = markdownLines(markdown);
  const { items } = walkLists(lines);
  const out = lines.map((line) => line.text);
  let markers = 0;
  let indents = 0;
  for (const [i, { item, indent }] of items) {
    const marker = item.ordered ? `${item.number}.` : '-';
    if (item.marker !== marker || item.gap !== ' ') markers++;
    if (item.indentText !== ' '.repeat(indent)) indents++;
    out[i] = `${' '.repeat(indent)}${marker} ${item.content}`;
  }
  if (markers + indents === 0) return { markdown, warning: null };
  const parts: string[] = [];
  if (markers > 0) parts.push(`the marker of ${plural(markers, 'list item')}`);
  if (indents > 0) parts.push(`the indentation of ${plural(indents, 'list item')}`);
  return {
    markdown: out.join('\n'),
    warning: warning('list_normalized', 'info', pageNumber, `normalised ${parts.join(' and ')}`),
  };
}

/**
 * The list items of a page with their normalised indentation, and the lines that continue an
 * item. A list ends at a heading, a rule, a table, code, HTML, a block quote, or an unindented
 * line after a blank line.
 */
export function walkLists(lines: readonly MarkdownLine[]): {
  items: Map<number, { item: ListItem; indent: number }>;
  continuations: Set<number>;
} {
  const items = new Map<number, { item: ListItem; indent: number }>();
  const continuations = new Set<number>();
  let stack: { indent: number; normalised: number; width: number }[] = [];
  let afterBlank = true;
  let afterParagraph = false;
  lines.forEach((current, i) => {
    const { text: line, kind, item } = current;
    if (kind === 'blank') {
      afterBlank = true;
      afterParagraph = false;
      return;
    }
    const [wasAfterBlank, wasAfterParagraph] = [afterBlank, afterParagraph];
    afterBlank = false;
    afterParagraph = false;
    if (!isProse(current) || kind === 'heading' || isBlockQuote(line)) {
      stack = [];
      return;
    }
    // An ordered item other than 1 cannot interrupt a paragraph: `…in\n2023. Sales` is prose.
    const interrupts = item?.ordered === true && item.number !== '1' && wasAfterParagraph;
    if (item && !interrupts && (stack.length > 0 || item.indent <= 3)) {
      while ((stack.at(-1)?.indent ?? -1) > item.indent) stack.pop();
      if (stack.at(-1)?.indent === item.indent) stack.pop();
      const parent = stack.at(-1);
      const indent = parent ? parent.normalised + parent.width : 0;
      const width = item.ordered ? item.number.length + 2 : 2;
      stack.push({ indent: item.indent, normalised: indent, width });
      items.set(i, { item, indent });
    } else if (
      stack.length > 0 &&
      !isThematicBreak(line) &&
      (!wasAfterBlank || /^[ \t]/.test(line))
    ) {
      continuations.add(i);
    } else {
      stack = [];
      afterParagraph = !isThematicBreak(line);
    }
  });
  return { items, continuations };
}
