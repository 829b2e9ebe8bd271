import { PAGE_BREAK, splitPages } from './html-markdown.js';
import type { OfficeDocument } from './office-document.js';
import { letterFlowPages } from './pages.js';

/**
 * Lines that mark a page break in Markdown sources: a form feed, `<!-- pagebreak -->` (also
 * `page break`, `page-break`, `newpage`), an HTML element styled with a page break, or pandoc's
 * LaTeX `\newpage` / `\pagebreak`, each alone on its line.
 */
const BREAK_LINE =
  /^\s*(?:\f|<!--\s*(?:page[\s_-]?break|new[\s_-]?page)\s*-->|<(?:div|p|br|hr)\b[^>]*(?:page-break-(?:before|after)\s*:\s*always|break-(?:before|after)\s*:\s*page)[^>]*>(?:\s*<\/(?:div|p)>)?|\\(?:newpage|pagebreak))\s*$/i;

/**
 * A Markdown document as it is, normalised (UTF-8 without BOM, `\n` line endings, no trailing
 * blanks, single blank lines between blocks), split into pages at explicit page-break lines
 * ({@link BREAK_LINE}; form feeds anywhere count too) outside fenced code. Boxes come from the
 * flow layout on a Letter page; the evidence is the page's own source text.
 */
export function convertMarkdown(bytes: Uint8Array): OfficeDocument {
  const text = new TextDecoder('utf-8').decode(bytes);
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fence !== null) {
      if (marker === fence) fence = null;
      lines.push(line);
      continue;
    }
    if (marker !== undefined) fence = marker;
    if (BREAK_LINE.test(line)) lines.push(PAGE_BREAK);
    else lines.push(line.replaceAll('\f', `\n${PAGE_BREAK}\n`));
  }
  const pages = letterFlowPages(splitPages(lines.join('\n')), true);
  return { format: 'md', geometry: 'flow', pages };
}
