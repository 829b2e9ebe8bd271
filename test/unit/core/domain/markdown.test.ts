import { distance } from 'fastest-levenshtein';
import { describe, expect, it } from 'vitest';
import { plainText, textSimilarity } from '../../../../functions/core/domain/markdown.js';

describe('plainText', () => {
  it('removes headings, list markers, emphasis and code spans', () => {
    // Act
    const text = plainText('# Title\n\n- **bold** item\n1. _it_ `code`');
    // Assert
    expect(text).toBe('Title bold item it code');
  });

  it('reads headings and list items as the post-processing steps do', () => {
    // Act
    const text = plainText('## Results ##\r\n• Apples\n  – Pears\n# 2) Second\n* * *');
    // Assert
    expect(text).toBe('Results Apples Pears Second * * *');
  });

  it('keeps the cells of a pipe table and drops its rule line', () => {
    // Act
    const text = plainText('| a | b |\n|:---|---:|\n| 1 | 2 |');
    // Assert
    expect(text).toBe('a b 1 2');
  });

  it('turns HTML tags and line breaks into spaces and decodes basic entities', () => {
    // Act
    const text = plainText('<table><tr><td>x<br/>y</td></tr></table> &lt;a&gt; &amp; b');
    // Assert
    expect(text).toBe('x y <a> & b');
  });

  it('drops code fences and collapses whitespace', () => {
    // Act
    const text = plainText('```ts\nconst  x =\t1;\n```\n\n\nend');
    // Assert
    expect(text).toBe('const x = 1; end');
  });

  it('keeps a lone asterisk used as an operator', () => {
    // Act
    const text = plainText('2 * 3 * 4 = 24');
    // Assert
    expect(text).toBe('2 * 3 * 4 = 24');
  });
});

describe('textSimilarity', () => {
  it('is 1 for texts that differ only in case, punctuation and whitespace', () => {
    // Act
    const similarity = textSimilarity('Hello,   World!', 'hello world');
    // Assert
    expect(similarity).toBe(1);
  });

  it('folds typographic quotes and dashes', () => {
    // Act
    const similarity = textSimilarity('\u201cit\u2019s\u201d \u2014 fine', '"it\'s" - fine');
    // Assert
    expect(similarity).toBe(1);
  });

  it('equals one minus the full edit distance over the longer length', () => {
    // Arrange: pairs sharing long prefixes and suffixes, with edits in between and at the ends.
    let state = 7;
    const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
    const word = () =>
      Array.from({ length: 1 + Math.floor(random() * 7) }, () =>
        String.fromCharCode(97 + Math.floor(random() * 26)),
      ).join('');
    const text = (n: number) => Array.from({ length: n }, word).join(' ');
    for (let i = 0; i < 40; i++) {
      const head = text(Math.floor(random() * 30));
      const tail = text(Math.floor(random() * 30));
      const a = [head, text(Math.floor(random() * 4)), tail].filter(Boolean).join(' ');
      const b = [head, text(Math.floor(random() * 4)), tail].filter(Boolean).join(' ');
      // Act
      const similarity = textSimilarity(a, b);
      // Assert
      const longest = Math.max(a.length, b.length);
      expect(similarity).toBeCloseTo(longest === 0 ? 1 : 1 - distance(a, b) / longest, 12);
    }
  });

  it('scores word order-free texts as sorting every word would, from sorted distinct words', () => {
    // Arrange: texts past 20,000 characters, of repeated and distinct words
    let state = 11;
    const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
    const word = (vocabulary: number) => `w${String(Math.floor(random() * vocabulary))}`;
    const text = (n: number, vocabulary: number) =>
      Array.from({ length: n }, () => word(vocabulary)).join(' ');
    const everyWordSorted = (a: string, b: string) => {
      const sorted = (t: string) => t.split(' ').sort().join(' ').slice(0, 20_000);
      const [x, y] = [sorted(a), sorted(b)];
      return 1 - distance(x, y) / Math.max(x.length, y.length);
    };
    const pairs = [
      [text(30_000, 50), text(30_000, 50)],
      [text(8_000, 100_000), text(9_000, 100_000)],
      [text(200, 20), text(250, 20)],
    ] as const;
    for (const [a, b] of pairs) {
      // Act
      const similarity = textSimilarity(a, b, { orderInsensitive: true });
      // Assert
      expect(similarity).toBeCloseTo(everyWordSorted(a, b), 12);
    }
  });

  it('is 1 for two empty texts and 0 against an empty text', () => {
    // Act
    const bothEmpty = textSimilarity('', '  ');
    const oneEmpty = textSimilarity('abc', '');
    // Assert
    expect(bothEmpty).toBe(1);
    expect(oneEmpty).toBe(0);
  });

  it('penalises reading order unless asked to ignore it', () => {
    // Act
    const ordered = textSimilarity('alpha beta gamma', 'gamma beta alpha');
    const unordered = textSimilarity('alpha beta gamma', 'gamma beta alpha', {
      orderInsensitive: true,
    });
    // Assert
    expect(ordered).toBeLessThan(1);
    expect(unordered).toBe(1);
  });

  it('compares word lists of texts longer than 20,000 characters', () => {
    // Arrange
    const words = Array.from({ length: 4000 }, (_, i) => `word${i}`);
    const a = words.join(' ');
    const b = [...words].reverse().join(' ');
    // Act
    const similarity = textSimilarity(a, b);
    // Assert
    expect(a.length).toBeGreaterThan(20_000);
    expect(similarity).toBe(1);
  });

  it('measures 1 minus the edit distance over the longer length', () => {
    // Act
    const similarity = textSimilarity('abcd', 'abxd');
    // Assert
    expect(similarity).toBe(0.75);
  });
});
