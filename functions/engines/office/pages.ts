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
 * Characters past which a page is cut even inside a block: a paragraph, a table or a code block
 * longer than this (a file of one 20 MB paragraph) would otherwise be one page, parsed in one
 * piece and charged as one.
 */
export const MAX_PAGE_CHARS = 2 * MAX_FLOW_PAGE_CHARS;

/**
 * A page of Markdown longer than {@link MAX_FLOW_PAGE_CHARS}, cut into pages at blank lines
 * outside fenced code once each has that many characters (tables and paragraphs stay whole);
 * a piece still longer than {@link MAX_PAGE_CHARS} is then cut inside its blocks
 * ({@link cutBlocks}); shorter pages as they are.
 */
export function splitLongPage(markdown: string): string[] {
  if (markdown.length <= MAX_FLOW_PAGE_CHARS) return [markdown];
  return splitAtBlankLines(markdown).flatMap((page) =>
    page.length > MAX_PAGE_CHARS ? cutBlocks(page) : [page],
  );
}

/**
 * A page longer than {@link MAX_PAGE_CHARS} cut into pieces of at most
 * {@link MAX_FLOW_PAGE_CHARS} characters: at the last line break of each piece's second half,
 * else at its last white space, else (one unbroken word) at the limit, never inside a surrogate
 * pair. A piece cut inside fenced code closes the fence and the next one opens it again (with
 * its info string); a piece cut inside a table starts with the table's header row and
 * delimiter row again, so that each page stays valid GFM.
 */
export function cutBlocks(markdown: string): string[] {
  const pieces: string[] = [];
  // Read by position (slicing and prepending to the rest would copy it at every cut), each
  // piece starting with what it opens again (`carry`: a fence or a table's header).
  let at = 0;
  let carry = '';
  while (carry.length + markdown.length - at > MAX_FLOW_PAGE_CHARS) {
    const limit = at + Math.max(MAX_FLOW_PAGE_CHARS - carry.length, MAX_FLOW_PAGE_CHARS / 2);
    const half = at + (limit - at) / 2;
    let cut = lastBreak(markdown, half, limit, false);
    let skip = 1;
    if (cut < half) {
      cut = lastBreak(markdown, half, limit, true);
      if (cut < half) {
        cut = isLowSurrogate(markdown.charCodeAt(limit)) ? limit - 1 : limit;
        skip = 0;
      }
    }
    const head = carry + markdown.slice(at, cut);
    at = cut + skip;
    const { fence, header } = blockStateAfter(head);
    const lastLine = head.slice(head.lastIndexOf('\n') + 1);
    const inTable = /^\s*\|/.test(lastLine) && /^\s*\|/.test(markdown.slice(at, at + 16));
    pieces.push(fence !== null ? `${head}\n${fenceMarker(fence)}` : head);
    carry = fence !== null ? `${fence}\n` : inTable && header !== null ? `${header}\n` : '';
  }
  pieces.push(carry + markdown.slice(at));
  return pieces.map((p) => p.trim()).filter((p) => p !== '');
}

/**
 * A page's evidence text cut to go with the pieces its Markdown was cut into
 * ({@link cutBlocks}): its words shared out in proportion to the words of each piece (the
 * evidence is the page's text read from the file, so the two run in the same order).
 */
export function cutEvidence(evidence: string, pieces: readonly string[]): string[] {
  const words = evidence.split(/\s+/).filter((w) => w !== '');
  // Words with a letter or digit: the Markdown's own marks (`|`, `#`, `---`) are no evidence.
  const counts = pieces.map((p) => p.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length);
  const total = counts.reduce((a, b) => a + b, 0) || 1;
  let taken = 0;
  let seen = 0;
  return counts.map((count, k) => {
    seen += count;
    const end = k === counts.length - 1 ? words.length : Math.round((seen / total) * words.length);
    const part = words.slice(taken, end).join(' ');
    taken = Math.max(taken, end);
    return part;
  });
}

/**
 * The index of the last line break (or, with `space`, any white space) of `text` in
 * [`from`, `limit`), or -1: only the piece being cut is scanned, never the text before it.
 */
function lastBreak(text: string, from: number, limit: number, space: boolean): number {
  for (let i = Math.min(limit, text.length) - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (space && (c === 0x20 || c === 0x09 || c === 0x0d))) return i;
  }
  return -1;
}

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** The fence characters of an opening fence line (`~~~~ js` → `~~~~`). */
const fenceMarker = (opening: string): string => /^\s*(`{3,}|~{3,})/.exec(opening)?.[1] ?? '```';

/**
 * The fenced code block open at the end of `text` (its opening line, or null) and the header
 * of the table `text` ends in (its header and delimiter rows, or null).
 */
function blockStateAfter(text: string): { fence: string | null; header: string | null } {
  let open: string | null = null;
  let table: string | null = null;
  let previous: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (open !== null) {
      // A closing fence: the opening's character, at least as many of them (CommonMark).
      const opening = fenceMarker(open);
      if (marker !== undefined && marker[0] === opening[0] && marker.length >= opening.length) {
        open = null;
      }
    } else if (marker !== undefined) {
      open = line;
      table = null;
    } else if (/^\s*\|/.test(line)) {
      if (table === null && previous !== null && /^\s*\|?\s*:?-{3,}/.test(line)) {
        table = `${previous}\n${line}`;
      }
    } else {
      table = null;
    }
    previous = line;
  }
  return { fence: open, header: table };
}

/**
 * A page cut at blank lines outside fenced code once each piece has
 * {@link MAX_FLOW_PAGE_CHARS} characters.
 */
function splitAtBlankLines(markdown: string): string[] {
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
