import { z } from 'zod';
import {
  BATCH_ID_PATTERN,
  BatchItemMessage,
  MAX_BATCH_DOCUMENTS,
  batchResultUrl,
  endMove,
  hasEnded,
  itemRequestId,
  queuedTotals,
  releaseDelaySeconds,
  shownStatus,
  startMove,
  terminalStatusOf,
  totalsOf,
  type BatchDocument,
  type BatchDocumentSource,
  type BatchEndStatus,
  type BatchItem,
  type BatchItemError,
  type BatchItemStatus,
  type BatchPriority,
  type BatchRecord,
} from '../domain/batch.js';
import {
  AppError,
  ConflictError,
  InvalidExtractionSchemaError,
  NotFoundError,
  ValidationError,
  type ValidationIssue,
} from '../domain/errors.js';
import type { ParseOptions, Plan, RequestRecord } from '../domain/request.js';
import { batchEventId, batchFinishedEvent, type WebhookDelivery } from '../domain/webhooks.js';
import type { DocumentFetcher } from '../ports/document-fetcher.js';
import { QueueSendError, type Queue, type QueueEntry } from '../ports/queue.js';
import type { AppDeps } from './app-deps.js';
import {
  checkedExtractionSchema,
  failureOf,
  resolveProvider,
  startParse,
  submitUpload,
  type WebhookTarget,
} from './parse-upload.js';

/**
 * Deliveries of a batch item's message before it goes to the dead-letter queue (the
 * `maxReceiveCount` of the batch queue, on AWS and locally). On the last one, a failure of the
 * service itself ends the item `failed` instead of leaving it in progress for good.
 */
export const BATCH_ITEM_MAX_RECEIVES = 5;

/**
 * One document of a batch as the handler passes it: a ParseURLRequest (or an upload slot's id in
 * place of its `file_url`), defaults applied.
 */
export type BatchDocumentRequest = BatchDocumentSource & {
  options: ParseOptions;
  /** The `extraction_schema` as received (checked here against `operation_mode`). */
  extractionSchema: unknown;
  /** `preferred_model` as received (resolved here), or null. */
  preferredModel: string | null;
  /** `compare_provider` as received (resolved here), or null. */
  compareProvider: string | null;
};

/** POST /v1/parse/batch as the core takes it. */
export interface BatchSubmission {
  tenant: string;
  /** The caller's plan: the items' parses count against its daily pages. */
  plan?: Plan;
  documents: readonly BatchDocumentRequest[];
  priority: BatchPriority;
  /** Where to announce the end of the batch (`webhook_url`, already checked). */
  webhook?: WebhookTarget;
}

/** The answer to POST /v1/parse/batch (spec §2 "Batch"). */
export interface BatchAccepted {
  batch_id: string;
  status: 'queued';
  item_count: number;
}

/**
 * Accepts a batch (POST /v1/parse/batch):
 * 1. checks every document as POST /v1/parse would before downloading (extraction schema against
 *    the mode, `preferred_model` and `compare_provider` against the configured providers),
 *    reporting every problem at once under `body.documents.<n>.<field>` (422);
 * 2. stores the batch and its items, all `queued` (a webhook's deliveries are signed with the
 *    tenant's secret, which the deliverer creates on the tenant's first delivery: this function
 *    may not read secrets);
 * 3. queues one message per item, released in waves by priority (`releaseDelaySeconds`). An
 *    item the queue does not take ends `failed` at once (resubmit it), so the batch still ends.
 * @returns `{ batch_id, status: 'queued', item_count }`.
 * @throws {ValidationError} (422) for 0 or more than 100 documents, or invalid documents.
 * @throws {Error} when the deployment has no batch queue (nothing is stored).
 */
