import { describe, expect, it, vi } from 'vitest';
import { StandardWebhookSigner } from '../../../../functions/adapters/http/webhook-signer.js';
import {
  BATCH_ITEM_MAX_RECEIVES,
  announceBatchFinished,
  getBatch,
  processBatchItem,
  submitBatch,
  type BatchDocumentRequest,
  type BatchSubmission,
} from '../../../../functions/core/app/batch.js';
import { submitUpload } from '../../../../functions/core/app/parse-upload.js';
import { handleWebhookMessage } from '../../../../functions/core/app/webhook-consumer.js';
import {
  endMove,
  itemRequestId,
  startMove,
  type BatchPriority,
} from '../../../../functions/core/domain/batch.js';
import {
  NotFoundError,
  ProviderUnavailableError,
  UrlRefusedError,
  ValidationError,
} from '../../../../functions/core/domain/errors.js';
import { WebhookDelivery } from '../../../../functions/core/domain/webhooks.js';
import type {
  DocumentFetcher,
  FetchedDocument,
} from '../../../../functions/core/ports/document-fetcher.js';
import {
  QueueSendError,
  type Queue,
  type QueueEntry,
  type QueueMessage,
} from '../../../../functions/core/ports/queue.js';
import type { BatchStore } from '../../../../functions/core/ports/batch-store.js';
import type {
  WebhookResponse,
  WebhookSender,
} from '../../../../functions/core/ports/webhook-sender.js';
import { InMemoryBatchStore } from '../../../support/fakes.js';
import {
  FakePageProvider,
  OTHER_TENANT,
  TENANT,
  TINY_PDF,
  anAppWorld,
  anUploadedSlot,
  parseOptions,
  type AppWorld,
} from '../../../support/builders.js';

/** A queue that keeps what it is sent; `refuse` names entries it reports as not taken. */
class RecordingQueue implements Queue {
  readonly sent: QueueMessage[] = [];
  readonly entries: QueueEntry[] = [];
  readonly #refuse: ReadonlySet<string>;

  constructor(refuse: readonly string[] = []) {
    this.#refuse = new Set(refuse);
  }

  send(message: QueueMessage): Promise<void> {
    this.sent.push(message);
    return Promise.resolve();
  }

