import { flowLayout, LETTER_PAGE, markdownBlocks } from './flow-layout.js';
import type { OfficePage } from './office-document.js';

/**
 * Characters of text from which a page without page breaks is split at the next block
 * boundary: about 15 Letter pages. A word-processing file written without page-break markers
 * (or a Markdown file) would otherwise be one page however long it is, and every later step of
 * the pipeline (scores, post-processing, the checkpoint) handles a page in one piece: a 10 MB
 * page held the service's event loop for seconds.
 */
export const MAX_FLOW_PAGE_CHARS = 50_000;

/** The pages with content; a document of empty pages keeps its first (empty) page. */
export function withoutEmptyPages(pages: readonly OfficePage[]): OfficePage[] {
  const kept = pages.filter((p) => p.markdown !== '');
  return kept.length > 0 ? kept : pages.slice(0, 1);
}

/**
 * Pages of Markdown without geometry of their own (html, md), laid out as US Letter pages whose
 * boxes are estimated by stacking the blocks (see `flowLayout`). `keepSource`: the Markdown is
 * also the page's source text (the verbatim evidence), as for a Markdown file.
 */
export function letterFlowPages(pages: readonly string[], keepSource: boolean): OfficePage[] {
  return withoutEmptyPages(
    pages.flatMap(splitLongPage).map((markdown) => ({
      widthPt: LETTER_PAGE.widthPt,
      heightPt: LETTER_PAGE.heightPt,
      markdown,
      elements: flowLayout(markdownBlocks(markdown), LETTER_PAGE),
      sourceText: keepSource ? markdown : null,
    })),
  );
}

/**
 * A page of Markdown longer than {@link MAX_FLOW_PAGE_CHARS}, cut into pages at blank lines
 * outside fenced code once each has that many characters (tables and paragraphs stay whole);
 * shorter pages as they are.
 */
export function splitLongPage(markdown: string): string[] {
  if (markdown.length <= MAX_FLOW_PAGE_CHARS) return [markdown];
  const pages: string[] = [];
  let from = 0;
  let fence: string | null = null;
  let at = 0;
  for (const line of markdown.split('\n')) {
    const end = at + line.length;
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fence !== null) {
      if (marker === fence) fence = null;
    } else if (marker !== undefined) {
      fence = marker;
    } else if (line.trim() === '' && at - from >= MAX_FLOW_PAGE_CHARS) {
      pages.push(markdown.slice(from, at).trimEnd());
      from = end + 1;
    }
    at = end + 1;
  }
  pages.push(markdown.slice(from).replace(/^(?:[ \t]*\n)+/, ''));
  return pages.filter((p) => p !== '');
}
