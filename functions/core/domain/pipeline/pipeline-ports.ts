import { z } from 'zod';
import type { Clock } from '../../ports/clock.js';
import type { DocumentEngine } from '../../ports/document-engine.js';
import type { EventLog } from '../../ports/event-log.js';
import type { ObjectStore } from '../../ports/object-store.js';
import type { PageProvider } from '../../ports/page-provider.js';
import type { Queue } from '../../ports/queue.js';
import type { RequestStore } from '../../ports/request-store.js';
import type { StructuredExtractor } from '../../ports/structured-extractor.js';
import type { UsageStore } from '../../ports/usage-store.js';
import type { PlanLimitsByPlan } from '../plans.js';
import type { ProviderPrice } from '../pricing.js';
import type { ResultCaching } from '../result-cache.js';
import type { ProviderCapability, TierThresholds } from '../routing.js';
import type { CircuitBreakerState, DocumentFormat, Tier } from '../schemas.js';

/** Registered providers and the ordered chain of each tier. */
export interface ProviderRegistry {
  /** @throws {Error} for an unregistered id, or where providers cannot run (a configuration error). */
  get(id: string): PageProvider;
  /** The tier's providers, in the order they are tried. */
  chain(tier: Tier): readonly ProviderCapability[];
  /** Every provider of some tier, each once, in configuration order. */
  ids(): readonly string[];
  /** What the provider charges. @throws {Error} for an unregistered id. */
  price(id: string): ProviderPrice;
  /**
   * The providers that fill `extraction_schema` (`extract` and `hybrid` modes), in the order they
   * are tried; empty when only the offline extractor is configured, which is always the last resort.
   */
  extractionChain(): readonly string[];
  /** @throws {Error} for an id not in the extraction chain, or where providers cannot run. */
  extractor(id: string): StructuredExtractor;
}

/**
 * The providers' circuit breakers, shared by every process (spec §3: CLOSED, OPEN, HALF_OPEN,
 * IDLE). Implemented by `ProviderBreakers` over a persisted store.
 */
export interface CircuitBreakers {
  /** Each provider's observed state, and whether it may be called (not OPEN). */
  states(
    ids: readonly string[],
  ): Promise<Map<string, { state: CircuitBreakerState; healthy: boolean }>>;
  /** Asks to call the provider: false while its circuit is open. */
  tryAcquire(id: string): Promise<boolean>;
  succeeded(id: string): Promise<void>;
  failed(id: string, reason: string): Promise<void>;
}

/** Limits and prices the stages apply. */
export interface PipelineSettings {
  maxDocumentPages: number;
  thresholds: TierThresholds;
  priceByTier: Readonly<Record<Tier, number>>;
  /** Each plan's request rate and daily pages (spec §8; `PLAN_LIMITS`). */
  planLimits: PlanLimitsByPlan;
}

/** Everything a pipeline stage may use; each stage takes only what it needs. */
export interface PipelinePorts {
  requests: RequestStore;
  events: EventLog;
  objects: ObjectStore;
  /** The engine that opens a format, or undefined when none is configured for it. */
  engineFor: (format: DocumentFormat) => DocumentEngine | undefined;
  providers: ProviderRegistry;
  /**
   * The extractor that ends every extraction chain: it reads the pages' Markdown, needs no
   * service and spends no token (the engines' offline extractor).
   */
  offlineExtractor: StructuredExtractor;
  /** Absent: every provider is always tried (no breakers). */
  breakers?: CircuitBreakers;
  clock: Clock;
  settings: PipelineSettings;
  /**
   * Where webhook deliveries are queued (see `announceFinished`). Absent: requests with a webhook
   * are not announced (a deployment without the webhook queue refuses `webhook_url` up front).
   */
  webhooks?: Queue;
  /**
   * The counters of the plans' limits (requests per key per minute, pages per tenant per day).
   * Absent: nothing is metered or limited.
   */
  usage?: UsageStore;
  /**
   * The result cache: Deliver files completed results of requests with a `cacheKey` there.
   * Absent: nothing is cached.
   */
  resultCache?: ResultCaching;
}

/** Input of the document-level stages (Ingest, Classify, Route, Verify, Deliver). */
export const StageInput = z.object({ requestId: z.string().min(1) });
export type StageInput = z.infer<typeof StageInput>;

/** Input of the ParsePage task, one per item of the ProcessPages map. */
export const PageStageInput = z.object({
  requestId: z.string().min(1),
  pageNumber: z.number().int().positive(),
});
export type PageStageInput = z.infer<typeof PageStageInput>;

/** Input of RecordFailure: the error caught by the state machine (`{ Error, Cause }`). */
export const FailureStageInput = z.object({
  requestId: z.string().min(1),
  failure: z.object({ Error: z.string(), Cause: z.string().optional() }),
});
export type FailureStageInput = z.infer<typeof FailureStageInput>;

/**
 * The bucket's key layout: every prefix under which the service stores objects. The object keys
 * below, the functions' IAM grants (per prefix, `functions/api/endpoints.ts` and `lib/`) and the
 * bucket's expiry rules ({@link EXPIRING_PREFIXES}) all name these, so they cannot drift apart.
 */
export const OBJECT_PREFIXES = {
  /** Uploaded originals: a request's `uploads/<request_id>/document`. */
  uploads: 'uploads/',
  /** Upload slots (POST /v1/uploads), one level deeper than a request's upload. */
  uploadSlots: 'uploads/slots/',
  /** Documents sent to POST /v1/parse/estimate. */
  estimates: 'uploads/estimates/',
  /** A request's intermediate work (inspection, parsed pages). */
  work: 'work/',
  /** Finished results, `results/<tenant>/<request_id>.json` and `.md`. */
  results: 'results/',
  /** Objects dropped for event-driven ingestion, `incoming/<tenant>/<name>`. */
  incoming: 'incoming/',
} as const;

/**
 * The prefixes whose objects hold documents or their content, each expiring after the retention
 * (the bucket's lifecycle rules, the local store's sweep): uploaded originals (with upload slots
 * and estimates), intermediate page work, results, and objects dropped for ingestion.
 */
export const EXPIRING_PREFIXES = [
  OBJECT_PREFIXES.uploads,
  OBJECT_PREFIXES.work,
  OBJECT_PREFIXES.results,
  OBJECT_PREFIXES.incoming,
] as const;

/** Object keys of a request's intermediate work and results; derived from the input so retries overwrite. */
export const workKeys = {
  upload: (requestId: string) => `${OBJECT_PREFIXES.uploads}${requestId}/document`,
  /** A document sent to POST /v1/parse/estimate (read by the engines, then left to expire). */
  estimate: (estimateId: string) => `${OBJECT_PREFIXES.estimates}${estimateId}/document`,
  inspection: (requestId: string) => `${OBJECT_PREFIXES.work}${requestId}/inspection.json`,
  page: (requestId: string, pageNumber: number) =>
    `${OBJECT_PREFIXES.work}${requestId}/pages/${String(pageNumber).padStart(4, '0')}.json`,
  resultJson: (tenant: string, requestId: string) =>
    `${OBJECT_PREFIXES.results}${tenant}/${requestId}.json`,
  resultMarkdown: (tenant: string, requestId: string) =>
    `${OBJECT_PREFIXES.results}${tenant}/${requestId}.md`,
};
