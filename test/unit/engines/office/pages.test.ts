import { describe, expect, it } from 'vitest';
import { convertMarkdown } from '../../../../functions/engines/office/markdown-document.js';
import {
  cutBlocks,
  cutEvidence,
  MAX_FLOW_PAGE_CHARS,
  MAX_PAGE_CHARS,
  splitLongPage,
} from '../../../../functions/engines/office/pages.js';

/** `n` numbered words: `w0000000 w0000001 …`. */
const numbered = (n: number, prefix = 'w'): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(7, '0')}`);

describe('cutBlocks', () => {
  it('cuts one long paragraph at spaces into pages of at most MAX_FLOW_PAGE_CHARS, losing nothing', () => {
    // Arrange: 300,000 characters on one line
    const words = numbered(33_000);
    // Act
    const pieces = cutBlocks(words.join(' '));
    // Assert
    expect(pieces.length).toBeGreaterThanOrEqual(6);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(MAX_FLOW_PAGE_CHARS);
    expect(pieces.join(' ').split(' ')).toEqual(words);
  });

  it('cuts a word longer than a page at the limit, never inside a surrogate pair', () => {
    // Arrange: one 'word' of 120,000 astral characters (two UTF-16 units each)
    const text = '😀'.repeat(120_000);
    // Act
    const pieces = cutBlocks(text);
    // Assert
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces) expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/u);
  });

  it('closes and reopens fenced code cut across pages', () => {
    // Arrange: a code block of 20,000 lines (about 240,000 characters)
    const lines = numbered(20_000, 'line ');
    const markdown = ['Before.', '', '~~~~ python', ...lines, '~~~~', '', 'After.'].join('\n');
    // Act
    const pieces = cutBlocks(markdown);
    // Assert: each piece a balanced fence; the code lines all there, in order
    expect(pieces.length).toBeGreaterThanOrEqual(5);
    for (const piece of pieces) {
      expect(piece.match(/^~~~~/gm)?.length ?? 0).toBe(2);
    }
    expect(pieces[1]?.startsWith('~~~~ python\n')).toBe(true);
    const code = pieces.flatMap((p) => p.split('\n').filter((l) => l.startsWith('line ')));
    expect(code).toEqual(lines);
  });

  it('repeats a table’s header rows on each page it is cut across', () => {
    // Arrange: a GFM table of 10,000 rows (about 250,000 characters)
    const rows = numbered(10_000, 'row ').map((r) => `| ${r} | ${r.length} |`);
    const markdown = ['| Name | Length |', '| --- | --- |', ...rows].join('\n');
    // Act
    const pieces = cutBlocks(markdown);
    // Assert
    expect(pieces.length).toBeGreaterThanOrEqual(5);
    for (const piece of pieces) {
      expect(piece.startsWith('| Name | Length |\n| --- | --- |\n| row ')).toBe(true);
    }
    const body = pieces.flatMap((p) => p.split('\n').slice(2));
    expect(body).toEqual(rows);
  });
});

describe('splitLongPage', () => {
  it('cuts at blank lines first, and inside a block only a piece past MAX_PAGE_CHARS', () => {
    // Arrange: a 60,000-character paragraph (kept whole), then a 150,000-character one (cut)
    const short = numbered(6_600, 'a').join(' ');
    const long = numbered(16_500, 'b').join(' ');
    // Act
    const pages = splitLongPage(`${short}\n\n${long}`);
    // Assert
    expect(short.length).toBeGreaterThan(MAX_FLOW_PAGE_CHARS);
    expect(short.length).toBeLessThan(MAX_PAGE_CHARS);
    expect(pages[0]).toBe(short);
    expect(pages.slice(1).join(' ')).toBe(long);
    expect(pages.length).toBeGreaterThanOrEqual(4);
  });

  it('makes a Markdown file of one 1 MB paragraph about 20 pages, each its own evidence', () => {
    // Arrange
    const words = numbered(110_000);
    // Act
    const { pages } = convertMarkdown(new TextEncoder().encode(words.join(' ')));
    // Assert
    expect(pages.length).toBeGreaterThanOrEqual(20);
    expect(pages.flatMap((p) => p.markdown.split(' '))).toEqual(words);
    for (const page of pages) expect(page.sourceText).toBe(page.markdown);
  });
});

describe('cutEvidence', () => {
  it('shares out the words of the evidence in proportion to the pieces', () => {
    // Arrange
    const pieces = ['| a | b |', 'c d e f', 'g h'];
    // Act
    const parts = cutEvidence('a b c d e f g h', pieces);
    // Assert
    expect(parts.join(' ')).toBe('a b c d e f g h');
    expect(parts).toHaveLength(3);
    expect(parts[2]).toBe('g h');
  });
});
