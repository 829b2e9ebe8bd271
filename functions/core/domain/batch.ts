/**
 * Batches (spec §2 "Batch", §3, §4 POST /v1/parse/batch): up to 100 ParseURLRequests parsed in
 * the background, one queue message per document. Pure: no I/O, time comes in.
 *
 * States of a batch and of each of its items: `queued` → `in_progress` → `completed` | `failed`.
 * - An item is `in_progress` from the moment a consumer takes it (before the download), with its
 *   request id ({@link itemRequestId}) written in the same update, and ends `completed` when its
 *   parse completed, `failed` otherwise (the download was refused, the document was rejected, the
 *   parse failed), with the error's kind and detail; an item that failed before its parse request
 *   was made loses the request id in the update that ends it.
 * - A batch is `queued` until its first item starts, then `in_progress`, and it ends once every
 *   item has ended: `failed` when every item failed, `completed` when at least one item
 *   completed (per-item failures are in its items). The terminal status is written once, by a
 *   conditional update; only its writer announces the end (the `batch.completed` webhook).
 *
 * Totals are counters on the batch record, each change a single-item update that moves one
 * count from one state to another (so they always add up to the item count), applied at most
 * once per {@link CountMove.id}: an item's own conditional transition decides who moves it, and a
 * consumer that crashed between the two writes repairs the move on the message's redelivery.
 * They decide when the batch ends and go into its webhook event. They follow each item's
 * transition a write later, so what a client reads (GET /v1/batch) takes its totals and status
 * from the items read instead ({@link totalsOf}, {@link shownStatus}).
 *
 * Priority (`priority`) decides how fast a batch's messages are released onto the shared queue:
 * in waves of {@link RELEASE_WAVE_SIZE}, see {@link RELEASE_SCHEDULE}.
 */

import { z } from 'zod';
import type { JsonSchemaObject } from '../ports/structured-extractor.js';
import type { ParseOptions, Plan, RequestWebhook } from './request.js';

/** Most documents in one batch (spec §8: 1 to 100). */
export const MAX_BATCH_DOCUMENTS = 100;

/** Batch priorities; `normal` is the default. What each changes: {@link RELEASE_SCHEDULE}. */
export const BatchPriority = z.enum(['low', 'normal', 'high']);
export type BatchPriority = z.infer<typeof BatchPriority>;

/** Status of a batch (spec §3). */
export type BatchStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

/** Status of one item of a batch (spec §3): the same four as a batch. */
export type BatchItemStatus = BatchStatus;

/** The statuses an item or a batch ends in. */
export type BatchEndStatus = 'completed' | 'failed';

/** How many items of a batch are in each status; always adding up to the item count. */
export interface BatchTotals {
  queued: number;
  in_progress: number;
  completed: number;
  failed: number;
}

/** The batch record (`BATCH#<id>` / `META`). */
export interface BatchRecord {
  /** `batch_` and letters or digits. */
  id: string;
  tenant: string;
  /** The plan of the API key that submitted the batch: its items' parses count against it. */
  plan?: Plan;
  status: BatchStatus;
  priority: BatchPriority;
  itemCount: number;
  totals: BatchTotals;
  createdAt: string;
  updatedAt: string;
  /** When the terminal status was written. */
  endedAt?: string;
  /** Where to announce the end (`webhook_url`), the API base URL of `result_url`, deliveries. */
  webhook?: RequestWebhook;
  /** The id of the webhook event queued when the batch ended (see `RequestRecord`). */
  webhookEventId?: string;
}

/**
 * Where a batch document's bytes come from: a URL the service downloads (`file_url`), or an upload
 * slot of the tenant's filled beforehand (`upload_id`, POST /v1/uploads).
 */
export type BatchDocumentSource = { fileUrl: string } | { uploadId: string };

/** One document of a batch as accepted: a ParseURLRequest, checked and resolved. */
export type BatchDocument = BatchDocumentSource & BatchDocumentSettings;