export async function submitBatch(
  deps: AppDeps,
  submission: BatchSubmission,
): Promise<BatchAccepted> {
  const count = submission.documents.length;
  if (count < 1 || count > MAX_BATCH_DOCUMENTS) {
    throw new ValidationError([
      {
        loc: ['body', 'documents'],
        msg: `a batch has 1 to ${MAX_BATCH_DOCUMENTS} documents; this one has ${count}`,
        type: 'value_error',
      },
    ]);
  }
  const queue = deps.batchItems;
  if (!queue) throw new Error('batches are not available: this deployment has no batch queue');
  const documents = checkedDocuments(deps, submission.documents);

  const now = deps.clock.now().toISOString();
  const batch: BatchRecord = {
    id: `batch_${deps.newId()}`,
    tenant: submission.tenant,
    ...(submission.plan === undefined ? {} : { plan: submission.plan }),
    status: 'queued',
    priority: submission.priority,
    itemCount: count,
    totals: queuedTotals(count),
    createdAt: now,
    updatedAt: now,
    ...(submission.webhook
      ? { webhook: { ...submission.webhook, status: 'pending', attempts: [] } }
      : {}),
  };
  const items = documents.map((document, i): BatchItem => ({
    batchId: batch.id,
    index: i + 1,
    status: 'queued',
    document,
    updatedAt: now,
  }));
  await deps.batches.create(batch, items);
  await releaseItems(deps, queue, batch);
  return { batch_id: batch.id, status: 'queued', item_count: count };
}

