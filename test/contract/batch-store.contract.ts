import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  endMove,
  queuedTotals,
  startMove,
  type BatchItem,
  type BatchRecord,
} from '../../functions/core/domain/batch.js';
import { ConflictError, NotFoundError } from '../../functions/core/domain/errors.js';
import type { BatchStore } from '../../functions/core/ports/batch-store.js';

const CREATED = '2025-01-02T03:04:05.000Z';
const LATER = new Date('2025-01-02T03:05:00.000Z');

/** A fresh batch id (`batch_` and letters or digits). */
export function aBatchId(): string {
  return `batch_${randomBytes(12).toString('hex')}`;
}

/** A queued batch of `itemCount` items, with a webhook; `overrides` replace top-level fields. */
export function aBatchRecord(overrides: Partial<BatchRecord> = {}): BatchRecord {
  const itemCount = overrides.itemCount ?? 3;
  return {
    id: aBatchId(),
    tenant: 'tenant-a',
    status: 'queued',
    priority: 'normal',
    itemCount,
    totals: queuedTotals(itemCount),
    createdAt: CREATED,
    updatedAt: CREATED,
    webhook: {
      url: 'https://hooks.example.com/batches',
      apiBaseUrl: 'https://api.example.com',
      status: 'pending',
      attempts: [],
    },
    ...overrides,
  };
}

/** The queued items of `batch`, one document each (the second an extract with a schema). */
export function itemsOf(batch: BatchRecord): BatchItem[] {
  return Array.from({ length: batch.itemCount }, (_, i) => ({
    batchId: batch.id,
    index: i + 1,
    status: 'queued',
    updatedAt: CREATED,
    document: {
      fileUrl: `https://files.example.com/doc-${i + 1}.pdf`,
      options: {
        operation_mode: i === 1 ? 'extract' : 'ocr',
        maintain_format: true,
        max_pages: null,
        enable_verification: null,
        dpi: null,
        include_warnings: false,
        extraction_strict: false,
        legacy_events: false,
      },
      ...(i === 1
        ? {
            extractionSchema: {
              type: 'object',
              properties: { total: { type: 'number' } },
            },
            preferredProvider: 'local-text',
          }
        : {}),
    },
  }));
}

/** An extraction schema of about 15 kB (a hundred described fields). */
export function aLargeSchema(seed: number) {
  const properties = Object.fromEntries(
    Array.from({ length: 100 }, (_, i) => [
      `field_${seed}_${i}`,
      { type: 'string', description: `${'a described field of the document '.repeat(4)}${i}` },
    ]),
  );
  return { type: 'object' as const, properties };
}

/**
 * The BatchStore contract: what every adapter (DynamoDB, in memory) must do.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run.
 */
