import type { PostprocessWarning } from '../schemas.js';

/**
 * What every post-processing step returns: the Markdown of the page, and its warning when the
 * step changed something.
 */
export interface StepResult {
  markdown: string;
  warning: PostprocessWarning | null;
}

/** A warning of a post-processing step about one page. */
export function warning(
  kind: PostprocessWarning['kind'],
  severity: PostprocessWarning['severity'],
  pageNumber: number,
  detail: string,
): PostprocessWarning {
  return { kind, severity, page_number: pageNumber, detail };
}

/** `1 heading`, `2 headings`: the counts in a warning's detail. */
export const plural = (count: number, noun: string): string =>
  `${count} ${noun}${count === 1 ? '' : 's'}`;
