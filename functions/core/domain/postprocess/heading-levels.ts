/**
 * Step 3 of post-processing: heading levels across the document.
 *
 * Engines and models number headings page by page (a page that starts inside a section opens with
 * `###`); the levels are made into one outline over the whole document, which the page stage
 * cannot see, so this step runs when the document is delivered.
 */
import { plainText } from '../markdown.js';
import { markdownLines, type Heading } from '../markdown-lines.js';
import { plural, warning, type StepResult } from './step.js';

/**
 * Makes heading levels consistent across the pages of a document, taken in page order.
 *
 * The outline is rebuilt with a stack of open sections: the first heading, and any heading that
 * closes every open section, is `#`; any other heading is at most one level below the section
 * it opens in, so `#` then `###` becomes `#` then `##` and a document whose top level is `##`
 * moves up by one. A heading whose name (case, punctuation and emphasis ignored) already
 * occurred keeps the level it was given first, unless that would jump a level, since the
 * no-jump rule wins. Headings that need no change are left byte for byte.
 */
export function renumberHeadings(
  pages: readonly { pageNumber: number; markdown: string }[],
): StepResult[] {
  const order = pages
    .map((page, k) => ({ page, k }))
    .sort((a, b) => a.page.pageNumber - b.page.pageNumber);
  const outline: Outline = { stack: [], levelByName: new Map() };
  const results: StepResult[] = pages.map((page) => ({ markdown: page.markdown, warning: null }));
  for (const { page, k } of order) {
    let changed = 0;
    const out = markdownLines(page.markdown).map(({ text, heading }) => {
      if (!heading) return text;
      const level = placeHeading(outline, heading);
      if (level === heading.level) return text;
      changed++;
      return text.replace(/^([ \t]*)#{1,6}/, `$1${'#'.repeat(level)}`);
    });
    if (changed > 0) {
      results[k] = {
        markdown: out.join('\n'),
        warning: warning(
          'heading_renumbered',
          'info',
          page.pageNumber,
          `changed the level of ${plural(changed, 'heading')} for a consistent outline across pages`,
        ),
      };
    }
  }
  return results;
}

interface Outline {
  stack: { original: number; level: number }[];
  levelByName: Map<string, number>;
}

function placeHeading(outline: Outline, heading: Heading): number {
  const { stack, levelByName } = outline;
  const name = plainText(heading.text)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  const known = name === '' ? undefined : levelByName.get(name);
  if (known === undefined) {
    while ((stack.at(-1)?.original ?? 0) >= heading.level) stack.pop();
  } else {
    while ((stack.at(-1)?.level ?? 0) >= known) stack.pop();
  }
  const allowed = (stack.at(-1)?.level ?? 0) + 1;
  const level = Math.min(known ?? allowed, allowed);
  stack.push({ original: heading.level, level });
  if (known === undefined && name !== '') levelByName.set(name, level);
  return level;
}