/** The documents of a submission, checked and resolved. @throws {ValidationError} listing all. */
function checkedDocuments(
  deps: Pick<AppDeps, 'providers'>,
  documents: readonly BatchDocumentRequest[],
): BatchDocument[] {
  const issues: ValidationIssue[] = [];
  const checked = documents.map((request, i): BatchDocument => {
    const loc = (field: string) => ['body', 'documents', i, field];
    let extractionSchema;
    try {
      extractionSchema = checkedExtractionSchema(
        request.options.operation_mode,
        request.extractionSchema,
      );
    } catch (error) {
      if (!(error instanceof InvalidExtractionSchemaError)) throw error;
      issues.push({ loc: loc('extraction_schema'), msg: error.message, type: 'value_error' });
    }
    const provider = (field: 'preferred_model' | 'compare_provider', value: string | null) => {
      if (value === null) return undefined;
      try {
        return resolveProvider(deps.providers, field, value);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        issues.push(...error.issues.map((issue) => ({ ...issue, loc: loc(field) })));
        return undefined;
      }
    };
    const preferredProvider = provider('preferred_model', request.preferredModel);
    const compareProvider = provider('compare_provider', request.compareProvider);
    return {
      ...('uploadId' in request ? { uploadId: request.uploadId } : { fileUrl: request.fileUrl }),
      options: request.options,
      ...(extractionSchema ? { extractionSchema } : {}),
      ...(preferredProvider === undefined ? {} : { preferredProvider }),
      ...(compareProvider === undefined ? {} : { compareProvider }),
    };
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return checked;
}

/** Queues the items' messages by priority; items the queue does not take end failed. */
async function releaseItems(deps: AppDeps, queue: Queue, batch: BatchRecord): Promise<void> {
  const entries = Array.from({ length: batch.itemCount }, (_, position): QueueEntry => ({
    id: `item${position + 1}`,
    body: { batchId: batch.id, index: position + 1 } satisfies BatchItemMessage,
    delaySeconds: releaseDelaySeconds(batch.priority, position),
  }));
  try {
    await queue.sendMany(entries);
  } catch (error) {
    if (!(error instanceof QueueSendError)) throw error;
    for (const id of error.failedIds) {
      const index = Number(id.slice('item'.length));
      // A message the queue reported as failed may still arrive: its consumer then finds the
      // item taken (or ended) and leaves it. The item never starts, so it has no request id.
      let item: BatchItem;
      try {
        item = await deps.batches.transitionItem(batch.id, index, {
          from: 'queued',
          to: 'failed',
          at: deps.clock.now(),
          error: {
            kind: 'unavailable',
            detail: 'the document could not be queued for parsing; submit it again',
          },
        });
      } catch (failure) {
        if (failure instanceof ConflictError) continue;
        throw failure;
      }
      await settleEnded(deps, batch.id, item, true);
    }
  }
}

/**
 * A batch owned by `tenant` as GET /v1/batch/{batch_id} shows it: `batch_id`, `status`,
 * `totals` (always adding up to `item_count`), `completed_documents` (items ended, completed or
 * failed) and `total_documents`, and `items` in submission order, each with its `request_id`
 * (set when it starts; null while queued, and for an item that failed before its parse request
 * existed), `status`, `file_url`, and `error` when it failed. With a webhook, its delivery state
 * too.
 *
 * One snapshot: the record and the items are read together, and the totals and the status are
 * those of the items read ({@link totalsOf}, {@link shownStatus}), never the record's counters,
 * which follow the items' transitions a write later.
 * @throws {NotFoundError} when the id is unknown or owned by another tenant (identical 404).
 */
export async function getBatch(
  deps: Pick<AppDeps, 'batches'>,
  tenant: string,
  batchId: string,
): Promise<Record<string, unknown>> {
  const read = BATCH_ID_PATTERN.test(batchId)
    ? await deps.batches.getWithItems(batchId)
    : undefined;
  if (!read || read.batch.tenant !== tenant) throw new NotFoundError(`batch ${batchId} not found`);
  const { batch, items } = read;
  const totals = totalsOf(items);
  const status = shownStatus(batch, totals);
  return {
    batch_id: batch.id,
    status,
    priority: batch.priority,
    created_at: batch.createdAt,
    ...(hasEnded(status) && batch.endedAt !== undefined ? { ended_at: batch.endedAt } : {}),
    item_count: batch.itemCount,
    totals: { ...totals },
    completed_documents: totals.completed + totals.failed,
    total_documents: batch.itemCount,
    items: items.map((item) => ({
      request_id: item.requestId ?? null,
      status: item.status,
      file_url: 'fileUrl' in item.document ? item.document.fileUrl : null,
      ...('uploadId' in item.document ? { upload_id: item.document.uploadId } : {}),
      ...(item.error ? { error: item.error } : {}),
    })),
    ...(batch.webhook
      ? {
          webhook: {
            url: batch.webhook.url,
            status: batch.webhook.status,
            attempts: batch.webhook.attempts,
          },
        }
      : {}),
  };
}

/** What became of one message of the batch queue, for the consumer's log. */
export type BatchItemOutcome =
  | { kind: 'malformed'; problem: string }
  /** No such batch or item (nothing to do). */
  | { kind: 'unknown'; batchId: string; index: number }
  /** The item had ended before this delivery (a redelivered message): nothing parsed again. */
  | { kind: 'ended'; status: BatchItemStatus }
  | { kind: 'processed'; status: BatchEndStatus; requestId?: string };

/** How an item ended. */
interface ItemEnd {
  status: BatchEndStatus;
  error?: BatchItemError;
  /** The item's parse request, when one was made (kept on the item; dropped otherwise). */
  requestId?: string;
}

/**
 * Handles one message of the batch queue (a {@link BatchItemMessage} as JSON text): parses the
 * item's document as POST /v1/parse does, and records how it ended.
 * 1. A malformed message, or one naming no stored item, is reported and dropped.
 * 2. An item that has ended already is left as it is (the message was delivered again); its
 *    counts and the batch's end are repaired if a crash interrupted them.
 * 3. A queued item is moved to `in_progress` together with its request id, derived from the
 *    batch and the item's position (of concurrent deliveries, one wins; the others follow its
 *    request), and one count moves from queued to in_progress.
 * 4. The document is downloaded with `fetcher` and submitted under that request id; the parse is
 *    started and awaited. When the request exists already (a delivery after a crash or a Lambda
 *    timeout), it is followed instead of starting another.
 * 5. The item ends `completed`, or `failed` with the error's kind and detail (a refused or
 *    failed download, a rejected document, a failed or cancelled parse); an item whose request
 *    was never made loses its request id as it ends. One item's failure never touches another.
 * 6. One count moves from in_progress to the end status; when that was the last item, the batch
 *    gets its terminal status (once) and its webhook event is queued.
 *
 * @param delivery.receiveCount the message's deliveries so far, this one included.
 * @throws anything unexpected (storage, queue), so that the message is delivered again; on the
 *   last delivery ({@link BATCH_ITEM_MAX_RECEIVES}) the item ends `failed` instead.
 */
export async function processBatchItem(
  deps: AppDeps,
  fetcher: DocumentFetcher,
  body: string,
  delivery: { receiveCount: number },
): Promise<BatchItemOutcome> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return { kind: 'malformed', problem: `not JSON: ${(error as Error).message}` };
  }
  const parsed = BatchItemMessage.safeParse(json);
  if (!parsed.success) return { kind: 'malformed', problem: z.prettifyError(parsed.error) };
  const { batchId, index } = parsed.data;
  const [batch, stored] = await Promise.all([
    deps.batches.get(batchId),
    deps.batches.getItem(batchId, index),
  ]);
  if (!batch || !stored) return { kind: 'unknown', batchId, index };
  let item = stored;
  if (item.status === 'queued') {
    try {
      // The request id derives from the item, so it is written with the start: an item in
      // progress always names its request (which exists once the document is downloaded).
      item = await deps.batches.transitionItem(batchId, index, {
        from: 'queued',
        to: 'in_progress',
        at: deps.clock.now(),
        requestId: itemRequestId(batchId, index),
      });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      item = (await deps.batches.getItem(batchId, index)) ?? item;
    }
  }
  if (hasEnded(item.status)) {
    await settleEnded(deps, batchId, item, true);
    return { kind: 'ended', status: item.status };
  }
  await deps.batches.applyMove(batchId, startMove(index), deps.clock.now());

  let end: ItemEnd;
  try {
    end = await runItem(deps, fetcher, batch, item);
  } catch (error) {
    if (delivery.receiveCount < BATCH_ITEM_MAX_RECEIVES) throw error;
    const requestId = itemRequestId(batchId, index);
    end = {
      status: 'failed',
      error: {
        kind: 'internal',
        detail: `the document could not be processed after ${delivery.receiveCount} attempts; submit it again`,
      },
      ...((await deps.requests.get(requestId)) ? { requestId } : {}),
    };
  }
  const ended = await endItem(deps, batchId, index, end);
  return {
    kind: 'processed',
    status: ended,
    ...(end.requestId === undefined ? {} : { requestId: end.requestId }),
  };
}

