import { createHash } from 'node:crypto';
import type { ResultCache, ResultCacheKey } from '../ports/result-cache.js';
import type { ParseOptions } from './request.js';
import type { ParseResponse } from './schemas.js';

/** A deployment's result cache: the store, and what its keys and entries depend on. */
export interface ResultCaching {
  store: ResultCache;
  /**
   * Digest of the configuration a result depends on (the providers, their chains and prices, the
   * router thresholds; see {@link configurationVersion}): a new configuration misses every entry
   * made under the old one.
   */
  configVersion: string;
  /** How long an entry answers after it is stored, in milliseconds (`RETENTION_DAYS`). */
  retentionMs: number;
}

/**
 * JSON text of `value` with the members of every object in code-point order of their names, so
 * that equal values give equal text whatever order their members were written in (RFC 8785's
 * member ordering; numbers and strings are serialised as `JSON.stringify` does). Members whose
 * value is `undefined` are left out, as in `JSON.stringify`.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, { d: null, c: 'x' }] }); // '{"a":[true,{"c":"x","d":null}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`);
    return `{${members.join(',')}}`;
  }
  // Like JSON.stringify inside arrays: what JSON cannot hold is null.
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol')
    return 'null';
  return JSON.stringify(value);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The version of a configuration: the SHA-256 of its canonical JSON. Pass what changes results
 * (providers, chains, prices, thresholds) and nothing secret.
 */
export function configurationVersion(configuration: unknown): string {
  return sha256(canonicalJson(configuration));
}

/** What a parse's result depends on besides the document's bytes. */
export interface ResultInputs {
  tenant: string;
  /** SHA-256 of the document's bytes. */
  documentHash: string;
  options: Pick<
    ParseOptions,
    'operation_mode' | 'maintain_format' | 'max_pages' | 'enable_verification' | 'dpi'
  >;
  /** The checked `extraction_schema` (extract and hybrid modes). */
  extractionSchema?: unknown;
  /** `preferred_model`, resolved to a provider id. */
  preferredProvider?: string;
  /** `compare_provider`, resolved to a provider id. */
  compareProvider?: string;
  /** {@link ResultCaching.configVersion}. */
  configVersion: string;
}

/**
 * The key a parse's result is cached under: the tenant, the document's hash, and a variant that
 * digests every input that changes the output: `operation_mode`, `maintain_format`, `max_pages`,
 * `enable_verification`, `dpi`, the extraction schema (canonical JSON, so member order does not
 * matter), the preferred and compare providers, and the configuration version. Options that only
 * shape the answer (`include_warnings`, `extraction_strict`, `legacy_events`) are applied to the
 * stored result on the way out and are not part of it.
 */
export function resultCacheKey(inputs: ResultInputs): ResultCacheKey {
  const { options } = inputs;
  const variant = sha256(
    canonicalJson({
      v: 1,
      operation_mode: options.operation_mode,
      maintain_format: options.maintain_format,
      max_pages: options.max_pages,
      enable_verification: options.enable_verification,
      dpi: options.dpi,
      extraction_schema: inputs.extractionSchema ?? null,
      preferred_provider: inputs.preferredProvider ?? null,
      compare_provider: inputs.compareProvider ?? null,
      config: inputs.configVersion,
    }),
  );
  return { tenant: inputs.tenant, documentHash: inputs.documentHash, variant };
}

/**
 * Whether a completed result may answer later requests: not when some part of it fell short
 * (a page whose `compare_provider` comparison failed), so a later parse can do better.
 */
export function isCacheable(response: Pick<ParseResponse, 'pages'>): boolean {
  return !response.pages.some((page) => page.comparison?.status === 'failed');
}

/**
 * The stored result of `sourceId` as the answer to the request `id`: the same pages, Markdown,
 * extraction and document type, with `document.cached` true, this request's id, file name and
 * creation time, and nothing charged: zero tokens and cost in `usage` and on every page,
 * `usage.cached` and `usage.cached_from` (the request that parsed it), and `timing` with the
 * time this answer took (`total_ms`), zero stage times and `cached` true.
 */
export function cachedResponse(
  source: ParseResponse,
  request: { id: string; filename: string | null; createdAt: string; totalMs: number },
): ParseResponse {
  return {
    ...source,
    id: request.id,
    status: 'completed',
    document: { ...source.document, cached: true, filename: request.filename },
    pages: source.pages.map((page) => ({
      ...page,
      tokens: { input_tokens: 0, output_tokens: 0 },
      latency_ms: 0,
      ...(page.estimated_cost_usd === undefined ? {} : { estimated_cost_usd: 0 }),
    })),
    usage: {
      total_input_tokens: 0,
      total_output_tokens: 0,
      estimated_cost_usd: 0,
      pages_by_tier: { fast: 0, pro: 0, premium: 0 },
      cached: true,
      cached_from: source.id,
    },
    timing: {
      total_ms: Math.max(0, Math.round(request.totalMs)),
      classification_ms: 0,
      routing_ms: 0,
      vlm_processing_ms: 0,
      verification_ms: 0,
      cached: true,
    },
    created_at: request.createdAt,
  };
}
