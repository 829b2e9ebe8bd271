import type { ProgressSink } from '../../ports/event-log.js';
import type { Page, ParseResponse, Tier } from '../schemas.js';
import { detectDocumentType } from '../document-type.js';
import { ConflictError, ParseCancelledError } from '../errors.js';
import { announceFinished } from './announce.js';
import { extractDocument } from './extract.js';
import { renumberHeadings } from '../postprocess.js';
import type { RequestRecord } from '../request.js';
import { isCacheable } from '../result-cache.js';
import { assembleDocumentMarkdown } from '../continued-tables.js';
import { readInspection } from './classify.js';
import { loadLiveRequest } from './load-request.js';
import { readCheckpoints } from './parse-page.js';
import { workKeys } from '../object-keys.js';
import { type PipelinePorts } from '../../ports/pipeline.js';
import { type StageInput } from './stage-input.js';

/**
 * Deliver: assembles the ParseResponse from the page checkpoints, with heading levels made
 * consistent across pages (`heading_renumbered`, unless `maintain_format` is false), and the
 * document type (from the pages' measured features, see `detectDocumentType`), stores it under
 * `results/<tenant>/<id>.json` (and the document's Markdown as `.md`: the pages' Markdown with
 * tables cut by a page break joined, each join a warning on the page that continues the table,
 * see `assembleDocumentMarkdown`), and marks the request
 * completed. Warnings are kept in the stored result; the API drops them unless
 * `include_warnings` is set.
 *
 * In `extract` and `hybrid` modes the `extraction_schema` is filled from the pages (see
 * `extractDocument`): `extracted`, its validation `errors`, the extractor's tokens and cost in
 * `usage`, and an `extraction` object (extractor, model, latency, failovers). In `extract` mode
 * pages keep their tier, provider, confidence, tokens and cost, without Markdown or grounding.
 *
 * When the request has a `cacheKey`, files the result in the result cache (see `fileInCache`).
 * When the request has a webhook, queues its `parse.completed` event (see `announceFinished`).
 *
 * Safe to retry: the result keys derive from the request.
 */
export async function deliver(
  input: StageInput,
  ports: Pick<
    PipelinePorts,
    | 'requests'
    | 'objects'
    | 'clock'
    | 'settings'
    | 'webhooks'
    | 'providers'
    | 'offlineExtractor'
    | 'breakers'
    | 'resultCache'
  >,
  progress: ProgressSink,
): Promise<{ requestId: string }> {
  const record = await loadLiveRequest(ports.requests, input.requestId);
  const [checkpoints, inspection] = await Promise.all([
    readCheckpoints(ports, input.requestId),
    readInspection(ports.objects, input.requestId),
  ]);
  const parsed = record.options.maintain_format ? withConsistentHeadings(checkpoints) : checkpoints;
  const extraction =
    record.options.operation_mode !== 'ocr' && record.extractionSchema
      ? await extractDocument(ports, record.extractionSchema, parsed, record.document)
      : null;
  // extract mode answers with the object: pages keep their accounting, not their content.
  const answered =
    record.options.operation_mode === 'extract'
      ? parsed.map((page) => ({ ...page, content_markdown: '', grounding: [] }))
      : parsed;
  const { markdown, pages } = documentMarkdown(answered);
  const pagesByTier: Record<Tier, number> = { fast: 0, pro: 0, premium: 0 };
  let cost = 0;
  for (const page of pages) {
    pagesByTier[page.tier_used] += 1;
    // Each page's cost is set when it is parsed (tier price, provider price, tokens).
    cost += page.estimated_cost_usd ?? ports.settings.priceByTier[page.tier_used];
  }
  if (extraction) cost += extraction.costUsd;
  const timings = record.timings ?? {};
  const now = ports.clock.now();
  const response: ParseResponse = {
    id: record.id,
    status: 'completed',
    document: {
      hash: record.document.hash,
      pages: record.document.pageCount ?? pages.length,
      format: record.document.format,
      cached: false,
      filename: record.document.filename,
      size_bytes: record.document.sizeBytes,
    },
    pages,
    extracted: extraction?.extracted ?? null,
    usage: {
      total_input_tokens:
        pages.reduce((n, p) => n + p.tokens.input_tokens, 0) +
        (extraction?.tokens.input_tokens ?? 0),
      total_output_tokens:
        pages.reduce((n, p) => n + p.tokens.output_tokens, 0) +
        (extraction?.tokens.output_tokens ?? 0),
      estimated_cost_usd: Math.round(cost * 1e6) / 1e6,
      pages_by_tier: pagesByTier,
    },
    timing: {
      total_ms: Math.max(0, now.getTime() - Date.parse(record.createdAt)),
      classification_ms: timings.classification_ms ?? 0,
      routing_ms: timings.routing_ms ?? 0,
      vlm_processing_ms: timings.vlm_processing_ms ?? 0,
      verification_ms: timings.verification_ms ?? 0,
    },
    document_type: detectDocumentType({
      format: record.document.format,
      pages: inspection.pages,
    }),
    created_at: record.createdAt,
    errors: extraction?.errors ?? [],
    ...(extraction
      ? {
          extraction: {
            provider_id: extraction.providerId,
            model_id: extraction.model,
            latency_ms: extraction.latencyMs,
            failovers: extraction.failovers,
          },
        }
      : {}),
  };
  const resultKey = workKeys.resultJson(record.tenant, record.id);
  const encoder = new TextEncoder();
  await Promise.all([
    ports.objects.put(resultKey, encoder.encode(JSON.stringify(response)), 'application/json'),
    ports.objects.put(
      workKeys.resultMarkdown(record.tenant, record.id),
      encoder.encode(markdown),
      'text/markdown',
    ),
  ]);
  let completed;
  try {
    // A cancel that won meanwhile keeps the request cancelled.
    completed = await ports.requests.update(
      input.requestId,
      { status: 'completed', resultKey, updatedAt: now.toISOString() },
      ['queued', 'processing', 'completed'],
    );
  } catch (error) {
    if (error instanceof ConflictError) throw new ParseCancelledError(input.requestId);
    throw error;
  }
  await fileInCache(ports, completed, response, now);
  await announceFinished(ports, completed, { status: 'completed' });
  progress.emit({ event: 'result.final', result_key: resultKey });
  return { requestId: input.requestId };
}

