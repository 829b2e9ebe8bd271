import { decodeHTML } from 'entities';

/**
 * The text of Markdown lines as the offline extractor reads it: the patterns that tell a line's
 * kind (heading, rule, list item, table row, bold line), inline syntax removed ({@link plain}),
 * and values trimmed of fill-in blanks ({@link cleanValue}).
 */

/** A thematic break (`---`, `***`, `___`). */
export const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
/** A setext underline (`===` or `---` under a line of text). */
export const SETEXT = /^\s{0,3}(=+|-+)\s*$/;
/** A list item (bullet or number) and its text. */
export const LIST_ITEM = /^\s*(?:[-*+•]|\d{1,3}[.)])\s+(.*)$/;
/** A row of a GFM table. */
export const GFM_ROW = /^\s*\|.*\|\s*$/;
/** The delimiter row under a GFM table's header. */
export const GFM_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
/** A line that is one bold span (`**Shipper**`, `__Notes:__`). */
export const BOLD_ONLY = /^\s*(?:\*\*([^*]+)\*\*|__([^_]+)__)\s*:?\s*$/;

/** Removes Markdown inline syntax and HTML tags, keeping the words. */
export function plain(text: string): string {
  return decodeHTML(
    text
      .replace(/<br\s*\/?>/gi, ' ')
      // Each class excludes the opening character too, so that a scan from one opener ends at the
      // next: with `[^>]` alone, a line of `<a@<a@…` or `[a[a…` takes time quadratic or cubic
      // in its length.
      .replace(/<[^<>@]+@[^<>@]+>/g, (m) => m.slice(1, -1))
      .replace(/<\/?[a-z][^<>]*>/gi, ' ')
      .replace(/!\[([^[\]]*)\]\([^()[\]]*\)/g, '$1')
      .replace(/\[([^[\]]+)\]\([^()[\]]*\)/g, '$1')
      .replace(/<(https?:[^<>]+)>/g, '$1')
      .replace(/(\*\*|__)(.+?)\1/g, '$2')
      .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,:;!?]|$)/g, '$1$2')
      .replace(/~~(.+?)~~/g, '$1')
      .replace(/`([^`]*)`/g, '$1')
      .replace(/\\([\\`*_{}[\]()#+\-.!|~])/g, '$1'),
  )
    .replace(/\s+/g, ' ')
    .trim();
}

/** Trims a value and drops fill-in blanks (`_____`, `.....`) and stray separators. */
export function cleanValue(value: string): string {
  return value
    .replace(/[_.]{3,}/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^(?:[\s|:;,]|-(?![\d$€£.]))+|[\s|:;,]+$/g, '')
    .trim();
}
