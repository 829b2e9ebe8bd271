/**
 * Webhook deliveries (spec §6 "Webhooks"), the Standard Webhooks scheme: what is sent when a
 * parse finishes or a batch ends, and what to do after each delivery attempt. Pure: no I/O, time
 * comes in.
 *
 * Body: the Standard Webhooks envelope `{ type, timestamp, data }`. `data` carries the request
 * id, its final status and where to fetch the result (`result_url`, GET /v1/parse/{request_id}
 * with the tenant's API key), or the error. The full ParseResponse is deliberately NOT inlined:
 * it can be megabytes (every page's Markdown, grounding and confidence), which would not fit a
 * queue message (SQS caps one at 256 KiB to 1 MiB, by queue setting), would be re-sent on every retry, is often
 * refused by receivers' body limits, and would push document content to a URL that only needs
 * to know "it is done". The receiver fetches the result once, authenticated. A batch's event
 * (`batch.completed`) carries the batch id, its status and totals, and its own `result_url`.
 *
 * Retry policy (decided here, applied by `nextAttempt`):
 * - 2xx: delivered.
 * - 410 Gone: the receiver says the endpoint is gone for good; stop, and disable the endpoint.
 * - 3xx: a failure (retried like other 4xx, below); redirects are never followed (a signed
 *   request must reach the configured URL only, and a redirect could point anywhere, internal
 *   addresses included).
 * - 429, 5xx, network errors and timeouts: retry after the schedule's delay, or later when the
 *   receiver asks so with `Retry-After` (seconds or an HTTP-date, capped at 10 hours).
 * - other 4xx (400, 401, 403, 404, 413...) and 3xx: also retried on the schedule, without
 *   `Retry-After`. These are mostly receiver misconfiguration (a rotated secret not yet deployed,
 *   a route removed during a deploy, a proxy rule) that gets fixed within hours; the schedule
 *   spans about 28 hours, and dropping the event on the first 4xx would lose it silently. Only
 *   410 is taken as a permanent refusal, because that is what it means.
 * - after the last attempt (8 in all), any failure dead-letters the event.
 */

import { z } from 'zod';

/** The delays before attempts 2 to 8: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
]);

/** Attempts per event, the first one included (8). */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_SCHEDULE_MS.length + 1;

/** The longest wait a `Retry-After` header can impose (10 h, the schedule's longest step). */
export const WEBHOOK_MAX_RETRY_AFTER_MS = 10 * 3_600_000;

/** How long one attempt may take, connection to last response byte (15 s). */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/** Prefix of the `webhook-id` header (Standard Webhooks' convention). */
export const WEBHOOK_ID_PREFIX = 'msg_';

/** Characters allowed in an event id: the id is signed as `id.timestamp.body` and sent as a header. */
const EVENT_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** Event types sent when a parse finishes. */
export const WebhookEventType = z.enum(['parse.completed', 'parse.failed']);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** What a receiver gets when a parse finishes: the Standard Webhooks envelope. */
export const ParseWebhookEvent = z.object({
  type: WebhookEventType,
  /** When the parse finished, ISO 8601 UTC (not when an attempt was made). */
  timestamp: z.iso.datetime(),
  data: z.object({
    request_id: z.string().min(1),
    status: z.enum(['completed', 'failed']),
    /** GET /v1/parse/{request_id}: where the full ParseResponse is read (completed only). */
    result_url: z.url().optional(),
    /** Why the parse failed (failed only): an error kind and a message free of document content. */
    error: z.object({ kind: z.string(), detail: z.string() }).optional(),
  }),
});
export type ParseWebhookEvent = z.infer<typeof ParseWebhookEvent>;

const Count = z.number().int().min(0);

/**
 * What a receiver gets when a batch ends (every item completed or failed): the batch's id, its
 * terminal status (`failed` only when every item failed), its totals, and where to read the
 * items (`result_url`, GET /v1/batch/{batch_id} with the tenant's API key). One event type for
 * both ends, sent once per batch.
 */
export const BatchWebhookEvent = z.object({
  type: z.literal('batch.completed'),
  /** When the batch ended, ISO 8601 UTC. */
  timestamp: z.iso.datetime(),
  data: z.object({
    batch_id: z.string().min(1),
    status: z.enum(['completed', 'failed']),
    totals: z.object({ queued: Count, in_progress: Count, completed: Count, failed: Count }),
    result_url: z.url(),
  }),
});
export type BatchWebhookEvent = z.infer<typeof BatchWebhookEvent>;

