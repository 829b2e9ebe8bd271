import { htmlToMarkdown, splitPages } from './html-markdown.js';
import type { OfficeDocument } from './office-document.js';
import { letterFlowPages } from './pages.js';

/**
 * Converts an HTML document to Markdown with turndown (see `htmlToMarkdown`: GFM tables with
 * spans repeated, figures, no scripts or styles): one page, or one per CSS page break
 * (`page-break-before/after: always`, `break-before/after: page`). Boxes come from the flow
 * layout on a Letter page. The text is decoded as its byte-order mark or `<meta charset>` says,
 * UTF-8 otherwise.
 */
export function convertHtml(bytes: Uint8Array): OfficeDocument {
  const html = decodeHtml(bytes);
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
