/**
 * Thresholds of the post-processing steps.
 *
 * Repetition is measured in letters and digits (after Markdown syntax is removed) rather than in
 * characters, so that dot leaders, table rules, form blanks (`______`) and rows of zeros never
 * count as content: 16 letters or digits is about a 20-character line of prose, 32 about a
 * 40-character block.
 */
export const POSTPROCESS_THRESHOLDS = {
  /** Letters and digits a repeated line, sentence or phrase needs before it can be a loop. */
  loopMinSubstance: 16,
  /** Consecutive occurrences of the same line, sentence or phrase that make a loop. */
  loopMinCount: 3,
  /** Consecutive identical table rows that make a loop (identical rows are often printed). */
  tableRowLoopMinCount: 6,
  /** Longest repeating unit looked for within a line, in words. */
  maxLoopWords: 100,
  /** Longest repeating unit looked for within a page, in lines. */
  maxLoopLines: 10,
  /** Letters and digits a block needs before a later copy of it on the same page is removed. */
  blockMinSubstance: 32,
  /** Sentences with fewer words are never flagged as unsupported. */
  hallucinationMinWords: 5,
  /** A sentence is unsupported when a smaller share of its words occurs in the evidence. */
  hallucinationMinSupport: 0.5,
  /** Line numbers listed in a warning's detail. */
  maxListedPositions: 5,
} as const;
