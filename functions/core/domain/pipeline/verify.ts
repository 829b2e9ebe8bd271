import type { PostprocessWarning } from '../schemas.js';
import { loadRequest } from './load-request.js';
import { readCheckpoints, writeCheckpoint } from './parse-page.js';
import type { PipelinePorts, StageInput } from './pipeline-ports.js';

/** Pages whose verbatim score falls below this are flagged `potential_hallucination`. */
export const HALLUCINATION_THRESHOLD = 0.6;

/**
 * Verify: checks every page's result against its evidence scores and content, and attaches
 * post-processing warnings: `potential_hallucination` when the verbatim score is under
 * {@link HALLUCINATION_THRESHOLD}, `duplicate_region` when a paragraph repeats on the page.
 * Records `vlm_processing_ms` (since routing ended) and `verification_ms`.
 *
 * Safe to retry: warnings are recomputed, not appended.
 */
export async function verify(
  input: StageInput,
  ports: Pick<PipelinePorts, 'requests' | 'objects' | 'clock'>,
): Promise<{ requestId: string }> {
  const started = ports.clock.now().getTime();
  const record = await loadRequest(ports.requests, input.requestId);
  const pages = await readCheckpoints(ports, input.requestId);
  for (const page of pages) {
    const warnings: PostprocessWarning[] = [];
    if (page.confidence.verbatim_score < HALLUCINATION_THRESHOLD) {
      warnings.push({
        kind: 'potential_hallucination',
        severity: 'warn',
        page_number: page.page_number,
        detail: `verbatim score ${page.confidence.verbatim_score} is below ${HALLUCINATION_THRESHOLD}: the page text differs from the independent evidence`,
      });
    }
    const seen = new Set<string>();
    for (const block of page.content_markdown.split(/\n{2,}/)) {
      const key = block.trim().toLowerCase();
      if (key.length < 40) continue;
      if (seen.has(key)) {
        warnings.push({
          kind: 'duplicate_region',
          severity: 'info',
          page_number: page.page_number,
          detail: `a ${key.length}-character block appears more than once on the page`,
        });
        break;
      }
      seen.add(key);
    }
    if (JSON.stringify(warnings) !== JSON.stringify(page.warnings ?? [])) {
      await writeCheckpoint(ports, input.requestId, { ...page, warnings });
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
