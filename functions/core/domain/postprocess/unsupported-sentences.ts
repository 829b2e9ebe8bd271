/**
 * Step 5 of post-processing: sentences the evidence does not support.
 *
 * A vision model can write fluent text that is not on the page; where the page has a text layer
 * or a second engine's text, sentences whose words are mostly missing from it are reported (the
 * Markdown is left as it is, since the evidence can be the wrong one).
 */
import { plainText } from '../markdown.js';
import { isCode, markdownLines, startsWithFenceMarker } from '../markdown-lines.js';
import type { PostprocessWarning } from '../schemas.js';
import { plural, warning } from './step.js';
import { POSTPROCESS_THRESHOLDS } from './thresholds.js';

/**
 * Flags sentences whose words are mostly absent from `evidenceText` (the page's PDF text layer
 * or a second engine's text); the Markdown is not changed.
 *
 * Each line (table row, list item, code line) is reduced to plain text and split into sentences;
 * a sentence of 5+ words is unsupported when under half of its words (case and punctuation
 * folded) are found in the evidence's word multiset, each evidence word supporting one use. A
 * word hyphenated across a line break in the evidence counts whole as well as in parts. Evidence
 * without a single word (a scanned page's empty text layer) is no evidence: nothing is flagged.
 */
export function flagPotentialHallucinations(
  markdown: string,
  evidenceText: string | null,
  pageNumber: number,
): PostprocessWarning | null {
  if (evidenceText === null) return null;
  const remaining = evidenceWords(evidenceText);
  if (remaining.size === 0) return null;
  let totalWords = 0;
  let sentences = 0;
  let unsupported = 0;
  let unsupportedWords = 0;
  const positions = new Set<number>();
  markdownLines(markdown).forEach((line, i) => {
    // Fences, and lines inside code that look like one, are syntax rather than text.
    if (line.kind === 'blank' || (isCode(line) && startsWithFenceMarker(line.text))) return;
    const text = isCode(line) ? line.text : plainText(line.text);
    for (const sentence of text.split(/(?<=[.!?])\s+/)) {
      const sentenceWords = words(sentence);
      totalWords += sentenceWords.length;
      if (sentenceWords.length < POSTPROCESS_THRESHOLDS.hallucinationMinWords) continue;
      sentences++;
      let found = 0;
      for (const word of sentenceWords) {
        const left = remaining.get(word) ?? 0;
        if (left === 0) continue;
        found++;
        remaining.set(word, left - 1);
      }
      if (found / sentenceWords.length >= POSTPROCESS_THRESHOLDS.hallucinationMinSupport) continue;
      unsupported++;
      unsupportedWords += sentenceWords.length;
      positions.add(i + 1);
    }
  });
  if (unsupported === 0) return null;
  const share = Math.round((unsupportedWords / totalWords) * 100);
  return warning(
    'potential_hallucination',
    'warn',
    pageNumber,
    `${unsupported} of ${plural(sentences, 'sentence')} (${share}% of the page's words) have ` +
      `under half of their words in the evidence text; ${listLines([...positions])}`,
  );
}

const words = (text: string): string[] =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');

function evidenceWords(evidence: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (word: string): void => {
    counts.set(word, (counts.get(word) ?? 0) + 1);
  };
  words(evidence).forEach(add);
  for (const m of evidence.normalize('NFKC').matchAll(/(\p{L}+)-[ \t]*\r?\n[ \t]*(\p{L}+)/gu)) {
    add(`${m[1] ?? ''}${m[2] ?? ''}`.toLowerCase());
  }
  return counts;
}

function listLines(lineNumbers: number[]): string {
  const max = POSTPROCESS_THRESHOLDS.maxListedPositions;
  const shown = lineNumbers.slice(0, max).join(', ');
  const more = lineNumbers.length > max ? ` and ${lineNumbers.length - max} more` : '';
  return `${lineNumbers.length > 1 ? 'lines' : 'line'} ${shown}${more}`;
}