  sendMany(entries: readonly QueueEntry[]): Promise<void> {
    const taken = entries.filter((e) => !this.#refuse.has(e.id));
    this.entries.push(...taken);
    const failures = entries
      .filter((e) => this.#refuse.has(e.id))
      .map((e) => ({ id: e.id, code: 'InternalError', message: 'try later', senderFault: false }));
    if (failures.length === 0) return Promise.resolve();
    return Promise.reject(new QueueSendError('some messages were not sent', failures));
  }
}

/** Serves fixed documents by URL; anything else is refused as a 404 would be. */
class FakeFetcher implements DocumentFetcher {
  readonly fetched: string[] = [];
  readonly #failure: Error | undefined;

  constructor(failure?: Error) {
    this.#failure = failure;
  }

  fetch(url: string): Promise<FetchedDocument> {
    this.fetched.push(url);
    if (this.#failure) return Promise.reject(this.#failure);
    if (url.includes('missing')) {
      return Promise.reject(new UrlRefusedError('URL refused: the URL answered HTTP 404'));
    }
    return Promise.resolve({
      bytes: TINY_PDF,
      contentType: 'application/pdf',
      finalUrl: url,
      filename: url.split('/').pop() ?? null,
    });
  }
}

/** Serves one document once `release` is called; `started` settles when it is asked for. */
class HeldFetcher implements DocumentFetcher {
  readonly started: Promise<void>;
  readonly #asked: () => void;
  readonly #released: Promise<void>;
  readonly release: () => void;

  constructor() {
    let asked = () => {};
    let release = () => {};
    this.started = new Promise((resolve) => (asked = resolve));
    this.#released = new Promise((resolve) => (release = resolve));
    this.#asked = asked;
    this.release = release;
  }

  async fetch(url: string): Promise<FetchedDocument> {
    this.#asked();
    await this.#released;
    return { bytes: TINY_PDF, contentType: 'application/pdf', finalUrl: url, filename: 'a.pdf' };
  }
}

type View = Awaited<ReturnType<typeof getBatch>>;

/** A batch store that reads GET /v1/batch of the batch after every write it takes. */
class ViewingBatchStore extends InMemoryBatchStore {
  readonly views: View[] = [];

  override async transitionItem(...args: Parameters<BatchStore['transitionItem']>) {
    return this.#viewed(args[0], await super.transitionItem(...args));
  }

  override async applyMove(...args: Parameters<BatchStore['applyMove']>) {
    return this.#viewed(args[0], await super.applyMove(...args));
  }

  override async finish(...args: Parameters<BatchStore['finish']>) {
    return this.#viewed(args[0], await super.finish(...args));
  }

  async #viewed<T>(batchId: string, result: T): Promise<T> {
    this.views.push(await getBatch({ batches: this }, TENANT, batchId));
    return result;
  }
}

const STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
type Status = (typeof STATUSES)[number];
const RANK: Record<Status, number> = { queued: 0, in_progress: 1, completed: 2, failed: 2 };

/** What is wrong with a batch view, alone and after the view before it. */
function problemsOf(view: View, previous: View | undefined): string[] {
  const shown = view as {
    status: Status;
    item_count: number;
    totals: Record<Status, number>;
    completed_documents: number;
    items: { request_id: string | null; status: Status }[];
  };
  const before = previous as typeof shown | undefined;
  const problems: string[] = [];
  for (const status of STATUSES) {
    const counted = shown.items.filter((item) => item.status === status).length;
    if (shown.totals[status] !== counted) {
      problems.push(`totals.${status} is ${shown.totals[status]}; ${counted} items are`);
    }
  }
  if (shown.completed_documents !== shown.totals.completed + shown.totals.failed) {
    problems.push(`completed_documents is ${shown.completed_documents}`);
  }
  shown.items.forEach((item, i) => {
    if ((item.status === 'in_progress' || item.status === 'completed') && !item.request_id) {
      problems.push(`item ${i + 1} is ${item.status} without a request id`);
    }
    const was = before?.items[i]?.status;
    if (was && RANK[item.status] < RANK[was])
      problems.push(`item ${i + 1}: ${was} → ${item.status}`);
  });
  if (before && RANK[shown.status] < RANK[before.status]) {
    problems.push(`batch: ${before.status} → ${shown.status}`);
  }
  if (shown.status === 'queued' && shown.totals.queued < shown.item_count) {
    problems.push('the batch is queued while an item has started');
  }
  if (RANK[shown.status] === 2 && shown.completed_documents < shown.item_count) {
    problems.push(`the batch is ${shown.status} while items are open`);
  }
  return problems;
}

const HOOK = { url: 'https://hooks.example.com/batches', apiBaseUrl: 'https://api.example.com' };

type World = AppWorld & { batchItems: RecordingQueue; webhooks: RecordingQueue };

async function aWorld(
  options: { refuse?: string[]; providers?: FakePageProvider[] } = {},
): Promise<World> {
  const [textProvider, ocrProvider] = options.providers ?? [];
  const world = await anAppWorld({
    ...(textProvider ? { textProvider } : {}),
    ...(ocrProvider ? { ocrProvider } : {}),
  });
  return Object.assign(world, {
    batchItems: new RecordingQueue(options.refuse),
    webhooks: new RecordingQueue(),
  });
}

function aDocument(overrides: Partial<BatchDocumentRequest> = {}): BatchDocumentRequest {
  return {
    fileUrl: 'https://files.example.com/report.pdf',
    options: parseOptions(),
    extractionSchema: null,
    preferredModel: null,
    compareProvider: null,
    ...overrides,
  };
}

/** A batch document naming an upload slot instead of a URL. */
const anUploadedDocument = (uploadId: string): BatchDocumentRequest => ({
  uploadId,
  options: parseOptions(),
  extractionSchema: null,
  preferredModel: null,
  compareProvider: null,
});

function aSubmission(
  count: number,
  overrides: Partial<BatchSubmission> = {},
  url: (i: number) => string = (i) => `https://files.example.com/doc-${i + 1}.pdf`,
): BatchSubmission {
  return {
    tenant: TENANT,
    plan: 'pro',
    priority: 'normal',
    documents: Array.from({ length: count }, (_, i) => aDocument({ fileUrl: url(i) })),
    ...overrides,
  };
}

/** Delivers every message queued so far, `times` each, all at once. */
async function deliverAll(world: World, fetcher: DocumentFetcher, times = 1) {
  const bodies = world.batchItems.entries.map((e) => JSON.stringify(e.body));
  return Promise.all(
    bodies.flatMap((body) =>
      Array.from({ length: times }, () =>
        processBatchItem(world, fetcher, body, { receiveCount: 1 }),
      ),
    ),
  );
}

const bodyOf = (world: World, index: number) => {
  const entry = world.batchItems.entries.find((e) => e.id === `item${index}`);
  if (!entry) throw new Error(`no message for item ${index}`);
  return JSON.stringify(entry.body);
};

describe('submitBatch', () => {
  it('stores the batch and its items queued, and queues one message per item', async () => {
    // Arrange
    const world = await aWorld();
    // Act
    const accepted = await submitBatch(world, aSubmission(3));
    // Assert
    expect(accepted).toEqual({ batch_id: 'batch_id0001', status: 'queued', item_count: 3 });
    expect(await world.batches.get('batch_id0001')).toMatchObject({
      tenant: TENANT,
      plan: 'pro',
      status: 'queued',
      priority: 'normal',
      itemCount: 3,
      totals: { queued: 3, in_progress: 0, completed: 0, failed: 0 },
    });
    const items = await world.batches.listItems('batch_id0001');
    expect(
      items.map((i) => [i.index, i.status, 'fileUrl' in i.document ? i.document.fileUrl : null]),
    ).toEqual([
      [1, 'queued', 'https://files.example.com/doc-1.pdf'],
      [2, 'queued', 'https://files.example.com/doc-2.pdf'],
      [3, 'queued', 'https://files.example.com/doc-3.pdf'],
    ]);
    expect(world.batchItems.entries.map((e) => e.body)).toEqual([
      { batchId: 'batch_id0001', index: 1 },
      { batchId: 'batch_id0001', index: 2 },
      { batchId: 'batch_id0001', index: 3 },
    ]);
  });

  it.each<[BatchPriority, number[]]>([
    ['high', [0, 0, 0, 0, 0]],
    ['normal', [0, 0, 2, 6, 8]],
    ['low', [30, 30, 60, 120, 150]],
  ])('releases a %s batch in waves of ten: delays %j', async (priority, expected) => {
    // Arrange
    const world = await aWorld();
    // Act
    await submitBatch(world, aSubmission(50, { priority }));
    // Assert: items 1, 10, 11, 31 and 50.
    const delays = world.batchItems.entries.map((e) => e.delaySeconds);
    expect([0, 9, 10, 30, 49].map((i) => delays[i])).toEqual(expected);
  });

  it.each([0, 101])('refuses %i documents with 422 and stores nothing', async (count) => {
    // Arrange
    const world = await aWorld();
    // Act
    const submitting = submitBatch(world, aSubmission(count));
    // Assert
    await expect(submitting).rejects.toBeInstanceOf(ValidationError);
    await expect(submitting).rejects.toThrow('a batch has 1 to 100 documents');
    expect(world.batchItems.entries).toEqual([]);
  });

  it('checks every document as POST /v1/parse does and reports each problem at its index', async () => {
    // Arrange
    const world = await aWorld();
    const submission = aSubmission(1, {
      documents: [
        aDocument(),
        aDocument({ extractionSchema: { type: 'object' } }),
        aDocument({ preferredModel: 'gpt-imaginary', compareProvider: 'ocr' }),
        aDocument({ options: parseOptions({ operation_mode: 'extract' }) }),
      ],
    });
    // Act
    const error = await submitBatch(world, submission).catch((e: unknown) => e);
    // Assert
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.loc)).toEqual([
      ['body', 'documents', 1, 'extraction_schema'],
      ['body', 'documents', 2, 'preferred_model'],
      ['body', 'documents', 3, 'extraction_schema'],
    ]);
    expect(world.batchItems.entries).toEqual([]);
  });

  it('keeps the resolved providers and the checked schema with each item', async () => {
    // Arrange
    const world = await aWorld();
    const schema = { type: 'object', properties: { total: { type: 'number' } } };
    // Act
    await submitBatch(
      world,
      aSubmission(1, {
        documents: [
          aDocument({
            options: parseOptions({ operation_mode: 'hybrid' }),
            extractionSchema: schema,
            preferredModel: 'ocr',
            compareProvider: 'pdf-text',
          }),
        ],
      }),
    );
    // Assert
    expect((await world.batches.getItem('batch_id0001', 1))?.document).toMatchObject({
      extractionSchema: schema,
      preferredProvider: 'ocr',
      compareProvider: 'pdf-text',
    });
  });

  it("keeps the webhook pending and leaves the tenant's secret to the deliverer", async () => {
    // Arrange
    const world = await aWorld();
    // Act
    await submitBatch(world, aSubmission(1, { webhook: HOOK }));
    // Assert: the function accepting batches may not read secrets; the deliverer creates it.
    await expect(world.webhookSecrets.get(TENANT)).rejects.toThrow('no webhook secret');
    expect((await world.batches.get('batch_id0001'))?.webhook).toEqual({
      ...HOOK,
      status: 'pending',
      attempts: [],
    });
  });

  it('refuses batches where the deployment has no batch queue, storing nothing', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const submitting = submitBatch(world, aSubmission(1));
    // Assert
    await expect(submitting).rejects.toThrow('no batch queue');
    expect(await world.batches.get('batch_id0001')).toBeUndefined();
  });

