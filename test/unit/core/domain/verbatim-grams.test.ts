import { describe, expect, it } from 'vitest';
import { verbatimParts } from '../../../../functions/core/domain/page-scores.js';

const GRAM = 5;

/** The verbatim parts as the score defines them, computed the plain way: grams as strings. */
const reference = (source: string, text: string) => {
  const grams = (s: string) =>
    Array.from({ length: s.length - GRAM + 1 }, (_, i) => s.slice(i, i + GRAM));
  const count = (list: string[]) => {
    const counts = new Map<string, number>();
    for (const g of list) counts.set(g, (counts.get(g) ?? 0) + 1);
    return counts;
  };
  const [sourceGrams, textGrams] = [grams(source), grams(text)];
  const [want, have] = [count(sourceGrams), count(textGrams)];
  let matched = 0;
  let extra = 0;
  for (const [g, n] of have) {
    matched += Math.min(n, want.get(g) ?? 0);
    extra += Math.max(0, n - (want.get(g) ?? 0));
  }
  const firstAt = new Map<string, number>();
  sourceGrams.forEach((g, i) => {
    if (want.get(g) === 1 && have.get(g) === 1) firstAt.set(g, i);
  });
  const positions = textGrams.flatMap((g) => firstAt.get(g) ?? []);
  // Longest increasing subsequence, quadratic: the lists are short.
  const best = positions.map(() => 1);
  positions.forEach((p, i) => {
    for (let j = 0; j < i; j++)
      if ((positions[j] ?? 0) < p) best[i] = Math.max(best[i] ?? 1, (best[j] ?? 1) + 1);
  });
  const coverage = matched / sourceGrams.length;
  const excess = extra / textGrams.length;
  const order = positions.length === 0 ? 1 : Math.max(...best) / positions.length;
  return { coverage, excess, order, score: coverage * (1 - excess) * order };
};

/** A pseudo-random text of `length` characters drawn from `alphabet` (deterministic). */
const textOf = (alphabet: string[], length: number, seed: number): string => {
  let s = seed;
  return Array.from({ length }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return alphabet[s % alphabet.length] ?? '';
  }).join('');
};

/** The text with a stretch dropped, another repeated and two stretches swapped. */
const edited = (text: string): string =>
  text.slice(0, 40) +
  text.slice(90, 150) +
  text.slice(60, 90) +
  text.slice(150) +
  text.slice(200, 230);

const letters = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => String.fromCodePoint(from + i));

describe('verbatim parts of a page against its evidence', () => {
  it.each([
    [
      'Latin letters and digits (grams read as numbers)',
      [...letters(0x61, 26), ...letters(0x30, 10)],
    ],
    ['64 distinct characters, the most grams are numbered for', letters(0x4e00, 64)],
    ['65 distinct characters (grams compared as strings)', letters(0x4e00, 65)],
    ['hundreds of CJK characters', letters(0x4e00, 400)],
  ])('equals the definition on %s', (_, alphabet) => {
    const evidence = textOf(alphabet, 600, 7);
    const page = edited(evidence);
    expect(verbatimParts(page, evidence)).toEqual(reference(evidence, page));
    expect(verbatimParts(evidence, page)).toEqual(reference(page, evidence));
  });
});
