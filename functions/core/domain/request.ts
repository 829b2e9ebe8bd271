import type { DocumentFormat, OperationMode, Tier } from './schemas.js';
import type { Page } from './schemas.js';
import type { WebhookAttemptRecord } from './webhooks.js';
import type { ResultCacheKey } from '../ports/result-cache.js';
import type { JsonSchemaObject } from '../ports/structured-extractor.js';

export type Plan = 'free' | 'pro' | 'scale';

/** Life of a parse request. `queued` → `processing` → `completed` | `failed` | `cancelled`. */
export type RequestStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';

/** Options of one parse, from the upload's form fields and query parameters (spec §4). */
export interface ParseOptions {
  operation_mode: OperationMode;
  maintain_format: boolean;
  max_pages: number | null;
  enable_verification: boolean | null;
  dpi: number | null;
  include_warnings: boolean;
  extraction_strict: boolean;
  legacy_events: boolean;
}

/**
 * The options of a parse nobody configured (event-driven ingestion): every field at the default
 * of the upload form and query (spec §4).
 */
export const DEFAULT_PARSE_OPTIONS: Readonly<ParseOptions> = Object.freeze({
  operation_mode: 'ocr',
  maintain_format: true,
  max_pages: null,
  enable_verification: null,
  dpi: null,
  include_warnings: false,
  extraction_strict: false,
  legacy_events: false,
});

/** The uploaded document as stored. `key` addresses its bytes in the ObjectStore. */
export interface StoredDocument {
  key: string;
  format: DocumentFormat;
  hash: string;
  filename: string | null;
  sizeBytes: number;
  /** Pages in the document (before `max_pages`), known after ingestion. */
  pageCount?: number;
}

/** Stage durations in milliseconds, written by each pipeline stage. */
export interface StageTimings {
  ingest_ms?: number;
  classification_ms?: number;
  routing_ms?: number;
  vlm_processing_ms?: number;
  verification_ms?: number;
  delivery_ms?: number;
}

/** The request record (`REQ#<id>` / `META`). */
export interface RequestRecord {
  id: string;
  tenant: string;
  /**
   * The plan of the API key that submitted the request, whose daily page quota it counts
   * against. Absent for event-driven ingestion (`incoming/<tenant>/`), which no key authorises:
   * such parses are not metered.
   */
  plan?: Plan;
  status: RequestStatus;
  createdAt: string;
  updatedAt: string;
  options: ParseOptions;
  document: StoredDocument;
  executionId?: string;
  /** Per-page routing decided by the Route stage. */
  routes?: PageRoute[];
  /** ObjectStore key of the ParseResponse JSON, once completed. */
  resultKey?: string;
  error?: { name: string; kind: string; message: string };
  timings?: StageTimings;
  /** Epoch milliseconds at which processing of pages began (end of routing). */
  pagesStartedAt?: number;
  /** Runs of the pipeline started by resumes (absent: none); see `RequestStore.claimRun`. */
  runs?: number;
  /**
   * The run (`runs`, 0 for the first) that was restarted automatically after the server stopped
   * in the middle of it (see `recoverInterruptedParses`). A run is restarted once: if the server
   * stops again during it, the request is marked failed, to be resumed by hand.
   */
  restartedRun?: number;
  /**
   * The `extraction_schema` of an `extract` or `hybrid` parse (checked when accepted; at most
   * 64 KB as JSON), filled by Deliver.
   */
  extractionSchema?: JsonSchemaObject;
  /**
   * The provider every page is sent to first (`preferred_model`, resolved to a provider id),
   * where it can parse the page and its circuit is closed; the tier's chain follows it.
   */
  preferredProvider?: string;
  /** The provider each page is also parsed by, for comparison (`compare_provider`, resolved). */
  compareProvider?: string;
  /** The webhook to call when the parse ends (`webhook_url`), and its deliveries. */
  webhook?: RequestWebhook;
  /**
   * The id of the webhook event queued for this request (`webhook-id` is `msg_` + this). Its own
   * attribute, so that announcing never overwrites the attempts the deliverer records.
   */
  webhookEventId?: string;
  /**
   * The pages counted against the tenant's daily quota for this request (written by Ingest; see
   * `reservePages`): the UTC day they count on, how many, and when. Removed once given back
   * (`refundPages`) on failure or cancel.
   */
  reservedPages?: PageReservation;
  /**
   * Pages whose parse began (a provider was called for them), ascending; see
   * `RequestStore.chargePage`. Written only through `chargePage`/`unchargePage`: a page stays
   * here once the request left `queued`/`processing`, and such pages are never given back to
   * the tenant's daily quota (`refundPages`).
   */
  chargedPages?: number[];
  /**
   * Where Deliver files the result in the result cache once the parse completes (see
   * `resultCacheKey`). Absent: the result is not cached.
   */
  cacheKey?: ResultCacheKey;
  /** The request whose stored result answered this one from the result cache (a cache hit). */
  cachedFrom?: string;
}

/** Pages of one request counted on a tenant's day (`RequestRecord.reservedPages`). */
export interface PageReservation {
  /** The UTC day, `yyyy-mm-dd`. */
  day: string;
  pages: number;
  /** ISO timestamp of the reservation; names it, so that it is given back at most once. */
  reservedAt: string;
  /**
   * How many pages `chargedPages` held when the reservation was made (pages counted by an
   * earlier run, absent: none). Pages charged since are this reservation's parsed pages.
   */
  chargedBefore?: number;
}

/**
 * Delivery state of a request's webhook: `pending` until the event is delivered (or while it is
 * retried), `delivered` on a 2xx, `dead_letter` after the last attempt failed, `disabled` when
 * the receiver answered 410 Gone.
 */
export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'dead_letter' | 'disabled';

/** A request's webhook (`REQ#<id>` / `META`, attribute `webhook`). */
export interface RequestWebhook {
  /** The receiver, checked when the request was accepted and again before every attempt. */
  url: string;
  /** The API's base URL when the request was accepted; the event's `result_url` starts with it. */
  apiBaseUrl: string;
  status: WebhookDeliveryStatus;
  /** Every attempt so far, by attempt number. */
  attempts: WebhookAttemptRecord[];
}

/** Where one page goes: its complexity score, tier and provider. */
export interface PageRoute {
  pageNumber: number;
  complexity: number;
  tier: Tier;
  provider: string;
}

/** A page checkpoint (`REQ#<id>` / `PAGE#<0001>`): the finished Page inline, or a pointer to it when large. */
export interface PageCheckpoint {
  pageNumber: number;
  page?: Page;
  pageKey?: string;
}