  it('ends the items the queue does not take as failed, and the others stay queued', async () => {
    // Arrange
    const world = await aWorld({ refuse: ['item2'] });
    // Act
    await submitBatch(world, aSubmission(3));
    // Assert
    const items = await world.batches.listItems('batch_id0001');
    expect(items.map((i) => i.status)).toEqual(['queued', 'failed', 'queued']);
    expect(items[1]?.error).toEqual({
      kind: 'unavailable',
      detail: 'the document could not be queued for parsing; submit it again',
    });
    expect((await world.batches.get('batch_id0001'))?.totals).toEqual({
      queued: 2,
      in_progress: 0,
      completed: 0,
      failed: 1,
    });
  });

  it('ends the batch failed at once when the queue takes none of its items', async () => {
    // Arrange
    const world = await aWorld({ refuse: ['item1'] });
    // Act
    await submitBatch(world, aSubmission(1, { webhook: HOOK }));
    // Assert
    expect((await world.batches.get('batch_id0001'))?.status).toBe('failed');
    expect(world.webhooks.sent).toHaveLength(1);
  });
});

describe('processBatchItem', () => {
  it('downloads and parses the document under the item request id, and counts it', async () => {
    // Arrange
    const world = await aWorld();
    const fetcher = new FakeFetcher();
    await submitBatch(world, aSubmission(2));
    // Act
    const outcome = await processBatchItem(world, fetcher, bodyOf(world, 1), { receiveCount: 1 });
    // Assert
    const requestId = itemRequestId('batch_id0001', 1);
    expect(outcome).toEqual({ kind: 'processed', status: 'completed', requestId });
    expect(fetcher.fetched).toEqual(['https://files.example.com/doc-1.pdf']);
    expect(await world.requests.get(requestId)).toMatchObject({
      tenant: TENANT,
      plan: 'pro',
      status: 'completed',
    });
    expect(await world.batches.getItem('batch_id0001', 1)).toMatchObject({
      status: 'completed',
      requestId,
    });
    expect(await world.batches.get('batch_id0001')).toMatchObject({
      status: 'in_progress',
      totals: { queued: 1, in_progress: 0, completed: 1, failed: 0 },
    });
  });

  it('ends an item whose download is refused failed, with the reason and no request', async () => {
    // Arrange
    const world = await aWorld();
    await submitBatch(
      world,
      aSubmission(1, {}, () => 'https://files.example.com/missing.pdf'),
    );
    // Act
    const outcome = await processBatchItem(world, new FakeFetcher(), bodyOf(world, 1), {
      receiveCount: 1,
    });
    // Assert
    expect(outcome).toEqual({ kind: 'processed', status: 'failed' });
    const item = await world.batches.getItem('batch_id0001', 1);
    expect(item?.requestId).toBeUndefined();
    expect(item?.error).toEqual({
      kind: 'invalid',
      detail: 'URL refused: the URL answered HTTP 404',
    });
    expect((await world.batches.get('batch_id0001'))?.status).toBe('failed');
  });

  it('parses a document sent beforehand to an upload slot, and fails an unknown slot', async () => {
    // Arrange
    const world = await aWorld();
    const fetcher = new FakeFetcher();
    const uploadId = await anUploadedSlot(world);
    const { batch_id } = await submitBatch(
      world,
      aSubmission(0, {
        documents: [anUploadedDocument(uploadId), anUploadedDocument('upl_unknown0000')],
      }),
    );
    // Act
    const outcomes = await deliverAll(world, fetcher);
    // Assert
    expect(fetcher.fetched).toEqual([]);
    expect(outcomes.map((o) => ('status' in o ? o.status : o.kind))).toEqual([
      'completed',
      'failed',
    ]);
    const view = await getBatch(world, TENANT, batch_id);
    expect(view.items).toEqual([
      expect.objectContaining({ status: 'completed', file_url: null, upload_id: uploadId }),
      expect.objectContaining({
        status: 'failed',
        file_url: null,
        upload_id: 'upl_unknown0000',
        error: expect.objectContaining({ kind: 'not_found' }) as unknown,
      }),
    ]);
  });

  it('ends an item whose parse fails failed, with the failure and its request id', async () => {
    // Arrange
    const failing = (id: string) =>
      new FakePageProvider(id, () => {
        throw new ProviderUnavailableError('all models busy');
      });
    const world = await aWorld({ providers: [failing('pdf-text'), failing('ocr')] });
    await submitBatch(world, aSubmission(1));
    // Act
    await processBatchItem(world, new FakeFetcher(), bodyOf(world, 1), { receiveCount: 1 });
    // Assert
    const item = await world.batches.getItem('batch_id0001', 1);
    const request = await world.requests.get(itemRequestId('batch_id0001', 1));
    expect(request?.status).toBe('failed');
    expect(item).toMatchObject({ status: 'failed', requestId: request?.id });
    expect(item?.error).toEqual({ kind: request?.error?.kind, detail: request?.error?.message });
  });

  it('ends the batch once when its last item ends, and queues one batch.completed event', async () => {
    // Arrange
    const world = await aWorld();
    await submitBatch(
      world,
      aSubmission(3, { webhook: HOOK }, (i) =>
        i === 1 ? 'https://files.example.com/missing.pdf' : `https://files.example.com/${i}.pdf`,
      ),
    );
    // Act
    await deliverAll(world, new FakeFetcher());
    // Assert
    const batch = await world.batches.get('batch_id0001');
    expect(batch).toMatchObject({
      status: 'completed',
      endedAt: expect.any(String) as unknown,
      totals: { queued: 0, in_progress: 0, completed: 2, failed: 1 },
      webhookEventId: 'batch_id0001_completed',
    });
    expect(world.webhooks.sent).toHaveLength(1);
    const message = WebhookDelivery.parse(world.webhooks.sent[0]?.body);
    expect(message).toEqual({
      eventId: 'batch_id0001_completed',
      url: HOOK.url,
      secretRef: TENANT,
      attempt: 1,
      payload: {
        type: 'batch.completed',
        timestamp: batch?.endedAt,
        data: {
          batch_id: 'batch_id0001',
          status: 'completed',
          totals: { queued: 0, in_progress: 0, completed: 2, failed: 1 },
          result_url: 'https://api.example.com/v1/batch/batch_id0001',
        },
      },
    });
  });

  it('ends a batch whose every item failed as failed', async () => {
    // Arrange
    const world = await aWorld();
    await submitBatch(
      world,
      aSubmission(2, {}, () => 'https://files.example.com/missing.pdf'),
    );
    // Act
    await deliverAll(world, new FakeFetcher());
    // Assert
    expect(await world.batches.get('batch_id0001')).toMatchObject({
      status: 'failed',
      totals: { queued: 0, in_progress: 0, completed: 0, failed: 2 },
    });
    expect(world.webhooks.sent).toEqual([]);
  });

  it('parses each item once and counts it once when every message arrives twice at once', async () => {
    // Arrange
    const world = await aWorld();
    const fetcher = new FakeFetcher();
    await submitBatch(world, aSubmission(10, { webhook: HOOK }));
    // Act
    await deliverAll(world, fetcher, 2);
    // Assert
    expect(world.workflow.ran.filter((stage) => stage === 'Deliver')).toHaveLength(10);
    expect(await world.batches.get('batch_id0001')).toMatchObject({
      status: 'completed',
      totals: { queued: 0, in_progress: 0, completed: 10, failed: 0 },
    });
    // A duplicate racing the announcement may queue the event again, under the same id, which
    // receivers deduplicate (at least once, as Standard Webhooks expects).
    const ids = world.webhooks.sent.map((m) => WebhookDelivery.parse(m.body).eventId);
    expect(new Set(ids)).toEqual(new Set(['batch_id0001_completed']));
  });

  it('counts 100 items ending together exactly, and ends the batch once', async () => {
    // Arrange
    const world = await aWorld();
    await submitBatch(
      world,
      aSubmission(100, { webhook: HOOK }, (i) =>
        i % 4 === 0 ? `https://files.example.com/missing-${i}.pdf` : `https://f.example.com/${i}`,
      ),
    );
    // Act
    await deliverAll(world, new FakeFetcher());
    // Assert
    const batch = await world.batches.get('batch_id0001');
    expect(batch?.totals).toEqual({ queued: 0, in_progress: 0, completed: 75, failed: 25 });
    expect(batch?.status).toBe('completed');
    expect(world.webhooks.sent).toHaveLength(1);
  });

  it('leaves an ended item as it is when its message comes again', async () => {
    // Arrange
    const world = await aWorld();
    const fetcher = new FakeFetcher();
    await submitBatch(world, aSubmission(1, { webhook: HOOK }));
    await deliverAll(world, fetcher);
    // Act
    const again = await processBatchItem(world, fetcher, bodyOf(world, 1), { receiveCount: 2 });
    // Assert
    expect(again).toEqual({ kind: 'ended', status: 'completed' });
    expect(fetcher.fetched).toHaveLength(1);
    expect((await world.batches.get('batch_id0001'))?.totals.completed).toBe(1);
    expect(world.webhooks.sent).toHaveLength(1);
  });

  it('repairs the counts and the end of the batch after a crash between the writes', async () => {
    // Arrange: the item ended, but neither count moved nor the batch ended (a crash).
    const world = await aWorld();
    await submitBatch(world, aSubmission(1, { webhook: HOOK }));
    await world.batches.transitionItem('batch_id0001', 1, {
      from: 'queued',
      to: 'in_progress',
      at: world.clock.now(),
    });
    await world.batches.transitionItem('batch_id0001', 1, {
      from: 'in_progress',
      to: 'completed',
      at: world.clock.now(),
    });
    // Act
    const outcome = await processBatchItem(world, new FakeFetcher(), bodyOf(world, 1), {
      receiveCount: 2,
    });
    // Assert
    expect(outcome).toEqual({ kind: 'ended', status: 'completed' });
    expect(await world.batches.get('batch_id0001')).toMatchObject({
      status: 'completed',
      totals: { queued: 0, in_progress: 0, completed: 1, failed: 0 },
      webhookEventId: 'batch_id0001_completed',
    });
    expect(world.webhooks.sent).toHaveLength(1);
  });

  it('announces an ended batch whose announcement a crash interrupted', async () => {
    // Arrange: the batch ended without its event being queued.
    const world = await aWorld();
    await submitBatch(world, aSubmission(1, { webhook: HOOK }));
    await world.batches.transitionItem('batch_id0001', 1, {
      from: 'queued',
      to: 'in_progress',
      at: world.clock.now(),
    });
    await world.batches.applyMove('batch_id0001', startMove(1), world.clock.now());
    await world.batches.transitionItem('batch_id0001', 1, {
      from: 'in_progress',
      to: 'failed',
      at: world.clock.now(),
    });
    await world.batches.applyMove('batch_id0001', endMove(1, 'failed'), world.clock.now());
    await world.batches.finish('batch_id0001', 'failed', world.clock.now());
    // Act
    await processBatchItem(world, new FakeFetcher(), bodyOf(world, 1), { receiveCount: 2 });
    await processBatchItem(world, new FakeFetcher(), bodyOf(world, 1), { receiveCount: 3 });
    // Assert
    expect(world.webhooks.sent).toHaveLength(1);
    expect((await world.batches.get('batch_id0001'))?.status).toBe('failed');
  });

  it('follows the request of an item in progress instead of downloading again', async () => {
    // Arrange: a first delivery submitted the request, then died.
    const world = await aWorld();
    const fetcher = new FakeFetcher();
    await submitBatch(world, aSubmission(1));
    const requestId = itemRequestId('batch_id0001', 1);
    await world.batches.transitionItem('batch_id0001', 1, {
      from: 'queued',
      to: 'in_progress',
      at: world.clock.now(),
      requestId,
    });
    await world.batches.applyMove('batch_id0001', startMove(1), world.clock.now());
    await submitUpload(
      world,
      { tenant: TENANT, bytes: TINY_PDF, filename: 'a.pdf', options: parseOptions() },
      { requestId },
    );
    // Act
    const outcome = await processBatchItem(world, fetcher, bodyOf(world, 1), { receiveCount: 2 });
    // Assert
    expect(outcome).toEqual({ kind: 'processed', status: 'completed', requestId });
    expect(fetcher.fetched).toEqual([]);
    expect((await world.batches.get('batch_id0001'))?.totals).toEqual({
      queued: 0,
      in_progress: 0,
      completed: 1,
      failed: 0,
    });
  });

  it('follows the request another delivery created when its own submission finds it there', async () => {
    // Arrange: the request exists, but the item does not name it yet.
    const world = await aWorld();
    await submitBatch(world, aSubmission(1));
    const requestId = itemRequestId('batch_id0001', 1);
    await submitUpload(
      world,
      { tenant: TENANT, bytes: TINY_PDF, filename: 'a.pdf', options: parseOptions() },
      { requestId },
    );
    // Act
    const outcome = await processBatchItem(world, new FakeFetcher(), bodyOf(world, 1), {
      receiveCount: 1,
    });
    // Assert
    expect(outcome).toEqual({ kind: 'processed', status: 'completed', requestId });
    expect((await world.batches.getItem('batch_id0001', 1))?.requestId).toBe(requestId);
  });

  it('lets an unexpected failure through for a retry, and ends the item failed on the last delivery', async () => {
    // Arrange
    const world = await aWorld();
    const broken = new FakeFetcher(new Error('socket hang up in the storage client'));
    await submitBatch(world, aSubmission(1));
    const body = bodyOf(world, 1);
    // Act
    const early = await processBatchItem(world, broken, body, { receiveCount: 1 }).catch(
      (e: unknown) => e,
    );
    const last = await processBatchItem(world, broken, body, {
      receiveCount: BATCH_ITEM_MAX_RECEIVES,
    });
    // Assert
    expect(early).toBeInstanceOf(Error);
    expect(last).toEqual({ kind: 'processed', status: 'failed' });
    const item = await world.batches.getItem('batch_id0001', 1);
    expect(item?.error).toEqual({
      kind: 'internal',
      detail: 'the document could not be processed after 5 attempts; submit it again',
    });
    expect(item?.requestId).toBeUndefined();
    expect((await world.batches.get('batch_id0001'))?.totals.failed).toBe(1);
  });

  it('keeps the request id of an item whose request was made when its last delivery fails', async () => {
    // Arrange: the document is submitted, but waiting for its parse keeps failing.
    const world = await aWorld();
    await submitBatch(world, aSubmission(1));
    vi.spyOn(world.workflow, 'wait').mockRejectedValue(new Error('the workflow is unreachable'));
    // Act
    const last = await processBatchItem(world, new FakeFetcher(), bodyOf(world, 1), {
      receiveCount: BATCH_ITEM_MAX_RECEIVES,
    });
    // Assert
    const requestId = itemRequestId('batch_id0001', 1);
    expect(last).toEqual({ kind: 'processed', status: 'failed', requestId });
    expect(await world.batches.getItem('batch_id0001', 1)).toMatchObject({
      status: 'failed',
      requestId,
      error: { kind: 'internal' },
    });
  });

  it('drops malformed messages and messages naming no item', async () => {
    // Arrange
    const world = await aWorld();
    const fetcher = new FakeFetcher();
    // Act
    const garbage = await processBatchItem(world, fetcher, 'not json', { receiveCount: 1 });
    const invalid = await processBatchItem(world, fetcher, '{"batchId":"x","index":1}', {
      receiveCount: 1,
    });
    const unknown = await processBatchItem(
      world,
      fetcher,
      JSON.stringify({ batchId: 'batch_nope', index: 1 }),
      { receiveCount: 1 },
    );
    // Assert
    expect(garbage.kind).toBe('malformed');
    expect(invalid.kind).toBe('malformed');
    expect(unknown).toEqual({ kind: 'unknown', batchId: 'batch_nope', index: 1 });
    expect(fetcher.fetched).toEqual([]);
  });
});

