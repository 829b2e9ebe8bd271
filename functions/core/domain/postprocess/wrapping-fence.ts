/**
 * Step 1 of post-processing: a code fence around the whole page.
 *
 * Vision models sometimes wrap their whole answer in ```markdown … ```, which would make the
 * page one code block; the wrapper is removed and the page's own code blocks are kept.
 */
import { closesFence, openingFence, type Fence } from '../markdown-lines.js';
import { warning, type StepResult } from './step.js';

/** Info strings of a fence a model wraps its whole answer in. */
const WRAPPER_INFO = new Set(['', 'markdown', 'md', 'gfm', 'commonmark']);

/**
 * Unwraps a page whose whole answer is one code fence (```markdown … ```, ``` … ```, ~~~ … ~~~),
 * as vision models sometimes answer.
 *
 * Fenced code blocks inside the wrapper (```python … ```) are kept: the wrapper is recognised only
 * when no bare fence inside it could have closed it, so a page that starts and ends with two
 * separate real code blocks is left alone. A ```markdown opening that is never closed (an answer
 * cut at the token limit) is removed too; an unclosed bare ``` is not, since it may be real code.
 */
export function stripWrappingFence(markdown: string, pageNumber: number): StepResult {
  let lines = markdown.split('\n');
  let layers = 0;
  let unclosed = false;
  let label = '';
  for (;;) {
    const first = lines.findIndex((line) => line.trim() !== '');
    const fence = first === -1 ? null : openingFence(lines[first] ?? '');
    if (!fence || !WRAPPER_INFO.has(fence.info.toLowerCase())) break;
    let end = lines.length;
    while (end > first + 1 && (lines[end - 1] ?? '').trim() === '') end--;
    const rest = lines.slice(first + 1, end);
    const inner = rest.slice(0, -1);
    if (rest.length > 0 && closesFence(rest.at(-1) ?? '', fence) && wrapsAll(inner, fence)) {
      lines = inner;
    } else if (fence.info !== '' && !innerFences(rest, fence).closesOuter) {
      lines = rest;
      unclosed = true;
    } else {
      break;
    }
    layers++;
    label ||= fence.char.repeat(3) + fence.info;
  }
  if (layers === 0) return { markdown, warning: null };
  const what = layers > 1 ? `${layers} nested code fences (${label})` : `a code fence (${label})`;
  return {
    markdown: lines.join('\n'),
    warning: warning(
      'fence_stripped',
      'info',
      pageNumber,
      `removed ${what} wrapping the whole page${unclosed ? '; the opening fence was never closed' : ''}`,
    ),
  };
}

/** True when `inner` holds only balanced fences, none of which could have closed `outer`. */
function wrapsAll(inner: readonly string[], outer: Fence): boolean {
  const fences = innerFences(inner, outer);
  return !fences.closesOuter && fences.balanced;
}

/** Reads `lines` as a document of its own, looking for a line that would close `outer`. */
function innerFences(
  lines: readonly string[],
  outer: Fence,
): { closesOuter: boolean; balanced: boolean } {
  let open: Fence | null = null;
  for (const line of lines) {
    if (open) {
      if (closesFence(line, open)) open = null;
    } else if (closesFence(line, outer)) {
      return { closesOuter: true, balanced: false };
    } else {
      open = openingFence(line);
    }
  }
  return { closesOuter: false, balanced: open === null };
}
