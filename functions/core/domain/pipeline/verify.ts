import type { PostprocessWarning } from '../schemas.js';
import { loadLiveRequest } from './load-request.js';
import { readCheckpoints, writeCheckpoint } from './parse-page.js';
import type { PipelinePorts } from '../../ports/pipeline.js';
import type { StageInput } from './stage-input.js';

/** Pages whose verbatim score falls below this are flagged `potential_hallucination`. */
export const HALLUCINATION_THRESHOLD = 0.6;

/**
 * Verify: the checks once every page is parsed (the page stage has already cleaned each page,
 * flagged its unsupported sentences and re-routed low-confidence pages):
 * `potential_hallucination` for a page whose verbatim score is under
 * {@link HALLUCINATION_THRESHOLD} when no sentence-level warning flagged it already: the page
 * as a whole differs from its independent evidence. Records `vlm_processing_ms` (since routing
 * ended) and `verification_ms`. Heading levels across pages are made consistent by Deliver,
 * which assembles the document.
 *
 * Safe to retry: a warning is added only when absent.
 */
export async function verify(
  input: StageInput,
  ports: Pick<PipelinePorts, 'requests' | 'objects' | 'clock'>,
): Promise<{ requestId: string }> {
  const started = ports.clock.now().getTime();
  const record = await loadLiveRequest(ports.requests, input.requestId);
  const pages = await readCheckpoints(ports, input.requestId);
  for (const page of pages) {
    const warnings: PostprocessWarning[] = page.warnings ?? [];
    if (
      page.confidence.verbatim_score < HALLUCINATION_THRESHOLD &&
      !warnings.some((w) => w.kind === 'potential_hallucination')
    ) {
      await writeCheckpoint(ports, input.requestId, {
        ...page,
        warnings: [
          ...warnings,
          {
            kind: 'potential_hallucination',
            severity: 'warn',
            page_number: page.page_number,
            detail: `verbatim score ${page.confidence.verbatim_score} is below ${HALLUCINATION_THRESHOLD}: the page text differs from the independent evidence`,
          },
        ],
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