describe('getBatch', () => {
  it('names the request of an item in progress while its document is still downloading', async () => {
    // Arrange: the download of the only document hangs until released.
    const world = await aWorld();
    await submitBatch(world, aSubmission(1));
    const fetcher = new HeldFetcher();
    const processing = processBatchItem(world, fetcher, bodyOf(world, 1), { receiveCount: 1 });
    await fetcher.started;
    // Act
    const during = await getBatch(world, TENANT, 'batch_id0001');
    fetcher.release();
    await processing;
    const after = await getBatch(world, TENANT, 'batch_id0001');
    // Assert
    const requestId = itemRequestId('batch_id0001', 1);
    expect(during).toMatchObject({
      status: 'in_progress',
      totals: { queued: 0, in_progress: 1, completed: 0, failed: 0 },
      items: [{ request_id: requestId, status: 'in_progress' }],
    });
    expect(after).toMatchObject({
      status: 'completed',
      items: [{ request_id: requestId, status: 'completed' }],
    });
  });

  it('answers one consistent view after every single write while a batch runs', async () => {
    // Arrange: five items (one not there, one the queue refuses), each delivered twice at once;
    // the store answers GET /v1/batch after each write it takes, between the writes of a step.
    const store = new ViewingBatchStore();
    const world = Object.assign(await aWorld({ refuse: ['item5'] }), { batches: store });
    await submitBatch(
      world,
      aSubmission(5, {}, (i) =>
        i === 2 ? 'https://files.example.com/missing.pdf' : `https://files.example.com/${i}.pdf`,
      ),
    );
    // Act
    await deliverAll(world, new FakeFetcher(), 2);
    // Assert
    const views = store.views;
    expect(views.length).toBeGreaterThan(20);
    const problems = views.flatMap((view, i) => problemsOf(view, views[i - 1]));
    expect(problems).toEqual([]);
    expect(views.at(-1)).toMatchObject({
      status: 'completed',
      ended_at: world.clock.now().toISOString(),
      totals: { queued: 0, in_progress: 0, completed: 3, failed: 2 },
    });
  });

  it('shows the status, totals, progress and items, with request ids and errors', async () => {
    // Arrange
    const world = await aWorld();
    await submitBatch(
      world,
      aSubmission(3, { webhook: HOOK }, (i) =>
        i === 2 ? 'https://files.example.com/missing.pdf' : `https://files.example.com/${i}.pdf`,
      ),
    );
    await processBatchItem(world, new FakeFetcher(), bodyOf(world, 1), { receiveCount: 1 });
    await processBatchItem(world, new FakeFetcher(), bodyOf(world, 3), { receiveCount: 1 });
    // Act
    const view = await getBatch(world, TENANT, 'batch_id0001');
    // Assert
    expect(view).toEqual({
      batch_id: 'batch_id0001',
      status: 'in_progress',
      priority: 'normal',
      created_at: world.clock.now().toISOString(),
      item_count: 3,
      totals: { queued: 1, in_progress: 0, completed: 1, failed: 1 },
      completed_documents: 2,
      total_documents: 3,
      items: [
        {
          request_id: itemRequestId('batch_id0001', 1),
          status: 'completed',
          file_url: 'https://files.example.com/0.pdf',
        },
        { request_id: null, status: 'queued', file_url: 'https://files.example.com/1.pdf' },
        {
          request_id: null,
          status: 'failed',
          file_url: 'https://files.example.com/missing.pdf',
          error: { kind: 'invalid', detail: 'URL refused: the URL answered HTTP 404' },
        },
      ],
      webhook: { url: HOOK.url, status: 'pending', attempts: [] },
    });
  });

  it('answers 404 alike for unknown ids, malformed ids and other tenants’ batches', async () => {
    // Arrange
    const world = await aWorld();
    await submitBatch(world, aSubmission(1));
    // Act
    const results = await Promise.allSettled([
      getBatch(world, OTHER_TENANT, 'batch_id0001'),
      getBatch(world, TENANT, 'batch_unknown'),
      getBatch(world, TENANT, '../../etc'),
    ]);
    // Assert
    for (const result of results) {
      expect(result.status === 'rejected' && result.reason).toBeInstanceOf(NotFoundError);
    }
  });
});

