import { flowLayout, LETTER_PAGE, markdownBlocks } from './flow-layout.js';
import type { OfficePage } from './office-document.js';

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
    pages.map((markdown) => ({
      widthPt: LETTER_PAGE.widthPt,
      heightPt: LETTER_PAGE.heightPt,
      markdown,
      elements: flowLayout(markdownBlocks(markdown), LETTER_PAGE),
      sourceText: keepSource ? markdown : null,
    })),
  );
}
