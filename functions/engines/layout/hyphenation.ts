import { createRequire } from 'node:module';

/**
 * Line-end hyphens: `exam-` + `ple` is one word broken by the typesetter, `low-` + `power` a
 * compound whose hyphen belongs to the text. The document's own vocabulary decides first (the
 * joined or the hyphenated form seen elsewhere), then an English word list
 * (`an-array-of-english-words`, ~275,000 lower-case words): the joined form is a word → join;
 * both halves are words → keep the hyphen; neither → join (names, terms the list does not know).
 */

let words: readonly string[] | undefined;

/**
 * The word list, loaded on first use (sorted, lower case; ~3 MB of JSON, so not at import). Parsing
 * functions ship the package beside their bundle (`ENGINE_PACKAGES`).
 */
const wordList = (): readonly string[] => {
  if (!words) {
    try {
      const list = createRequire(import.meta.url)('an-array-of-english-words') as unknown;
      words = Array.isArray(list) ? (list as string[]) : [];
    } catch {
      // Without the list the document's vocabulary decides alone.
      words = [];
    }
  }
  return words;
};

/** Whether `word` (any case) is an English word of the list (binary search). */
export const isEnglishWord = (word: string): boolean => {
  const w = word.toLowerCase();
  if (w.length === 0) return false;
  const list = wordList();
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = list[mid] ?? '';
    if (v === w) return true;
    if (v < w) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
};

/** Words of a text as the vocabulary sees them: lower case, hyphenated compounds kept whole. */
export const vocabularyOf = (texts: Iterable<string>): Set<string> => {
  const vocabulary = new Set<string>();
  for (const text of texts) {
    for (const m of text.matchAll(/\p{L}+(?:-\p{L}+)*/gu)) vocabulary.add(m[0].toLowerCase());
  }
  return vocabulary;
};

/**
 * Whether a line ending in `left-` followed by a line starting with `right` is one word broken
 * by hyphenation (`true`: drop the hyphen) rather than a compound (`false`: keep it).
 *
 * @param left the word before the line-end hyphen, without it (`exam`, `out-of`, `low`).
 * @param right the letters starting the next line (`ple`, `lab`, `power`).
 * @param vocabulary words seen in the document ({@link vocabularyOf}), lower case.
 */
export const isBrokenWord = (
  left: string,
  right: string,
  vocabulary: ReadonlySet<string> = new Set(),
): boolean => {
  const l = left.toLowerCase();
  const r = right.toLowerCase();
  // The document's own spelling of the word, elsewhere on its pages.
  if (vocabulary.has(`${l}-${r}`)) return false;
  if (vocabulary.has(`${l}${r}`)) return true;
  // The last part of a compound (`out-of-` + `lab`: `of` + `lab`).
  const last = l.slice(l.lastIndexOf('-') + 1);
  if (isEnglishWord(last + r)) return true;
  // A compound (`out-of-`) or an acronym (`GPU-`) keeps its hyphen.
  if (l.includes('-') || /\p{Lu}.*\p{Lu}|\d/u.test(left)) return false;
  if (last.length >= 2 && isEnglishWord(last) && isEnglishWord(r)) return false;
  return true;
};