/**
 * Steps 4 and 5 of {@link processBatchItem}: the item's parse, from download to outcome. A
 * request of the item that exists already (an earlier delivery made it, then crashed or timed
 * out) is followed instead of downloading again.
 */
async function runItem(
  deps: AppDeps,
  fetcher: DocumentFetcher,
  batch: BatchRecord,
  item: BatchItem,
): Promise<ItemEnd> {
  const requestId = itemRequestId(batch.id, item.index);
  if (!(await deps.requests.get(requestId))) {
    const refused = await submitItem(deps, fetcher, batch, item, requestId);
    if (refused) return { status: 'failed', error: refused.error };
  }
  return { ...(await followRequest(deps, requestId)), requestId };
}

/**
 * Downloads and submits the item's document under the item's request id. A second submission
 * (another delivery got there first) finds the request there, and the caller follows it.
 * @returns nothing once the request exists, or the error that ended the item before any request
 *   existed.
 */
async function submitItem(
  deps: AppDeps,
  fetcher: DocumentFetcher,
  batch: BatchRecord,
  item: BatchItem,
  requestId: string,
): Promise<{ error: BatchItemError } | undefined> {
  const { document } = item;
  try {
    const source =
      'uploadId' in document
        ? { uploadId: document.uploadId }
        : await fetcher.fetch(document.fileUrl, { maxBytes: deps.limits.maxUploadBytes });
    await submitUpload(
      deps,
      {
        tenant: batch.tenant,
        ...(batch.plan === undefined ? {} : { plan: batch.plan }),
        ...('uploadId' in source
          ? { uploadId: source.uploadId }
          : { bytes: source.bytes, filename: source.filename }),
        options: document.options,
        extractionSchema: document.extractionSchema ?? null,
        providers: {
          ...(document.preferredProvider === undefined
            ? {}
            : { preferred: document.preferredProvider }),
          ...(document.compareProvider === undefined ? {} : { compare: document.compareProvider }),
        },
      },
      // A document the result cache has is answered from it: its request is completed at once.
      { requestId, useCache: true },
    );
  } catch (error) {
    if (!(error instanceof ConflictError)) {
      if (error instanceof AppError && error.kind !== 'transient') {
        return { error: { kind: error.kind, detail: error.message } };
      }
      throw error;
    }
  }
  return undefined;
}

