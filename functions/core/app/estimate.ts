import { detectDocumentType } from '../domain/document-type.js';
import { AppError, isRefusal } from '../domain/errors.js';
import { workKeys } from '../domain/object-keys.js';
import { measurePages } from '../domain/pipeline/classify.js';
import { openDocument } from '../domain/pipeline/open-document.js';
import { expectedPageCostUsd } from '../domain/pricing.js';
import { DEFAULT_PARSE_OPTIONS } from '../domain/request.js';
import { chooseRoute, tierFor } from '../domain/routing.js';
import type { EstimateResult, Tier } from '../domain/schemas.js';
import type { AppDeps } from './app-deps.js';
import { checkedUpload, type DocumentSource } from './parse-upload.js';
import { cacheKeyOf } from './result-cache.js';

/**
 * POST /v1/parse/estimate: what a parse of the document would route and cost, without parsing
 * it. Runs ingestion and classification only (the same engine measurements and complexity score
 * as the pipeline's Classify) and maps each page with `chooseRoute`, the Route stage's own
 * function, so `tier_mix` equals the `pages_by_tier` a parse reports (breakers aside: an open
 * provider changes the provider, never the tier).
 *
 * - `estimated_cost_usd`: per page, the tier's price plus the per-page price of the provider the
 *   page would go to (token charges of token-priced providers are unknown before they answer, so
 *   such estimates are lower bounds).
 * - `doc_type`: the detected document type (`document_type.detected` of a parse).
 * - `applied_preset`: `tier_floor` is the lowest tier a page may be routed to (`fast`: this
 *   deployment applies no floor, each page goes where its complexity sends it), and
 *   `return_grounding` is true (every parse returns grounding boxes).
 *
 * - A document the result cache holds for the same tenant with the upload form's default options
 *   and this `max_pages` would be answered from the cache: its `estimated_cost_usd` is 0, with
 *   `cached: true`, `cached_from` (the request whose result would answer) and a `reason`. The
 *   page count and tier mix are still measured.
 *
 * The document is stored under `uploads/estimates/` (expired with other uploads) because the
 * engines read documents from the object store; it is not kept as a request, and deleted at once
 * when ingestion refuses it.
 * @throws the errors of the upload (413, 400 for an empty or unsupported file) and of
 *   ingestion (422 for no pages or too many without `max_pages`).
 */
export async function estimateDocument(
  deps: AppDeps,
  upload: DocumentSource & { maxPages: number | null },
): Promise<EstimateResult> {
  const id = `est_${deps.newId()}`;
  const { bytes, format, hash } = await checkedUpload(deps, upload);
  const cacheKey = cacheKeyOf(deps, {
    tenant: upload.tenant,
    documentHash: hash,
    options: { ...DEFAULT_PARSE_OPTIONS, max_pages: upload.maxPages },
  });
  const cached = cacheKey && (await deps.resultCache?.store.get(cacheKey, deps.clock.now()));
  const ref = { key: workKeys.estimate(id), format, hash };
  await deps.objects.put(ref.key, bytes, 'application/octet-stream');
  let measured;
  try {
    const { engine, selected } = await openDocument(
      deps.engineFor,
      ref,
      upload.maxPages,
      deps.settings.maxDocumentPages,
    );
    measured = await measurePages(engine, ref, selected);
  } catch (error) {
    // A refused document (400, 413, 422) is not kept until the uploads expire.
    if (error instanceof AppError && isRefusal(error.kind)) {
      await deps.objects.delete(ref.key);
    }
    throw error;
  }
  const { pages, complexity } = measured;
  const tierMix: Record<Tier, number> = { fast: 0, pro: 0, premium: 0 };
  let cost = 0;
  for (const features of pages) {
    const score = complexity[features.pageNumber] ?? 0;
    const choice = chooseRoute(features, score, deps.settings.thresholds, (tier) =>
      deps.providers.chain(tier),
    );
    // A page no provider can take is estimated at its own tier's price.
    const tier =
      choice && 'tier' in choice ? choice.tier : tierFor(score, deps.settings.thresholds);
    const provider = choice && 'provider' in choice ? choice.provider : undefined;
    tierMix[tier] += 1;
    cost += expectedPageCostUsd(
      deps.settings.priceByTier[tier],
      provider
        ? deps.providers.price(provider)
        : { perPageUsd: 0, perInputTokenUsd: 0, perOutputTokenUsd: 0 },
    );
  }
  return {
    page_count: pages.length,
    tier_mix: tierMix,
    estimated_cost_usd: cached ? 0 : Math.round(cost * 1e6) / 1e6,
    doc_type: detectDocumentType({ format, pages }).detected,
    applied_preset: { tier_floor: 'fast', return_grounding: true },
    ...(cached
      ? {
          cached: true,
          cached_from: cached.requestId,
          reason: `this document was parsed with these options by ${cached.requestId} (until ${cached.validUntil}): a parse would be answered from the result cache at no cost and take no pages of the daily quota; send Cache-Control: no-cache to parse it afresh`,
        }
      : {}),
  };
}
