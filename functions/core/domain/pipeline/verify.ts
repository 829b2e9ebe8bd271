import { renumberHeadings } from '../postprocess.js';
import type { PostprocessWarning } from '../schemas.js';
import { loadRequest } from './load-request.js';
import { readCheckpoints, writeCheckpoint } from './parse-page.js';
import type { PipelinePorts, StageInput } from './pipeline-ports.js';

/** Pages whose verbatim score falls below this are flagged `potential_hallucination`. */
export const HALLUCINATION_THRESHOLD = 0.6;

/**
 * Verify: the document-wide checks, once every page is parsed (the page stage has already
 * cleaned each page and flagged its unsupported sentences):
 * - heading levels made consistent across pages (`heading_renumbered`), unless
 *   `maintain_format` is false (then there are no headings);
 * - `potential_hallucination` for a page whose verbatim score is under
 *   {@link HALLUCINATION_THRESHOLD} when no sentence-level warning flagged it already: the page
 *   as a whole differs from its independent evidence.
 * Records `vlm_processing_ms` (since routing ended) and `verification_ms`.
 *
 * Safe to retry: heading renumbering is idempotent and warnings are replaced, not appended twice.
 */
export async function verify(
  input: StageInput,
  ports: Pick<PipelinePorts, 'requests' | 'objects' | 'clock'>,
): Promise<{ requestId: string }> {
  const started = ports.clock.now().getTime();
  const record = await loadRequest(ports.requests, input.requestId);
  const pages = await readCheckpoints(ports, input.requestId);
  const headings = record.options.maintain_format
    ? renumberHeadings(
        pages.map((p) => ({ pageNumber: p.page_number, markdown: p.content_markdown })),
      )
    : pages.map((p) => ({ markdown: p.content_markdown, warning: null }));
  for (const [k, page] of pages.entries()) {
    const heading = headings[k] ?? { markdown: page.content_markdown, warning: null };
    const previous = page.warnings ?? [];
    const warnings: PostprocessWarning[] = previous.filter(
      (w) => w.kind !== 'heading_renumbered' || heading.warning === null,
    );
    if (heading.warning && !previous.some((w) => w.kind === 'heading_renumbered')) {
      warnings.push(heading.warning);
    }
    if (
      page.confidence.verbatim_score < HALLUCINATION_THRESHOLD &&
      !warnings.some((w) => w.kind === 'potential_hallucination')
    ) {
      warnings.push({
        kind: 'potential_hallucination',
        severity: 'warn',
        page_number: page.page_number,
        detail: `verbatim score ${page.confidence.verbatim_score} is below ${HALLUCINATION_THRESHOLD}: the page text differs from the independent evidence`,
      });
    }
    if (
      heading.markdown !== page.content_markdown ||
      JSON.stringify(warnings) !== JSON.stringify(previous)
    ) {
      await writeCheckpoint(ports, input.requestId, {
        ...page,
        content_markdown: heading.markdown,
        warnings,
      });
    }
  }
  const now = ports.clock.now().getTime();
  await ports.requests.update(input.requestId, {
    updatedAt: new Date(now).toISOString(),
    timings: {
      ...record.timings,
      vlm_processing_ms: Math.max(0, started - (record.pagesStartedAt ?? started)),
      verification_ms: now - started,
    },
  });
  return { requestId: input.requestId };
}