/**
 * Files a completed result in the result cache under the request's `cacheKey` (replacing the
 * entry there), valid for the retention; not a result that fell short (see `isCacheable`). The
 * cache only saves later work: when it cannot be written, the parse still completes.
 */
async function fileInCache(
  ports: Pick<PipelinePorts, 'resultCache'>,
  record: RequestRecord,
  response: ParseResponse,
  now: Date,
): Promise<void> {
  const cache = ports.resultCache;
  if (!cache || !record.cacheKey || !record.resultKey || !isCacheable(response)) return;
  await cache.store
    .put(record.cacheKey, {
      requestId: record.id,
      resultKey: record.resultKey,
      pages: response.pages.length,
      storedAt: now.toISOString(),
      validUntil: new Date(now.getTime() + cache.retentionMs).toISOString(),
    })
    .catch(() => undefined);
}

/** The pages with heading levels consistent across the document, and a warning where changed. */
function withConsistentHeadings(pages: Page[]): Page[] {
  const headings = renumberHeadings(
    pages.map((p) => ({ pageNumber: p.page_number, markdown: p.content_markdown })),
  );
  return pages.map((page, k) => {
    const heading = headings[k];
    if (!heading?.warning) return page;
    return {
      ...page,
      content_markdown: heading.markdown,
      warnings: [...(page.warnings ?? []), heading.warning],
    };
  });
}

/**
 * The document's Markdown, and the pages with a warning on each whose opening table was joined
 * to the previous page's in it. Page furniture is read from the pages' grounding.
 */
function documentMarkdown(pages: Page[]): { markdown: string; pages: Page[] } {
  const { markdown, warnings } = assembleDocumentMarkdown(
    pages.map((page) => ({
      pageNumber: page.page_number,
      markdown: page.content_markdown,
      furniture: page.grounding
        .filter((g) => g.bbox.label === 'header' || g.bbox.label === 'footer')
        .map((g) => g.text),
    })),
  );
  if (warnings.length === 0) return { markdown, pages };
  return {
    markdown,
    pages: pages.map((page) => {
      const own = warnings.filter((w) => w.page_number === page.page_number);
      return own.length === 0 ? page : { ...page, warnings: [...(page.warnings ?? []), ...own] };
    }),
  };
}