/** The parse settings of a batch document. */
export interface BatchDocumentSettings {
  options: ParseOptions;
  /** The checked `extraction_schema` of an extract or hybrid document. */
  extractionSchema?: JsonSchemaObject;
  /** `preferred_model`, resolved to a configured provider id. */
  preferredProvider?: string;
  /** `compare_provider`, resolved to a configured provider id. */
  compareProvider?: string;
}

/** Why an item failed: an error kind and a message free of document content. */
export interface BatchItemError {
  kind: string;
  detail: string;
}

/** One item of a batch (`BATCH#<id>` / `ITEM#0001`). */
export interface BatchItem {
  batchId: string;
  /** 1 for the first document of the request. */
  index: number;
  status: BatchItemStatus;
  document: BatchDocument;
  /** The parse request of the item, once it exists. */
  requestId?: string;
  /** Set when the item failed. */
  error?: BatchItemError;
  updatedAt: string;
}

/**
 * One count moved from a status to another in a batch's totals. `id` names the move (an item and
 * which of its two moves), so that applying it again changes nothing.
 */
export interface CountMove {
  id: string;
  from: BatchItemStatus;
  to: BatchItemStatus;
}

/**
 * The count move of item `index` starting: `queued` → `in_progress`.
 *
 * @example
 * startMove(7); // { id: '0007:start', from: 'queued', to: 'in_progress' }
 */
export function startMove(index: number): CountMove {
  return { id: `${itemNumber(index)}:start`, from: 'queued', to: 'in_progress' };
}

/**
 * The count move of item `index` ending: `in_progress` → `status`. One id for both ends, so an
 * item is counted as ended once, whichever way.
 *
 * @example
 * endMove(7, 'failed'); // { id: '0007:end', from: 'in_progress', to: 'failed' }
 */
export function endMove(index: number, status: BatchEndStatus): CountMove {
  return { id: `${itemNumber(index)}:end`, from: 'in_progress', to: status };
}

/** True for `completed` and `failed`. */
export function hasEnded(status: BatchStatus): status is BatchEndStatus {
  return status === 'completed' || status === 'failed';
}

/**
 * The status a batch ends in, once every item has ended: `failed` when none completed,
 * `completed` otherwise. Undefined while an item is queued or in progress.
 *
 * @example
 * terminalStatusOf({ queued: 0, in_progress: 0, completed: 1, failed: 9 }, 10); // 'completed'
 * terminalStatusOf({ queued: 0, in_progress: 0, completed: 0, failed: 10 }, 10); // 'failed'
 */
export function terminalStatusOf(
  totals: BatchTotals,
  itemCount: number,
): BatchEndStatus | undefined {
  if (totals.completed + totals.failed < itemCount) return undefined;
  return totals.completed === 0 ? 'failed' : 'completed';
}

/**
 * The totals of `items`: how many are in each status.
 *
 * @example
 * totalsOf([{ status: 'completed' }, { status: 'queued' }]);
 * // { queued: 1, in_progress: 0, completed: 1, failed: 0 }
 */
export function totalsOf(items: readonly Pick<BatchItem, 'status'>[]): BatchTotals {
  const totals: BatchTotals = { queued: 0, in_progress: 0, completed: 0, failed: 0 };
  for (const item of items) totals[item.status] += 1;
  return totals;
}

/**
 * The status to show for `batch` whose items, read with it, count `totals`: the record's
 * terminal status once every item read has ended too; `in_progress` once an item has started
 * or the record says so; `queued` before. Never behind the items, and, as items only move
 * forward, never behind an earlier answer.
 *
 * @example
 * // The first item has started; the record's count has not moved yet.
 * shownStatus({ status: 'queued', itemCount: 2 }, { queued: 1, in_progress: 1, completed: 0, failed: 0 });
 * // 'in_progress'
 */
export function shownStatus(
  batch: Pick<BatchRecord, 'status' | 'itemCount'>,
  totals: BatchTotals,
): BatchStatus {
  if (hasEnded(batch.status) && totals.completed + totals.failed === batch.itemCount) {
    return batch.status;
  }
  return batch.status === 'queued' && totals.queued === batch.itemCount ? 'queued' : 'in_progress';
}

