import type { Clock } from './clock.js';
import type { DocumentEngine } from './document-engine.js';
import type { EventLog } from './event-log.js';
import type { ObjectStore } from './object-store.js';
import type { PageParseRequest, PageProvider } from './page-provider.js';
import type { Queue } from './queue.js';
import type { RequestStore } from './request-store.js';
import type { StructuredExtractor } from './structured-extractor.js';
import type { UsageStore } from './usage-store.js';
import type { PlanLimitsByPlan } from '../domain/plans.js';
import type { ProviderPrice } from '../domain/pricing.js';
import type { ResultCaching } from '../domain/result-cache.js';
import type { ProviderCapability, TierThresholds } from '../domain/routing.js';
import type { CircuitBreakerState, DocumentFormat, Tier } from '../domain/schemas.js';

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
  /**
   * Hints provider `id` that `request` will be asked of it soon ({@link PageProvider.prefetch}).
   * Only a provider already running in this process is told: none is built for a hint, and a
   * hint never throws (Route gives them where providers may not run at all).
   */
  prefetch?(id: string, request: PageParseRequest): void;
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