/** Every event a receiver may get, told apart by `type`. */
export const WebhookEvent = z.discriminatedUnion('type', [ParseWebhookEvent, BatchWebhookEvent]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/**
 * The queue message of one pending delivery attempt (webhook queue, consumed by the webhook
 * deliverer). It names the tenant's secret (`secretRef`), never the secret itself: messages end
 * up in dead-letter queues, consoles and logs.
 *
 * Delays longer than SQS's 15-minute `DelaySeconds` (the schedule goes up to 10 h) are made of
 * hops: the message carries `notBefore`, is sent with `DelaySeconds = min(900, time left)`
 * ({@link queueDelaySeconds}), and a consumer that receives it early sends it again unchanged
 * with the next hop's delay, without attempting. 10 h is 40 hops, each a cheap receive and send.
 * (Keeping the message in flight with ChangeMessageVisibility, up to 12 h, would count every hop
 * as a receive towards the DLQ's maxReceiveCount; a scheduler per attempt is one more service.)
 */
export const WebhookDelivery = z.object({
  /** The event's id: `webhook-id` is `msg_` + this, on every attempt. */
  eventId: z.string().regex(EVENT_ID),
  url: z.url({ protocol: /^https?$/ }),
  /** Where the signing secret is looked up (the tenant id, for example). */
  secretRef: z.string().min(1),
  payload: WebhookEvent,
  /** The number of the attempt this message asks for, 1 for the first. */
  attempt: z.number().int().min(1).max(WEBHOOK_MAX_ATTEMPTS),
  /** Earliest time of the attempt, ISO 8601 UTC; absent for the first attempt. */
  notBefore: z.iso.datetime().optional(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** SQS's longest `DelaySeconds` (15 minutes). */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/**
 * The `DelaySeconds` to send a delivery message with: the whole seconds left until `notBefore`,
 * at most 900 (one hop; see {@link WebhookDelivery}). 0 when the attempt is due, so a consumer
 * that gets a positive value for a received message sends it on instead of attempting.
 *
 * @example
 * queueDelaySeconds('2025-01-01T02:00:00Z', new Date('2025-01-01T00:00:00Z')); // 900
 * queueDelaySeconds('2025-01-01T00:00:30Z', new Date('2025-01-01T00:00:00Z')); // 30
 */
export function queueDelaySeconds(notBefore: string | undefined, now: Date): number {
  if (notBefore === undefined) return 0;
  const left = Date.parse(notBefore) - now.getTime();
  if (!(left > 0)) return 0;
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(left / 1000));
}

/** How a parse ended, as the event builder needs it. */
export type ParseOutcome =
  | { status: 'completed'; resultUrl: string }
  | { status: 'failed'; error: { kind: string; detail: string } };

/**
 * The event announcing that request `requestId` finished.
 *
 * @example
 * parseFinishedEvent('req_1', { status: 'completed', resultUrl: 'https://api/v1/parse/req_1' }, at);
 * // { type: 'parse.completed', timestamp: '2025-…Z',
 * //   data: { request_id: 'req_1', status: 'completed', result_url: 'https://api/v1/parse/req_1' } }
 */
export function parseFinishedEvent(
  requestId: string,
  outcome: ParseOutcome,
  at: Date,
): ParseWebhookEvent {
  const timestamp = at.toISOString();
  if (outcome.status === 'completed') {
    return {
      type: 'parse.completed',
      timestamp,
      data: { request_id: requestId, status: 'completed', result_url: outcome.resultUrl },
    };
  }
  return {
    type: 'parse.failed',
    timestamp,
    data: { request_id: requestId, status: 'failed', error: { ...outcome.error } },
  };
}

/**
 * The URL of a request's result: `{baseUrl}/v1/parse/{requestId}`.
 *
 * @example
 * parseResultUrl('https://api.example.com/', 'req_1'); // 'https://api.example.com/v1/parse/req_1'
 */
export function parseResultUrl(baseUrl: string, requestId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/v1/parse/${encodeURIComponent(requestId)}`;
}

/**
 * The id of the event "request `requestId` finished with `type`": deterministic, so that a
 * producer that runs twice (a retried pipeline stage, an SQS redelivery, a resume that completes
 * the request again) emits the same `webhook-id` and receivers deduplicate it.
 *
 * @example
 * webhookEventId('req_1', 'parse.completed'); // 'req_1_completed'
 */
export function webhookEventId(requestId: string, type: WebhookEventType): string {
  return checkEventId(`${requestId}_${type === 'parse.completed' ? 'completed' : 'failed'}`);
}

/**
 * The event announcing that a batch ended, with its terminal status and totals.
 *
 * @example
 * batchFinishedEvent('batch_1', 'completed', totals, 'https://api/v1/batch/batch_1', at);
 * // { type: 'batch.completed', timestamp: '2025-…Z',
 * //   data: { batch_id: 'batch_1', status: 'completed', totals, result_url: 'https://api/v1/batch/batch_1' } }
 */
export function batchFinishedEvent(
  batchId: string,
  status: 'completed' | 'failed',
  totals: BatchWebhookEvent['data']['totals'],
  resultUrl: string,
  at: Date,
): BatchWebhookEvent {
  return {
    type: 'batch.completed',
    timestamp: at.toISOString(),
    data: { batch_id: batchId, status, totals: { ...totals }, result_url: resultUrl },
  };
}

/**
 * The id of the event "batch `batchId` ended": deterministic (a batch ends once), so a consumer
 * that announces again after a crash sends the same `webhook-id`.
 *
 * @example
 * batchEventId('batch_1'); // 'batch_1_completed'
 */
export function batchEventId(batchId: string): string {
  return checkEventId(`${batchId}_completed`);
}

/**
 * The `webhook-id` header of an event: `msg_` + its id, the same on every attempt.
 * @throws {RangeError} when the id is empty, longer than 200 characters, or has characters
 *   outside `A-Z a-z 0-9 _ -`.
 */
export function webhookId(eventId: string): string {
  return `${WEBHOOK_ID_PREFIX}${checkEventId(eventId)}`;
}

function checkEventId(eventId: string): string {
  if (!EVENT_ID.test(eventId)) {
    throw new RangeError(
      `invalid webhook event id ${JSON.stringify(eventId)}: use 1-200 characters from A-Z a-z 0-9 _ -`,
    );
  }
  return eventId;
}

/** What one attempt gave: a response (any status), or no response at all. */
export type AttemptOutcome =
  | {
      kind: 'response';
      status: number;
      /** The `Retry-After` header as received, or null. */
      retryAfter: string | null;
    }
  | {
      /** Connection refused or reset, DNS failure, TLS failure, timeout... */
      kind: 'no_response';
      error: string;
    };

/** What to do after an attempt. */
export type WebhookDecision =
  | { action: 'delivered' }
  | { action: 'retry'; delayMs: number; reason: string }
  | { action: 'dead_letter'; reason: string }
  | { action: 'disabled'; reason: string };

/** One attempt as recorded with the request. */
export interface WebhookAttemptRecord {
  /** 1 for the first attempt. */
  attempt: number;
  /** When the attempt started, ISO 8601 UTC. */
  at: string;
  /** The HTTP status, or null when no response came. */
  status: number | null;
  /** Why no response came (network error, timeout), or null. */
  error: string | null;
  duration_ms: number;
}

/**
 * Decides what follows an attempt, given how many attempts have been made (this one included)
 * and what it gave. The policy is in this module's header.
 *
 * @example
 * nextAttempt(1, { kind: 'response', status: 503, retryAfter: '120' }, now);
 * // { action: 'retry', delayMs: 120_000, reason: 'HTTP 503' }
 * @throws {RangeError} when `attemptsMade` is not an integer from 1.
 */
export function nextAttempt(
  attemptsMade: number,
  outcome: AttemptOutcome,
  now: Date,
): WebhookDecision {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade must be an integer from 1; got ${attemptsMade}`);
  }
  let reason: string;
  let retryAfterMs = 0;
  if (outcome.kind === 'no_response') {
    reason = outcome.error;
  } else {
    const { status } = outcome;
    if (status >= 200 && status < 300) return { action: 'delivered' };
    reason = `HTTP ${status}`;
    if (status === 410) return { action: 'disabled', reason: `${reason}: the receiver is gone` };
    if (status === 429 || (status >= 500 && status < 600)) {
      retryAfterMs = parseRetryAfter(outcome.retryAfter, now) ?? 0;
    }
  }
  const scheduled = WEBHOOK_RETRY_SCHEDULE_MS[attemptsMade - 1];
  if (scheduled === undefined) {
    return { action: 'dead_letter', reason: `${reason} after ${attemptsMade} attempts` };
  }
  return { action: 'retry', delayMs: Math.max(scheduled, retryAfterMs), reason };
}

/** The asctime date form of HTTP (`Sun Nov  6 08:49:37 1994`), which names no zone. */
const ASCTIME = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * The wait a `Retry-After` header asks for, in milliseconds, at most 10 hours: delay-seconds
 * (`120`) or an HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`; a past date means 0). Null when
 * the header is absent or unreadable.
 *
 * @example
 * parseRetryAfter('120', now); // 120_000
 */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  const text = value?.trim();
  if (!text) return null;
  let ms: number;
  if (/^\d+$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // Every HTTP-date form starts with the weekday; this refuses numbers with signs or
    // fractions and ISO dates, which Date.parse would otherwise read.
    if (!/^[A-Za-z]{3}/.test(text)) return null;
    // asctime (`Sun Nov  6 08:49:37 1994`) has no zone; HTTP means GMT, Date.parse local time.
    const at = Date.parse(ASCTIME.test(text) ? `${text} GMT` : text);
    if (Number.isNaN(at)) return null;
    ms = Math.max(0, at - now.getTime());
  }
  return Math.min(ms, WEBHOOK_MAX_RETRY_AFTER_MS);
}
