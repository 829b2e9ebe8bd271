/**
 * Step 6 of post-processing: plain paragraphs, for `maintain_format: false`.
 *
 * A caller that asks for no formatting gets the page's text as paragraphs: block markers and
 * emphasis go, while tables, HTML and code, whose text would be lost or garbled, stay.
 */
import { isProse, isSetextUnderline, isThematicBreak, markdownLines } from '../markdown-lines.js';
import { walkLists } from './list-markers.js';

/**
 * Reduces a page to plain paragraphs, for `maintain_format: false`.
 *
 * Headings (ATX and setext) become paragraph lines, list items lose their marker and become one
 * paragraph each (their continuation lines stay with them), and emphasis markers are removed.
 * Tables, HTML, code blocks (fences included, so the code keeps its text verbatim), inline code
 * and URLs are kept as they are.
 */
export function toPlainParagraphs(markdown: string): string {
  const lines = markdownLines(markdown);
  const { items, continuations } = walkLists(lines);
  const out: string[] = [];
  let separateNext = false;
  const emit = (text: string, separate: boolean): void => {
    const previous = out.at(-1);
    if ((separate || separateNext) && previous !== undefined && previous.trim() !== '')
      out.push('');
    out.push(text);
    separateNext = false;
  };
  lines.forEach((current, i) => {
    const { text: line, kind, heading } = current;
    if (kind === 'blank') {
      if (out.at(-1)?.trim() !== '') out.push(line);
      return;
    }
    if (!isProse(current)) {
      emit(line, false);
      return;
    }
    const item = items.get(i)?.item;
    if (heading) {
      emit(stripEmphasis(heading.text), true);
      separateNext = true;
    } else if (
      isSetextUnderline(line) &&
      isProse(lines[i - 1]) &&
      !items.has(i - 1) &&
      !continuations.has(i - 1) &&
      lines[i - 1]?.kind !== 'heading' &&
      !isThematicBreak(lines[i - 1]?.text ?? '')
    ) {
      separateNext = true;
    } else if (item) {
      emit(stripEmphasis(item.content), true);
    } else if (continuations.has(i)) {
      emit(stripEmphasis(line.trimStart()), false);
    } else {
      emit(isThematicBreak(line) ? line : stripEmphasis(line), false);
    }
  });
  return out.join('\n');
}

/** Code spans, autolinks and URLs, where `*` and `_` are not emphasis. */
const VERBATIM = /(`+)[^`]*?\1|<[^<>\s]+>|https?:\/\/\S+/g;
/**
 * Innermost emphasis spans: the content holds no marker of the same kind, so nested spans
 * (`***a** b*`, `**a _b_**`) unwrap from the inside out over several passes. Markers inside a
 * word (`snake_case`, `2*3*4`) or followed by a space (`a * b`) are not emphasis.
 */
const EMPHASIS = [
  /(?<![\\\p{L}\p{N}])(\*{1,3})(?![\s*])([^*\n]*?[^\s\\*])\1(?![\p{L}\p{N}*])/gu,
  /(?<![\\\p{L}\p{N}])(_{1,3})(?![\s_])([^_\n]*?[^\s\\_])\1(?![\p{L}\p{N}_])/gu,
];

function stripEmphasis(text: string): string {
  let result = '';
  let cursor = 0;
  for (const m of text.matchAll(VERBATIM)) {
    result += stripEmphasisOutsideCode(text.slice(cursor, m.index)) + m[0];
    cursor = m.index + m[0].length;
  }
  return result + stripEmphasisOutsideCode(text.slice(cursor));
}

function stripEmphasisOutsideCode(text: string): string {
  let previous = '';
  let current = text;
  while (current !== previous) {
    previous = current;
    for (const pattern of EMPHASIS) current = current.replace(pattern, '$2');
  }
  return current;
}