export function describeBatchStoreContract(
  name: string,
  factory: () => BatchStore | Promise<BatchStore>,
): void {
  describe(`${name} (BatchStore contract)`, () => {
    /** A stored batch of `itemCount` items. */
    async function aStoredBatch(store: BatchStore, itemCount = 3) {
      const batch = aBatchRecord({ itemCount });
      const items = itemsOf(batch);
      await store.create(batch, items);
      return { batch, items };
    }

    it('stores a batch and its items and reads them back unchanged, items by index', async () => {
      // Arrange
      const store = await factory();
      const batch = aBatchRecord({ itemCount: 12 });
      const items = itemsOf(batch);
      // Act
      await store.create(batch, [...items].reverse());
      // Assert
      expect(await store.get(batch.id)).toStrictEqual(batch);
      expect(await store.listItems(batch.id)).toStrictEqual(items);
      expect(await store.getItem(batch.id, 2)).toStrictEqual(items[1]);
    });

    it('keeps any valid extraction schema of an item: huge numbers, odd property names', async () => {
      // Arrange
      const store = await factory();
      const batch = aBatchRecord({ itemCount: 2 });
      const extractionSchema = JSON.parse(
        '{"type":"object","properties":{"total":{"type":"number","maximum":1e200},' +
          '"constructor":{"type":"string"},"__proto__":{"type":"string"}}}',
      ) as Record<string, unknown>;
      const items = itemsOf(batch).map((item) => ({
        ...item,
        document: { ...item.document, extractionSchema },
      }));
      // Act
      await store.create(batch, items);
      // Assert
      const read = await store.getItem(batch.id, 1);
      expect(JSON.stringify(read?.document.extractionSchema)).toBe(
        JSON.stringify(extractionSchema),
      );
      const listed = (await store.listItems(batch.id))[1];
      expect({ ...listed?.document, extractionSchema: null }).toStrictEqual({
        ...items[1]?.document,
        extractionSchema: null,
      });
    });

    it('refuses a second batch with the same id', async () => {
      // Arrange
      const store = await factory();
      const { batch, items } = await aStoredBatch(store);
      // Act
      const again = store.create(batch, items);
      // Assert
      await expect(again).rejects.toBeInstanceOf(ConflictError);
    });

    it('answers undefined and an empty list for unknown batches and items', async () => {
      // Arrange
      const store = await factory();
      const { batch } = await aStoredBatch(store);
      // Act / Assert
      expect(await store.get(aBatchId())).toBeUndefined();
      expect(await store.listItems(aBatchId())).toEqual([]);
      expect(await store.getItem(batch.id, 99)).toBeUndefined();
    });

    it('moves an item from the expected status only, and records its request and error', async () => {
      // Arrange
      const store = await factory();
      const { batch } = await aStoredBatch(store);
      // Act
      const started = await store.transitionItem(batch.id, 1, {
        from: 'queued',
        to: 'in_progress',
        at: LATER,
        requestId: 'req_abc',
      });
      const stale = await store
        .transitionItem(batch.id, 1, { from: 'queued', to: 'in_progress', at: LATER })
        .catch((error: unknown) => error);
      const failed = await store.transitionItem(batch.id, 1, {
        from: 'in_progress',
        to: 'failed',
        at: LATER,
        error: { kind: 'invalid', detail: 'the origin answered 404' },
      });
      // Assert
      expect(started).toMatchObject({
        status: 'in_progress',
        requestId: 'req_abc',
        updatedAt: LATER.toISOString(),
      });
      expect(stale).toBeInstanceOf(ConflictError);
      expect(failed).toMatchObject({
        status: 'failed',
        requestId: 'req_abc',
        error: { kind: 'invalid', detail: 'the origin answered 404' },
      });
      expect(await store.getItem(batch.id, 1)).toStrictEqual(failed);
    });

    it('drops the request id of an item in the transition that says null', async () => {
      // Arrange
      const store = await factory();
      const { batch } = await aStoredBatch(store);
      await store.transitionItem(batch.id, 1, {
        from: 'queued',
        to: 'in_progress',
        at: LATER,
        requestId: 'req_abc',
      });
      // Act
      const failed = await store.transitionItem(batch.id, 1, {
        from: 'in_progress',
        to: 'failed',
        at: LATER,
        requestId: null,
        error: { kind: 'invalid', detail: 'the origin answered 404' },
      });
      // Assert
      expect(failed).not.toHaveProperty('requestId');
      expect(await store.getItem(batch.id, 1)).toStrictEqual(failed);
    });

    it('reads a batch with every item of it, past one query page, items by index', async () => {
      // Arrange: 100 items of about 15 kB each (1.5 MB, more than a DynamoDB Query page).
      const store = await factory();
      const batch = aBatchRecord({ itemCount: 100 });
      const items = itemsOf(batch).map((item) => ({
        ...item,
        document: { ...item.document, extractionSchema: aLargeSchema(item.index) },
      }));
      await store.create(batch, items);
      // Act
      const read = await store.getWithItems(batch.id);
      const unknown = await store.getWithItems(aBatchId());
      // Assert
      expect(read?.batch).toStrictEqual(batch);
      expect(read?.items).toStrictEqual(items);
      expect(unknown).toBeUndefined();
    });

    it('reads the items as they are now, while the record counts an earlier state', async () => {
      // Arrange: an item started and its request id is written; its count has not moved yet.
      const store = await factory();
      const { batch } = await aStoredBatch(store);
      await store.transitionItem(batch.id, 2, {
        from: 'queued',
        to: 'in_progress',
        at: LATER,
        requestId: 'req_abc',
      });
      // Act
      const between = await store.getWithItems(batch.id);
      await store.applyMove(batch.id, startMove(2), LATER);
      const after = await store.getWithItems(batch.id);
      // Assert
      expect(between?.batch.totals).toEqual({ queued: 3, in_progress: 0, completed: 0, failed: 0 });
      expect(between?.items.map((i) => [i.status, i.requestId])).toEqual([
        ['queued', undefined],
        ['in_progress', 'req_abc'],
        ['queued', undefined],
      ]);
      expect(after?.batch).toMatchObject({
        status: 'in_progress',
        totals: { queued: 2, in_progress: 1, completed: 0, failed: 0 },
      });
      expect(after?.items).toStrictEqual(between?.items);
    });

    it('throws NotFoundError for a transition of an unknown item', async () => {
      // Arrange
      const store = await factory();
      const { batch } = await aStoredBatch(store);
      // Act
      const missing = store.transitionItem(batch.id, 42, {
        from: 'queued',
        to: 'in_progress',
        at: LATER,
      });
      // Assert
      await expect(missing).rejects.toBeInstanceOf(NotFoundError);
    });

    it('lets one of ten concurrent transitions of an item win', async () => {
      // Arrange
      const store = await factory();
      const { batch } = await aStoredBatch(store);
      // Act
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () =>
          store.transitionItem(batch.id, 2, { from: 'queued', to: 'in_progress', at: LATER }),
        ),
      );
      // Assert
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results.filter((r) => r.status === 'rejected')) {
        expect(r.reason).toBeInstanceOf(ConflictError);
      }
    });

    it('applies a count move once per id, and a start makes the batch in_progress', async () => {
      // Arrange
      const store = await factory();
      const { batch } = await aStoredBatch(store);
      // Act
      const first = await store.applyMove(batch.id, startMove(1), LATER);
      const again = await store.applyMove(batch.id, startMove(1), LATER);
      // Assert
      expect(first.applied).toBe(true);
      expect(first.batch).toMatchObject({
        status: 'in_progress',
        updatedAt: LATER.toISOString(),
        totals: { queued: 2, in_progress: 1, completed: 0, failed: 0 },
      });
      expect(again.applied).toBe(false);
      expect(again.batch.totals).toEqual(first.batch.totals);
      expect(await store.get(batch.id)).toStrictEqual(first.batch);
    });

    it('throws NotFoundError for a move or an end of an unknown batch', async () => {
      // Arrange
      const store = await factory();
      // Act
      const [moving, finishing, updating] = await Promise.allSettled([
        store.applyMove(aBatchId(), startMove(1), LATER),
        store.finish(aBatchId(), 'completed', LATER),
        store.update(aBatchId(), { webhookEventId: 'x' }),
      ]);
      // Assert
      for (const result of [moving, finishing, updating]) {
        expect(result.status === 'rejected' && result.reason).toBeInstanceOf(NotFoundError);
      }
    });

    it('counts 100 items ending at the same instant exactly, each end once though sent twice', async () => {
      // Arrange: 100 items in progress.
      const store = await factory();
      const { batch } = await aStoredBatch(store, 100);
      const indexes = Array.from({ length: 100 }, (_, i) => i + 1);
      await Promise.all(
        indexes.map(async (index) => {
          await store.transitionItem(batch.id, index, {
            from: 'queued',
            to: 'in_progress',
            at: LATER,
          });
          await store.applyMove(batch.id, startMove(index), LATER);
        }),
      );
      // Act: every item ends (one in three failed), each by two racing consumers; only the
      // winner of the item's transition moves the count, and the loser repairs the same move.
      const outcome = (index: number) => (index % 3 === 0 ? 'failed' : 'completed');
      const end = async (index: number) => {
        try {
          await store.transitionItem(batch.id, index, {
            from: 'in_progress',
            to: outcome(index),
            at: LATER,
          });
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error;
        }
        return store.applyMove(batch.id, endMove(index, outcome(index)), LATER);
      };
      const moves = await Promise.all([...indexes, ...indexes].map(end));
      // Assert
      const failed = indexes.filter((i) => outcome(i) === 'failed').length;
      const after = await store.get(batch.id);
      expect(moves.filter((m) => m.applied)).toHaveLength(100);
      expect(after?.totals).toEqual({
        queued: 0,
        in_progress: 0,
        completed: 100 - failed,
        failed,
      });
      const items = await store.listItems(batch.id);
      expect(items.filter((i) => i.status === 'failed')).toHaveLength(failed);
      expect(items.filter((i) => i.status === 'completed')).toHaveLength(100 - failed);
    });

    it('keeps the totals adding up to the item count while 100 items start and end at once', async () => {
      // Arrange
      const store = await factory();
      const { batch } = await aStoredBatch(store, 100);
      const sums: number[] = [];
      // Act
      await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const { batch: started } = await store.applyMove(batch.id, startMove(i + 1), LATER);
          const { batch: ended } = await store.applyMove(
            batch.id,
            endMove(i + 1, 'completed'),
            LATER,
          );
          for (const b of [started, ended]) {
            const { queued, in_progress, completed, failed } = b.totals;
            sums.push(queued + in_progress + completed + failed);
          }
        }),
      );
      // Assert
      expect(new Set(sums)).toEqual(new Set([100]));
      expect((await store.get(batch.id))?.totals).toEqual({
        queued: 0,
        in_progress: 0,
        completed: 100,
        failed: 0,
      });
    });

    it('writes the terminal status once', async () => {
      // Arrange
      const store = await factory();
      const { batch } = await aStoredBatch(store, 1);
      // Act
      const results = await Promise.allSettled([
        store.finish(batch.id, 'completed', LATER),
        store.finish(batch.id, 'failed', LATER),
        store.finish(batch.id, 'completed', LATER),
      ]);
      // Assert
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const ended = await store.get(batch.id);
      expect(ended).toMatchObject({ endedAt: LATER.toISOString() });
      expect(won[0]?.value).toStrictEqual(ended);
      for (const r of results.filter((r) => r.status === 'rejected')) {
        expect(r.reason).toBeInstanceOf(ConflictError);
      }
    });

    it('records the webhook deliveries and the announced event id', async () => {
      // Arrange
      const store = await factory();
      const { batch } = await aStoredBatch(store, 1);
      const webhook = {
        url: 'https://hooks.example.com/batches',
        apiBaseUrl: 'https://api.example.com',
        status: 'delivered' as const,
        attempts: [
          { attempt: 1, at: LATER.toISOString(), status: 204, error: null, duration_ms: 12 },
        ],
      };
      // Act
      await store.update(batch.id, { webhookEventId: `${batch.id}_completed` });
      const updated = await store.update(batch.id, { webhook });
      // Assert
      expect(updated).toStrictEqual({ ...batch, webhook, webhookEventId: `${batch.id}_completed` });
      expect(await store.get(batch.id)).toStrictEqual(updated);
    });
  });
}
