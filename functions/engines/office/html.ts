import { Parser } from 'htmlparser2';
import { DocumentRejectedError } from '../../core/domain/errors.js';
import { htmlToMarkdown, splitPages } from './html-markdown.js';
import type { OfficeDocument } from './office-document.js';
import { letterFlowPages } from './pages.js';

/**
 * Converts an HTML document to Markdown with turndown (see `htmlToMarkdown`: GFM tables with
 * spans repeated, figures, no scripts or styles): one page, or one per CSS page break
 * (`page-break-before/after: always`, `break-before/after: page`). Boxes come from the flow
 * layout on a Letter page. The text is decoded as its byte-order mark or `<meta charset>` says,
 * UTF-8 otherwise.
 *
 * @throws {DocumentRejectedError} (422) when elements nest deeper than {@link MAX_HTML_DEPTH},
 *   checked before turndown, which recurses once or more per level.
 */
export function convertHtml(bytes: Uint8Array): OfficeDocument {
  const html = decodeHtml(bytes);
  checkHtmlNesting(html, MAX_HTML_DEPTH);
  const pages = letterFlowPages(splitPages(htmlToMarkdown(html)), false);
  return { format: 'html', geometry: 'flow', pages };
}

/** The text of an HTML file: BOM, then `<meta charset>` / `http-equiv` in the first 2 KiB, else UTF-8. */
export function decodeHtml(bytes: Uint8Array): string {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decode(bytes, 'utf-16be');
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decode(bytes, 'utf-16le');
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 2048));
  const label = /<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)/i.exec(head)?.[1];
  return decode(bytes, label ?? 'utf-8');
}

function decode(bytes: Uint8Array, label: string): string {
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * Deepest element nesting an HTML document may have. Pages written by people and by tools stay
 * far below (browsers themselves stop building the tree at 512 levels); turndown and its DOM
 * recurse per level, and 5,000 nested elements overflow the stack after seconds of work.
 */
export const MAX_HTML_DEPTH = 256;

/**
 * Measures the element nesting of `html` in one streaming pass (htmlparser2's tokenizer: void
 * elements and implied end tags close as browsers close them) and refuses it past `maxDepth`.
 *
 * @throws {DocumentRejectedError} naming the cap when the nesting goes deeper.
 */
export function checkHtmlNesting(html: string, maxDepth: number): void {
  let depth = 0;
  let deepest = 0;
  const parser = new Parser({
    onopentag: () => {
      depth++;
      if (depth > deepest) deepest = depth;
      if (depth > maxDepth) parser.pause();
    },
    onclosetag: () => {
      depth--;
    },
  });
  parser.write(html);
  if (deepest <= maxDepth) parser.end();
  if (deepest > maxDepth) {
    throw new DocumentRejectedError(
      `the HTML document has elements nested deeper than ${maxDepth} levels; refused`,
      { details: { format: 'html', maxDepth } },
    );
  }
}