describe('announceBatchFinished', () => {
  it('announces nothing for a batch that has not ended, has no webhook, or was announced', async () => {
    // Arrange
    const world = await aWorld();
    await submitBatch(world, aSubmission(1, { webhook: HOOK }));
    const running = await world.batches.get('batch_id0001');
    await submitBatch(world, aSubmission(1));
    const ended = await world.batches.finish('batch_id0002', 'completed', world.clock.now());
    // Act
    await announceBatchFinished(world, running!);
    await announceBatchFinished(world, ended);
    await announceBatchFinished(world, {
      ...ended,
      webhook: { ...HOOK, status: 'pending', attempts: [] },
      webhookEventId: 'batch_id0002_completed',
    });
    // Assert
    expect(world.webhooks.sent).toEqual([]);
  });
});

describe('the webhook deliverer with a batch event', () => {
  it('records the attempt with the batch', async () => {
    // Arrange
    const world = await aWorld();
    await submitBatch(
      world,
      aSubmission(1, { webhook: HOOK }, () => 'https://x.test/missing'),
    );
    await deliverAll(world, new FakeFetcher());
    const sender: WebhookSender = {
      send: (): Promise<WebhookResponse> => Promise.resolve({ status: 204, retryAfter: null }),
    };
    // Act
    const outcome = await handleWebhookMessage(
      {
        sender,
        signer: new StandardWebhookSigner(),
        secrets: world.webhookSecrets,
        clock: world.clock,
        requests: world.requests,
        batches: world.batches,
        webhooks: world.webhooks,
        deadLetters: new RecordingQueue(),
      },
      JSON.stringify(world.webhooks.sent[0]?.body),
    );
    // Assert
    expect(outcome).toEqual({ kind: 'attempted', decision: { action: 'delivered' } });
    expect((await world.batches.get('batch_id0001'))?.webhook).toMatchObject({
      status: 'delivered',
      attempts: [{ attempt: 1, status: 204, error: null }],
    });
  });
});
