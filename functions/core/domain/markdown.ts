import { distance } from 'fastest-levenshtein';
import { parseHeading, parseListItem } from './markdown-lines.js';

/** Markdown (GFM, with HTML tables) to plain text: syntax removed, whitespace collapsed. */
export function plainText(markdown: string): string {
  return (
    markdown
      .replace(/<br\s*\/?>/gi, ' ')
      .replace(/<[a-zA-Z/][^>]*>/g, ' ')
      .replace(/^```.*$/gm, ' ')
      .split(/\r\n?|\n/)
      .map(withoutBlockMarkers)
      .join('\n')
      .replace(/^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$/gm, ' ')
      .replace(/\|/g, ' ')
      // Emphasis and code spans: markers not escaped and not inside a word (snake_case stays).
      .replace(/(?<![\\\w])(\*\*|__|\*|_|`)(?=\S)([\s\S]*?\S)(?<!\\)\1(?!\w)/g, '$2')
      .replace(/\\([\\`*_{}[\]()#+\-.!|<>])/g, '$1')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** A line without its heading marker and then its list marker (`# 1. Intro` → `Intro`). */
function withoutBlockMarkers(line: string): string {
  const text = parseHeading(line)?.text ?? line;
  return parseListItem(text)?.content ?? text;
}

const normalise = (s: string): string =>
  s
    .normalize('NFKC')
    .replace(/[\u2018\u2019`´]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .toLowerCase()
    .trim();

/** Longest texts compared character by character; longer ones are compared on sorted word lists. */
const MAX_EDIT_CHARS = 20_000;

/**
 * Similarity in [0, 1] of two texts: 1 minus the character edit distance normalised by the longer
 * length, after folding case, punctuation and whitespace. Two empty texts are identical (1).
 * With `orderInsensitive` (or beyond 20,000 characters) the words of each text are sorted first, so
 * the score measures the fidelity of the words and not the reading order.
 */
export function textSimilarity(
  a: string,
  b: string,
  options: { orderInsensitive?: boolean } = {},
): number {
  let x = normalise(a);
  let y = normalise(b);
  if (options.orderInsensitive === true || x.length > MAX_EDIT_CHARS || y.length > MAX_EDIT_CHARS) {
    x = sortedWords(x);
    y = sortedWords(y);
  }
  const longest = Math.max(x.length, y.length);
  if (longest === 0) return 1;
  return 1 - editDistance(x, y) / longest;
}

/**
 * The first {@link MAX_EDIT_CHARS} characters of the text's words sorted and joined by spaces.
 *
 * Each distinct word is sorted once, with its count, rather than every occurrence: a page of
 * 10 MB is a few million words but seldom more than some thousands of distinct ones.
 */
function sortedWords(text: string): string {
  const counts = new Map<string, number>();
  for (const word of text.split(' ')) counts.set(word, (counts.get(word) ?? 0) + 1);
  const parts: string[] = [];
  let length = -1;
  for (const word of [...counts.keys()].sort()) {
    for (let n = counts.get(word) ?? 0; n > 0 && length < MAX_EDIT_CHARS; n--) {
      parts.push(word);
      length += word.length + 1;
    }
    if (length >= MAX_EDIT_CHARS) break;
  }
  return parts.join(' ').slice(0, MAX_EDIT_CHARS);
}

/**
 * Levenshtein distance; the common prefix and suffix are cut first (an optimal alignment keeps
 * them), which leaves little to compare for the near-identical texts scored here.
 */
function editDistance(x: string, y: string): number {
  let start = 0;
  const shorter = Math.min(x.length, y.length);
  while (start < shorter && x.charCodeAt(start) === y.charCodeAt(start)) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x.charCodeAt(endX - 1) === y.charCodeAt(endY - 1)) {
    endX--;
    endY--;
  }
  return distance(x.slice(start, endX), y.slice(start, endY));
}
