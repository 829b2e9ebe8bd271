/**
 * Post-processing of the Markdown of parsed pages: runs the steps in `postprocess/`, one module
 * each, in their order, and gathers their warnings.
 */
import type { PostprocessWarning } from './schemas.js';
import { removeDuplicateRegions } from './postprocess/duplicate-regions.js';
import { renumberHeadings } from './postprocess/heading-levels.js';
import { normalizeLists } from './postprocess/list-markers.js';
import { toPlainParagraphs } from './postprocess/plain-paragraphs.js';
import { flagPotentialHallucinations } from './postprocess/unsupported-sentences.js';
import { stripWrappingFence } from './postprocess/wrapping-fence.js';

export { POSTPROCESS_THRESHOLDS } from './postprocess/thresholds.js';
export type { StepResult } from './postprocess/step.js';
export {
  flagPotentialHallucinations,
  normalizeLists,
  removeDuplicateRegions,
  renumberHeadings,
  stripWrappingFence,
  toPlainParagraphs,
};

/** One page as the post-processor receives it. */
export interface PostprocessInputPage {
  pageNumber: number;
  markdown: string;
  /** The page's PDF text layer or a second engine's text; null when there is none. */
  evidenceText: string | null;
}

/** One page after post-processing, with a warning for each step that changed or flagged it. */
export interface PostprocessedPage {
  pageNumber: number;
  markdown: string;
  warnings: PostprocessWarning[];
}

/**
 * Cleans the Markdown of each page of a document and reports what changed.
 *
 * Steps, in order: unwrap a fence around the whole page, cut repetition loops and repeated
 * blocks, make heading levels consistent across the document, normalise list markers, then
 * (with `maintainFormat: false`) reduce the page to plain paragraphs. Heading and list
 * normalisation are skipped in that case, since their result would be thrown away. Last, pages
 * with evidence text are checked for unsupported sentences; this step only reads, and it reads
 * the final Markdown so that the line numbers it reports point into the returned content.
 * Line endings are normalised to `\n`.
 *
 * @example
 * postprocessDocument([{ pageNumber: 1, markdown: '```markdown\n# Title\n```', evidenceText: null }],
 *   { maintainFormat: true });
 * // → [{ pageNumber: 1, markdown: '# Title', warnings: [{ kind: 'fence_stripped', … }] }]
 */
export function postprocessDocument(
  pages: readonly PostprocessInputPage[],
  options: { maintainFormat: boolean },
): PostprocessedPage[] {
  const cleaned = pages.map((page) => {
    const warnings: PostprocessWarning[] = [];
    const fence = stripWrappingFence(page.markdown.replace(/\r\n?/g, '\n'), page.pageNumber);
    if (fence.warning) warnings.push(fence.warning);
    const deduplicated = removeDuplicateRegions(fence.markdown, page.pageNumber);
    if (deduplicated.warning) warnings.push(deduplicated.warning);
    return { pageNumber: page.pageNumber, markdown: deduplicated.markdown, warnings };
  });

  let shaped: PostprocessedPage[];
  if (options.maintainFormat) {
    const headings = renumberHeadings(cleaned);
    shaped = cleaned.map((page, k) => {
      const warnings = [...page.warnings];
      const heading = headings[k] ?? { markdown: page.markdown, warning: null };
      if (heading.warning) warnings.push(heading.warning);
      const lists = normalizeLists(heading.markdown, page.pageNumber);
      if (lists.warning) warnings.push(lists.warning);
      return { pageNumber: page.pageNumber, markdown: lists.markdown, warnings };
    });
  } else {
    shaped = cleaned.map((page) => ({ ...page, markdown: toPlainParagraphs(page.markdown) }));
  }

  return shaped.map((page, k) => {
    const evidence = pages[k]?.evidenceText ?? null;
    const warning = flagPotentialHallucinations(page.markdown, evidence, page.pageNumber);
    return warning ? { ...page, warnings: [...page.warnings, warning] } : page;
  });
}

/**
 * The steps of {@link postprocessDocument} that need only the page itself, for the pipeline's
 * page stage (which has the page's evidence): the fence and the repetition loops (only for
 * answers of generative models, `generative`: in a transcription of the text layer or of OCR, a
 * repeated passage is on the page), list markers (or plain paragraphs with
 * `maintainFormat: false`), and unsupported sentences. Heading levels, which need the whole
 * document, are made consistent later by {@link renumberHeadings}.
 */
export function postprocessPage(
  page: PostprocessInputPage,
  options: { maintainFormat: boolean; generative: boolean },
): PostprocessedPage {
  const warnings: PostprocessWarning[] = [];
  let markdown = page.markdown.replace(/\r\n?/g, '\n');
  if (options.generative) {
    const fence = stripWrappingFence(markdown, page.pageNumber);
    if (fence.warning) warnings.push(fence.warning);
    const deduplicated = removeDuplicateRegions(fence.markdown, page.pageNumber);
    if (deduplicated.warning) warnings.push(deduplicated.warning);
    markdown = deduplicated.markdown;
  }
  if (options.maintainFormat) {
    const lists = normalizeLists(markdown, page.pageNumber);
    if (lists.warning) warnings.push(lists.warning);
    markdown = lists.markdown;
  } else {
    markdown = toPlainParagraphs(markdown);
  }
  const unsupported = flagPotentialHallucinations(markdown, page.evidenceText, page.pageNumber);
  if (unsupported) warnings.push(unsupported);
  return { pageNumber: page.pageNumber, markdown, warnings };
}
