import { describe, expect, it } from 'vitest';
import { hasLetters } from '../../../../functions/engines/layout/inline.js';
import {
  isWhiteSpace,
  lastToken,
  visibleLength,
  wordCount,
} from '../../../../functions/engines/layout/white-space.js';

/** Strings mixing words, every kind of white space, letters outside the BMP and marks. */
const SAMPLES = [
  '',
  ' ',
  'word',
  '  two  words ',
  'a\u00a0b\u2009c\u3000d\ufeffe\u2028f\tg\nh\u000bi\u000cj\rk',
  'ends in space\u202f',
  'https://example.org/a-b',
  'see www.example.',
  'x**',
  '𝑥 + 𝑦 = 𝑧',
  'Café ˆ naïve',
  '\u1680lead',
  'trail\u205f',
];

describe('white space measures', () => {
  it('treats as white space exactly the code units \\s matches', () => {
    for (let code = 0; code <= 0xffff; code++) {
      expect(isWhiteSpace(code), code.toString(16)).toBe(/\s/.test(String.fromCharCode(code)));
    }
  });

  it('agree with the regular expressions they replace', () => {
    for (const text of SAMPLES) {
      expect(visibleLength(text), text).toBe(text.replace(/\s+/g, '').length);
      expect(lastToken(text), text).toBe(/\S+$/.exec(text)?.[0] ?? '');
      expect(wordCount(text), text).toBe(text.split(/\s+/).filter(Boolean).length);
    }
  });

  it('counts letters in code points, stopping at the count asked for', () => {
    expect(hasLetters('a1', 2)).toBe(false);
    expect(hasLetters('ab', 2)).toBe(true);
    // Mathematical italic letters lie outside the BMP: one letter each, two code units.
    expect(hasLetters('𝑥', 2)).toBe(false);
    expect(hasLetters('𝑥𝑦', 2)).toBe(true);
    expect(hasLetters('Σ + 1', 1)).toBe(true);
    expect(hasLetters('12 + 3', 1)).toBe(false);
    for (const text of SAMPLES) {
      const letters = (text.match(/\p{L}/gu) ?? []).length;
      for (const count of [1, 2, 4, 8]) {
        expect(hasLetters(text, count), `${text} ${count}`).toBe(letters >= count);
      }
    }
  });
});
