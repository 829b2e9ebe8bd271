import { logicalRuns, type Direction } from './bidi.js';
import { escapeInline } from './markdown.js';
import type { TextRun } from './types.js';

/**
 * Inline assembly: the text of a line from its runs (word spaces from gaps, emphasis from run
 * styles) and of a paragraph from its lines (end-of-line hyphenation undone).
 */

/** Whitespace-separated words of `text`. */
export const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** Letters (`\p{L}`) in `text`. */
export const letters = (text: string): number => (text.match(/\p{L}/gu) ?? []).length;

/** A gap wider than this share of the smaller font size between two runs is a word space. */
export const WORD_GAP_EM = 0.18;

/**
 * Renders the runs of a line with emphasis: bold or italic stretches shorter than the whole
 * block are wrapped in `**` / `*`. Right-to-left text is put in logical order first.
 *
 * @param direction the line's paragraph direction; by default that of most strong characters.
 */
export const styledText = (
  lineRuns: readonly TextRun[],
  blockBold: boolean,
  blockItalic: boolean,
  direction?: Direction,
): string => {
  const runs = logicalRuns(lineRuns, WORD_GAP_EM, direction);
  let out = '';
  let prev: TextRun | undefined;
  let open: 'b' | 'i' | '' = '';
  const close = (): void => {
    if (open === '') return;
    const trailing = /\s+$/.exec(out)?.[0] ?? '';
    out = out.slice(0, out.length - trailing.length) + (open === 'b' ? '**' : '*') + trailing;
    open = '';
  };
  for (const run of runs) {
    const text = run.text.replace(/\s+/g, ' ');
    if (prev) {
      const gap = run.x - (prev.x + prev.w);
      if (
        gap > WORD_GAP_EM * Math.min(prev.fontSize, run.fontSize) &&
        !/\s$/.test(out) &&
        !/^\s/.test(text)
      ) {
        out += ' ';
      }
    }
    const style: 'b' | 'i' | '' =
      letters(text) >= 2 && run.bold && !blockBold
        ? 'b'
        : letters(text) >= 2 && run.italic && !blockItalic && !run.bold
          ? 'i'
          : '';
    if (style !== open) {
      close();
      if (style !== '') {
        const leading = /^\s*/.exec(text)?.[0] ?? '';
        out += leading + (style === 'b' ? '**' : '*');
        out += escapeInline(text.slice(leading.length));
        open = style;
        prev = run;
        continue;
      }
    }
    out += escapeInline(text);
    prev = run;
  }
  close();
  return out.replace(/\s+/g, ' ').trim();
};

/** Joins the lines of a paragraph: undoes end-of-line hyphenation, otherwise adds a space. */
export const joinLines = (parts: readonly string[]): string => {
  let out = '';
  for (const part of parts) {
    const p = part.trim();
    if (p === '') continue;
    if (out === '') out = p;
    else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(p)) out = out.slice(0, -1) + p;
    else out += ` ${p}`;
  }
  return out;
};