/** Starts the request's parse unless it has ended (starting is idempotent), waits, reads the end. */
async function followRequest(deps: AppDeps, requestId: string): Promise<ItemEnd> {
  let record = await deps.requests.get(requestId);
  if (!record) throw new Error(`the parse request ${requestId} of a batch item does not exist`);
  if (!requestEnded(record)) {
    const { executionId } = await startParse(deps, requestId);
    const outcome = await deps.workflow.wait(executionId);
    record = await deps.requests.get(requestId);
    if (!record || !requestEnded(record)) {
      return {
        status: 'failed',
        error: {
          kind: 'internal',
          detail: `the parse ended without a result (execution ${outcome.status.toLowerCase()})`,
        },
      };
    }
  }
  if (record.status === 'completed') return { status: 'completed' };
  if (record.status === 'cancelled') {
    return { status: 'failed', error: { kind: 'cancelled', detail: 'the parse was cancelled' } };
  }
  const failure = record.error ? failureOf(record.error) : undefined;
  return {
    status: 'failed',
    error:
      failure instanceof AppError
        ? { kind: failure.kind, detail: failure.message }
        : { kind: 'internal', detail: 'the parse failed (internal error)' },
  };
}

function requestEnded(record: RequestRecord): boolean {
  return (
    record.status === 'completed' || record.status === 'failed' || record.status === 'cancelled'
  );
}

/**
 * Ends an item in progress with `end` and counts it. The item keeps its request id when
 * `end.requestId` names it, and loses it otherwise (no request was made). When another delivery
 * ended it first, its end stands and is the one counted.
 * @returns the status the item ended with.
 */
async function endItem(
  deps: AppDeps,
  batchId: string,
  index: number,
  end: ItemEnd,
): Promise<BatchEndStatus> {
  let item: BatchItem;
  try {
    item = await deps.batches.transitionItem(batchId, index, {
      from: 'in_progress',
      to: end.status,
      at: deps.clock.now(),
      requestId: end.requestId ?? null,
      ...(end.error ? { error: end.error } : {}),
    });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const current = await deps.batches.getItem(batchId, index);
    if (!current || !hasEnded(current.status)) throw error;
    item = current;
  }
  await settleEnded(deps, batchId, item, false);
  return item.status as BatchEndStatus;
}

/**
 * Counts an ended item (once, whoever calls) and ends the batch when it was the last one.
 * `repairStart` also applies the item's start move, for an item found ended by a later
 * delivery (its first delivery may have crashed between the item's writes and the counts').
 */
async function settleEnded(
  deps: AppDeps,
  batchId: string,
  item: BatchItem,
  repairStart: boolean,
): Promise<void> {
  const at = deps.clock.now();
  if (repairStart) await deps.batches.applyMove(batchId, startMove(item.index), at);
  const { batch } = await deps.batches.applyMove(
    batchId,
    endMove(item.index, item.status as BatchEndStatus),
    at,
  );
  const status = terminalStatusOf(batch.totals, batch.itemCount);
  if (!status) return;
  let ended = batch;
  if (hasEnded(batch.status)) {
    // Ended before; announced unless a crash came between the end and the announcement.
    if (batch.webhookEventId !== undefined) return;
  } else {
    try {
      ended = await deps.batches.finish(batchId, status, deps.clock.now());
    } catch (error) {
      // Another consumer wrote the end, and announces it.
      if (error instanceof ConflictError) return;
      throw error;
    }
  }
  await announceBatchFinished(deps, ended);
}

/**
 * Queues the first delivery attempt of the batch's `batch.completed` event when it has a
 * webhook, then records the event id on the batch, as `announceFinished` does for a request:
 * the event id derives from the batch, so an announcement repeated after a crash carries the
 * same `webhook-id`, which receivers deduplicate.
 * @throws {QueueSendError} when the webhook queue does not take the message.
 */
export async function announceBatchFinished(
  deps: Pick<AppDeps, 'batches' | 'webhooks' | 'clock'>,
  batch: BatchRecord,
): Promise<void> {
  const webhook = batch.webhook;
  if (!webhook || !deps.webhooks || !hasEnded(batch.status)) return;
  const eventId = batchEventId(batch.id);
  if (batch.webhookEventId === eventId) return;
  const at = batch.endedAt === undefined ? deps.clock.now() : new Date(batch.endedAt);
  const message: WebhookDelivery = {
    eventId,
    url: webhook.url,
    secretRef: batch.tenant,
    payload: batchFinishedEvent(
      batch.id,
      batch.status,
      batch.totals,
      batchResultUrl(webhook.apiBaseUrl, batch.id),
      at,
    ),
    attempt: 1,
  };
  await deps.webhooks.send({ body: message });
  await deps.batches.update(batch.id, { webhookEventId: eventId });
}