/** Totals of a new batch of `itemCount` items: all queued. */
export function queuedTotals(itemCount: number): BatchTotals {
  return { queued: itemCount, in_progress: 0, completed: 0, failed: 0 };
}

/** Messages released onto the queue together. */
export const RELEASE_WAVE_SIZE = 10;

/**
 * When the messages of a batch become visible on the batch queue, by priority: the first wave
 * (items 1 to 10) after `firstSeconds`, each further wave `spacingSeconds` after the previous.
 * The queue is shared by every batch of every tenant and served in about the order messages
 * become visible, by a bounded number of consumers:
 * - `high`: all items at once: they take the consumers as soon as they are free.
 * - `normal`: a wave every 2 s. A lone batch loses almost nothing (consumers take a wave in about
 *   that time), and a batch submitted meanwhile gets its items in between instead of waiting
 *   behind up to 100.
 * - `low`: the first wave after 30 s, then a wave every 30 s (items 91-100 after 5 min): such a
 *   batch never holds more than 10 items of the queue per 30 s, leaving the consumers to the
 *   others. Background work; a lone low batch is slower for it.
 */
export const RELEASE_SCHEDULE: Readonly<
  Record<BatchPriority, { readonly firstSeconds: number; readonly spacingSeconds: number }>
> = Object.freeze({
  high: { firstSeconds: 0, spacingSeconds: 0 },
  normal: { firstSeconds: 0, spacingSeconds: 2 },
  low: { firstSeconds: 30, spacingSeconds: 30 },
});

/** SQS's longest message delay (15 minutes). */
const MAX_DELAY_SECONDS = 900;

/**
 * The delay to queue the message of the item at `position` (0 for the first) with.
 *
 * @example
 * releaseDelaySeconds('normal', 25); // 4 (third wave)
 * releaseDelaySeconds('low', 0); // 30
 */
export function releaseDelaySeconds(priority: BatchPriority, position: number): number {
  const { firstSeconds, spacingSeconds } = RELEASE_SCHEDULE[priority];
  const wave = Math.floor(position / RELEASE_WAVE_SIZE);
  return Math.min(MAX_DELAY_SECONDS, firstSeconds + wave * spacingSeconds);
}

/** Batch ids: `batch_` and letters or digits. */
export const BATCH_ID_PATTERN = /^batch_[A-Za-z0-9]+$/;

/** The message of one batch item on the batch queue: which item; everything else is stored. */
export const BatchItemMessage = z.strictObject({
  batchId: z.string().regex(BATCH_ID_PATTERN),
  index: z.number().int().min(1).max(MAX_BATCH_DOCUMENTS),
});
export type BatchItemMessage = z.infer<typeof BatchItemMessage>;

/**
 * The id of the parse request of item `index` of `batchId`: deterministic, so that two
 * deliveries of one message agree on one request (the second create fails, and the consumer
 * follows the request the first made).
 *
 * @example
 * itemRequestId('batch_abc', 7); // 'req_abcn007'
 */
export function itemRequestId(batchId: string, index: number): string {
  if (!BATCH_ID_PATTERN.test(batchId)) throw new RangeError(`not a batch id: ${batchId}`);
  return `req_${batchId.slice('batch_'.length)}n${String(index).padStart(3, '0')}`;
}

/**
 * The URL of a batch's status: `{baseUrl}/v1/batch/{batchId}`.
 *
 * @example
 * batchResultUrl('https://api.example.com/', 'batch_1'); // 'https://api.example.com/v1/batch/batch_1'
 */
export function batchResultUrl(baseUrl: string, batchId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/v1/batch/${encodeURIComponent(batchId)}`;
}

/** Four digits, as in the item's sort key: `0007`. */
function itemNumber(index: number): string {
  if (!Number.isSafeInteger(index) || index < 1) {
    throw new RangeError(`an item index is a positive integer; got ${index}`);
  }
  return String(index).padStart(4, '0');
}
