import { decodeHTML } from 'entities';
/**
 * Does a page's output keep every character of its text layer? Compares the multiset of
 * non-space characters of the text layer with the characters of the Markdown's plain text plus
 * the texts the page reports beside it (running headers and footers, figure texts).
 *
 * Order is not compared (reading order and right-to-left reordering are scored elsewhere); only
 * characters that are gone. Some characters are transformed legitimately by the layout, and are
 * folded or ignored on both sides ({@link foldForCoverage}):
 * - compatibility forms and accents: NFKD, then combining marks dropped (ligatures `ﬁ` → `fi`,
 *   `é` = `e` + U+0301 whichever way it was drawn, TeX's spacing accents `ˆ ¨ ¯` over a letter);
 * - bullet glyphs (`•`, `◦`, `▪`, …), which become the `-` of a list item;
 * - characters Markdown uses as markup (`* _ # | - > \` and the backtick), which the layout adds
 *   (emphasis, headings, tables, list markers, escapes) and removes (line-end hyphens);
 * - invisible characters (zero-width spaces and joiners, soft hyphens, bidi marks, controls).
 */

/** Characters the comparison ignores on both sides (see the module's summary). */
const IGNORED = new Set<string>([
  // Markdown markup and escapes; line-end hyphens.
  ...Array.from('*_#|->\\`'),
  // Soft hyphen, dashes the layout may turn into a list marker.
  '\u00ad',
  '\u2010',
  '\u2011',
  '\u2012',
  '\u2013',
  '\u2014',
  '\u2212',
  // Bullets.
  ...Array.from('•◦▪▫‣⁃∙·●○■□►▶▸▹◆◇♦❖➢➤✓✔❑❒⦁⚫⚬'),
  // Spacing accents TeX draws over a letter (the layout composes them with it).
  ...Array.from('ˆˇ˘˙˚˛˜˝´`¨¯¸'),
]);

/** Controls and format characters (zero-width spaces and joiners, bidi marks, soft hyphens). */
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;

/**
 * The characters of `text` as the coverage compares them: NFKD without combining marks, no
 * white space, no invisible or ignored characters.
 *
 * @example foldForCoverage('ﬁne  **café**') // 'finecafe'
 */
export const foldForCoverage = (text: string): string =>
  Array.from(
    text.normalize('NFKD').replace(/\p{M}/gu, '').replace(INVISIBLE, '').replace(/\s+/gu, ''),
  )
    .filter((c) => !IGNORED.has(c))
    .join('');

/** HTML tags the Markdown may carry (tables with spans, sub/superscripts, line breaks, direction). */
const TAGS =
  /<\/?(?:table|thead|tbody|tfoot|tr|td|th|sup|sub|br|b|i|em|strong|code|pre|span|div|p|bdi|bdo)\b[^>]*>/giu;

/**
 * The text a reader sees of `markdown`: HTML tags of tables and inline markup removed, entities
 * decoded, the targets of links and images dropped (their labels kept). Markup characters stay;
 * {@link foldForCoverage} ignores them.
 */
export const markdownPlainText = (markdown: string): string =>
  decodeHTML(markdown.replace(/!?\[([^\]]*)\]\([^)\s]*\)/gu, '$1').replace(TAGS, ' '));

/** How often each character occurs in `text` (after {@link foldForCoverage}). */
export const charCounts = (text: string): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const c of foldForCoverage(text)) counts.set(c, (counts.get(c) ?? 0) + 1);
  return counts;
};

/** The outcome of {@link textCoverage} for one page. */
export interface TextCoverage {
  /** Characters of the text layer compared (after folding). */
  layerChars: number;
  /** How many of them the output lacks. */
  missingChars: number;
  /** The lacking characters with their counts, most frequent first (then by code point), e.g. `a×3 7×1`. */
  missing: string;
}

/**
 * Which characters of `layer` (the text-layer runs' texts) are absent from `output` (the
 * Markdown's plain text and the other texts the page reports), counted as multisets.
 *
 * @example textCoverage(['Hello', 'world'], ['Hello']).missingChars // 5
 */
export const textCoverage = (layer: readonly string[], output: readonly string[]): TextCoverage => {
  const have = charCounts(output.join(' '));
  const want = charCounts(layer.join(' '));
  let layerChars = 0;
  let missingChars = 0;
  const lacking: [string, number][] = [];
  for (const [c, n] of want) {
    layerChars += n;
    const gone = n - (have.get(c) ?? 0);
    if (gone > 0) {
      missingChars += gone;
      lacking.push([c, gone]);
    }
  }
  lacking.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return {
    layerChars,
    missingChars,
    missing: lacking.map(([c, n]) => `${c}×${String(n)}`).join(' '),
  };
};

/** Parses a `missing` list of {@link TextCoverage} (`a×3 7×1`) into counts. */
const parseMissing = (missing: string): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const item of missing.split(' ')) {
    const at = item.lastIndexOf('×');
    if (at <= 0) continue;
    counts.set(item.slice(0, at), Number(item.slice(at + 1)));
  }
  return counts;
};

/**
 * The characters of `missing` beyond those of `known` (both `missing` lists of
 * {@link TextCoverage}), in the same notation; '' when every loss is a known one.
 *
 * @example lossesBeyond('a×3 b×1', 'a×2') // 'a×1 b×1'
 */
export const lossesBeyond = (missing: string, known: string): string => {
  const allowed = parseMissing(known);
  return [...parseMissing(missing)]
    .map(([c, n]) => [c, n - (allowed.get(c) ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${c}×${String(n)}`)
    .join(' ');
};
