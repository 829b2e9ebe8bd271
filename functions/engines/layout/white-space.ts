/**
 * White space as regular expressions see it, measured without building strings: layout measures
 * every run and line of a page several times, and `text.replace(/\s+/g, '')` or `/\S+$/` on a
 * growing paragraph cost more than the layout around them.
 */

/** Code units `\s` matches in a regular expression (ECMAScript WhiteSpace and LineTerminator). */
const WHITE_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]);

/** Whether the UTF-16 code unit `code` is white space (`/\s/`). */
export const isWhiteSpace = (code: number): boolean => WHITE_SPACE.has(code);

/** UTF-16 code units of `text` that are not white space: `text.replace(/\s+/g, '').length`. */
export const visibleLength = (text: string): number => {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (!WHITE_SPACE.has(text.charCodeAt(i))) n++;
  return n;
};

/**
 * The text after the last white space of `text`: `/\S+$/.exec(text)?.[0] ?? ''` (empty when
 * `text` ends in white space), read from the end instead of scanned from the start.
 */
export const lastToken = (text: string): string => {
  let start = text.length;
  while (start > 0 && !WHITE_SPACE.has(text.charCodeAt(start - 1))) start--;
  return text.slice(start);
};

/** Words of `text`, i.e. maximal runs without white space: `text.split(/\s+/).filter(Boolean).length`. */
export const wordCount = (text: string): number => {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = WHITE_SPACE.has(text.charCodeAt(i));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
};
