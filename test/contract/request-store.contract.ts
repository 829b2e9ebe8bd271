import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../functions/core/domain/errors.js';
import type { PageCheckpoint, RequestRecord } from '../../functions/core/domain/request.js';
import type { Page } from '../../functions/core/domain/schemas.js';
import type { RequestStore } from '../../functions/core/ports/request-store.js';

/** A complete request record with a fresh id; `overrides` replace top-level fields. */
export function aRequestRecord(overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id: randomUUID(),
    tenant: 'tenant-a',
    status: 'queued',
    createdAt: '2025-01-02T03:04:05.000Z',
    updatedAt: '2025-01-02T03:04:05.000Z',
    options: {
      operation_mode: 'hybrid',
      maintain_format: true,
      max_pages: null,
      enable_verification: null,
      dpi: 150,
      include_warnings: false,
      extraction_strict: false,
      legacy_events: false,
    },
    document: {
      key: 'uploads/tenant-a/doc.pdf',
      format: 'pdf',
      hash: 'a'.repeat(64),
      filename: 'Quarterly report (final).pdf',
      sizeBytes: 123_456,
    },
    ...overrides,
  };
}

/** A finished page as the pipeline stores it in a checkpoint. */
export function aPage(pageNumber: number): Page {
  return {
    page_number: pageNumber,
    content_markdown: `# Page ${pageNumber}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n`,
    content_json: null,
    tier_used: 'fast',
    provider: 'pdf-text',
    model: 'pdfjs',
    confidence: {
      layout_score: 0.93,
      ocr_score: 1,
      verbatim_score: 0.875,
      table_score: null,
      mean_grade: 'excellent',
      low_grade: 'good',
    },
    grounding: [
      {
        text: `Page ${pageNumber}`,
        bbox: { x: 0, y: 12.5, w: 300, h: 24, label: 'header', confidence: 0.99 },
        element_type: 'heading',
        page_number: pageNumber,
      },
    ],
    tokens: { input_tokens: 0, output_tokens: 0 },
    latency_ms: 42,
    re_routed: false,
    re_route_result: null,
    warnings: [],
  };
}

/**
 * The RequestStore contract: what every adapter (DynamoDB, in memory) must do.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run. Ids are random,
 * so the adapters may share one table across tests.
 */
export function describeRequestStoreContract(
  name: string,
  factory: () => RequestStore | Promise<RequestStore>,
): void {
  describe(`${name} (RequestStore contract)`, () => {
    describe('create and get', () => {
      it('returns the record it stored, field for field', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({
          executionId: 'exec-1',
          routes: [{ pageNumber: 1, complexity: 0.25, tier: 'fast', provider: 'pdf-text' }],
          timings: { ingest_ms: 12 },
          pagesStartedAt: 1_735_787_045_000,
          document: { ...aRequestRecord().document, pageCount: 3, filename: null },
        });
        // Act
        await store.create(record);
        const read = await store.get(record.id);
        // Assert
        expect(read).toStrictEqual(record);
      });

      it('keeps any valid extraction schema: numbers past 2^53 or below 1e-300, odd property names', async () => {
        // Arrange: a JSON Schema is arbitrary JSON.
        const store = await factory();
        const extractionSchema = JSON.parse(
          '{"type":"object","properties":{"total":{"type":"number","maximum":1e20,' +
            '"multipleOf":1e-320,"examples":[9007199254740993]},"constructor":{"type":"string"},' +
            '"__proto__":{"type":"string"}}}',
        ) as RequestRecord['extractionSchema'];
        const record = aRequestRecord({ extractionSchema });
        // Act
        await store.create(record);
        const read = await store.get(record.id);
        // Assert
        expect(JSON.stringify(read?.extractionSchema)).toBe(JSON.stringify(extractionSchema));
        expect(Object.keys(read?.extractionSchema?.properties ?? {})).toEqual([
          'total',
          'constructor',
          '__proto__',
        ]);
      });

      it('returns undefined for an unknown id', async () => {
        // Arrange
        const store = await factory();
        // Act
        const read = await store.get(randomUUID());
        // Assert
        expect(read).toBeUndefined();
      });

      it('drops optional fields left undefined', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ executionId: undefined, resultKey: undefined });
        // Act
        await store.create(record);
        const read = await store.get(record.id);
        // Assert
        expect(read).toEqual(record);
        expect(read).not.toHaveProperty('executionId');
      });

      it('returns a copy that does not change the stored record when mutated', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord();
        await store.create(record);
        const read = (await store.get(record.id))!;
        // Act
        read.status = 'failed';
        read.options.dpi = 1;
        // Assert
        expect(await store.get(record.id)).toEqual(record);
      });

      it('throws ConflictError on a second create with the same id', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord();
        await store.create(record);
        // Act
        const creating = store.create({ ...record, tenant: 'tenant-b', status: 'processing' });
        // Assert
        await expect(creating).rejects.toBeInstanceOf(ConflictError);
        expect(await store.get(record.id)).toEqual(record);
      });

      it('lets exactly one of several concurrent creates of one id win', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord();
        // Act
        const outcomes = await Promise.allSettled(
          Array.from({ length: 5 }, () => store.create(record)),
        );
        // Assert
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
          expect(outcome.reason).toBeInstanceOf(ConflictError);
        }
      });
    });

    describe('update', () => {
      it('merges the patch into the top-level fields and returns the new record', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ timings: { ingest_ms: 5 } });
        await store.create(record);
        // Act
        const updated = await store.update(record.id, {
          status: 'processing',
          updatedAt: '2025-01-02T03:05:00.000Z',
          executionId: 'exec-9',
        });
        // Assert
        const expected = {
          ...record,
          status: 'processing',
          updatedAt: '2025-01-02T03:05:00.000Z',
          executionId: 'exec-9',
        };
        expect(updated).toStrictEqual(expected);
        expect(await store.get(record.id)).toStrictEqual(expected);
      });

      it('replaces a nested object as a whole', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ timings: { ingest_ms: 5, routing_ms: 7 } });
        await store.create(record);
        // Act
        const updated = await store.update(record.id, { timings: { delivery_ms: 3 } });
        // Assert
        expect(updated.timings).toStrictEqual({ delivery_ms: 3 });
        expect(updated.options).toStrictEqual(record.options);
      });

      it('removes a field patched to undefined', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ resultKey: 'results/x.json', executionId: 'exec-1' });
        await store.create(record);
        // Act
        const updated = await store.update(record.id, {
          resultKey: undefined,
          status: 'processing',
        });
        // Assert
        expect(updated).not.toHaveProperty('resultKey');
        expect(await store.get(record.id)).not.toHaveProperty('resultKey');
        expect(updated.executionId).toBe('exec-1');
      });

      it('stores an error object and null values', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord();
        await store.create(record);
        const error = { name: 'DocumentRejectedError', kind: 'unprocessable', message: '' };
        // Act
        await store.update(record.id, {
          status: 'failed',
          error,
          options: { ...record.options, dpi: null },
        });
        // Assert
        const read = await store.get(record.id);
        expect(read?.error).toStrictEqual(error);
        expect(read?.options.dpi).toBeNull();
      });

      it('updates when the stored status is one of the expected ones', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ status: 'processing' });
        await store.create(record);
        // Act
        const updated = await store.update(record.id, { status: 'cancelled' }, [
          'queued',
          'processing',
        ]);
        // Assert
        expect(updated.status).toBe('cancelled');
      });

      it('returns the record unchanged for an empty patch', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord();
        await store.create(record);
        // Act
        const updated = await store.update(record.id, {}, ['queued']);
        // Assert
        expect(updated).toStrictEqual(record);
      });

      it('throws ConflictError when the stored status is not an expected one', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ status: 'completed' });
        await store.create(record);
        // Act
        const updating = store.update(record.id, { status: 'cancelled' }, ['queued', 'processing']);
        // Assert
        await expect(updating).rejects.toBeInstanceOf(ConflictError);
        expect(await store.get(record.id)).toStrictEqual(record);
      });

      it('throws ConflictError for an empty list of expected statuses', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord();
        await store.create(record);
        // Act
        const updating = store.update(record.id, { status: 'processing' }, []);
        // Assert
        await expect(updating).rejects.toBeInstanceOf(ConflictError);
        expect((await store.get(record.id))?.status).toBe('queued');
      });

      it('throws ConflictError for an empty patch when the status is not expected', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ status: 'failed' });
        await store.create(record);
        // Act
        const updating = store.update(record.id, {}, ['queued']);
        // Assert
        await expect(updating).rejects.toBeInstanceOf(ConflictError);
      });

      it('throws NotFoundError for an unknown id', async () => {
        // Arrange
        const store = await factory();
        const id = randomUUID();
        // Act
        const updating = store.update(id, { status: 'processing' });
        // Assert
        await expect(updating).rejects.toBeInstanceOf(NotFoundError);
        expect(await store.get(id)).toBeUndefined();
      });

      it('throws NotFoundError for an unknown id even with expected statuses', async () => {
        // Arrange
        const store = await factory();
        // Act
        const updating = store.update(randomUUID(), { status: 'processing' }, ['queued']);
        // Assert
        await expect(updating).rejects.toBeInstanceOf(NotFoundError);
      });

      it('throws NotFoundError for an empty patch on an unknown id', async () => {
        // Arrange
        const store = await factory();
        // Act
        const updating = store.update(randomUUID(), {});
        // Assert
        await expect(updating).rejects.toBeInstanceOf(NotFoundError);
      });

      it('elects exactly one winner among concurrent conditional updates', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ status: 'failed' });
        await store.create(record);
        // Act
        const outcomes = await Promise.allSettled(
          Array.from({ length: 6 }, (_, i) =>
            store.update(record.id, { status: 'queued', executionId: `resume-${i}` }, ['failed']),
          ),
        );
        // Assert
        const winners = outcomes.filter((o) => o.status === 'fulfilled');
        expect(winners).toHaveLength(1);
        for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
          expect(outcome.reason).toBeInstanceOf(ConflictError);
        }
        expect((await store.get(record.id))?.executionId).toBe(winners[0]!.value.executionId);
      });
    });

    describe('claimRun', () => {
      it('lets exactly one of 20 concurrent claims of run 1 win, and applies its patch', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ status: 'processing' });
        await store.create(record);
        // Act
        const claims = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.claimRun(record.id, 1, { status: 'queued', executionId: `run-${i}` }),
          ),
        );
        // Assert
        expect(claims.filter(Boolean)).toHaveLength(1);
        const stored = await store.get(record.id);
        expect(stored?.runs).toBe(1);
        expect(stored?.status).toBe('queued');
        expect(stored?.executionId).toBe(`run-${claims.indexOf(true)}`);
      });

      it('claims run 2 only after run 1, and never the same run twice', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord();
        await store.create(record);
        // Act
        const early = await store.claimRun(record.id, 2, {});
        const first = await store.claimRun(record.id, 1, {});
        const again = await store.claimRun(record.id, 1, {});
        const second = await store.claimRun(record.id, 2, { error: undefined });
        // Assert
        expect([early, first, again, second]).toEqual([false, true, false, true]);
        expect((await store.get(record.id))?.runs).toBe(2);
      });

      it('throws NotFoundError for an unknown id', async () => {
        // Arrange
        const store = await factory();
        // Act
        const claiming = store.claimRun(randomUUID(), 1, {});
        // Assert
        await expect(claiming).rejects.toBeInstanceOf(NotFoundError);
      });
    });

    describe('charged pages', () => {
      const IN_FLIGHT = ['queued', 'processing'] as const;

      it('counts each page once, however often or concurrently it is charged', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ status: 'processing' });
        await store.create(record);
        // Act
        const first = await store.chargePage(record.id, 3, IN_FLIGHT);
        const again = await store.chargePage(record.id, 3, IN_FLIGHT);
        const concurrent = await Promise.all(
          [1, 2, 1, 2, 5, 5].map((n) => store.chargePage(record.id, n, IN_FLIGHT)),
        );
        // Assert
        expect([first, again]).toEqual([true, false]);
        expect(concurrent.filter(Boolean)).toHaveLength(3);
        expect((await store.get(record.id))?.chargedPages).toEqual([1, 2, 3, 5]);
      });

      it('keeps the charged pages through updates, a patch of them included', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ status: 'processing' });
        await store.create(record);
        await store.chargePage(record.id, 2, IN_FLIGHT);
        // Act
        const updated = await store.update(record.id, {
          status: 'cancelled',
          ...({ chargedPages: [] } as object),
        });
        await store.claimRun(record.id, 1, { status: 'queued' });
        // Assert
        expect(updated.chargedPages).toEqual([2]);
        expect((await store.get(record.id))?.chargedPages).toEqual([2]);
      });

      it('throws ConflictError and counts nothing when the status is not an expected one', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ status: 'cancelled' });
        await store.create(record);
        // Act
        const charging = store.chargePage(record.id, 1, IN_FLIGHT);
        // Assert
        await expect(charging).rejects.toBeInstanceOf(ConflictError);
        expect((await store.get(record.id))?.chargedPages).toBeUndefined();
      });

      it('throws NotFoundError for an unknown id', async () => {
        // Arrange
        const store = await factory();
        // Act
        const charging = store.chargePage(randomUUID(), 1, IN_FLIGHT);
        const uncharging = store.unchargePage(randomUUID(), 1, IN_FLIGHT);
        // Assert
        await expect(charging).rejects.toBeInstanceOf(NotFoundError);
        await expect(uncharging).rejects.toBeInstanceOf(NotFoundError);
      });

      it('takes a page back only while the status is an expected one', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ status: 'processing' });
        await store.create(record);
        for (const n of [1, 2, 3]) await store.chargePage(record.id, n, IN_FLIGHT);
        // Act
        const taken = await store.unchargePage(record.id, 2, IN_FLIGHT);
        const notCharged = await store.unchargePage(record.id, 7, IN_FLIGHT);
        await store.update(record.id, { status: 'failed' });
        const afterFailure = await store.unchargePage(record.id, 3, IN_FLIGHT);
        // Assert
        expect([taken, notCharged, afterFailure]).toEqual([true, false, false]);
        expect((await store.get(record.id))?.chargedPages).toEqual([1, 3]);
      });

      it('leaves no charged pages once the last one is taken back', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord({ status: 'processing' });
        await store.create(record);
        await store.chargePage(record.id, 1, IN_FLIGHT);
        // Act
        await store.unchargePage(record.id, 1, IN_FLIGHT);
        // Assert
        expect((await store.get(record.id))?.chargedPages ?? []).toEqual([]);
      });
    });

    describe('page checkpoints', () => {
      it('lists the stored checkpoints by ascending page number', async () => {
        // Arrange
        const store = await factory();
        const requestId = randomUUID();
        const checkpoints: PageCheckpoint[] = [3, 1, 12, 2].map((pageNumber) => ({
          pageNumber,
          page: aPage(pageNumber),
        }));
        // Act
        for (const checkpoint of checkpoints) await store.putPage(requestId, checkpoint);
        const pages = await store.listPages(requestId);
        // Assert
        expect(pages.map((p) => p.pageNumber)).toEqual([1, 2, 3, 12]);
        expect(pages[0]).toStrictEqual(checkpoints[1]);
      });

      it('keeps the order past page 9999', async () => {
        // Arrange
        const store = await factory();
        const requestId = randomUUID();
        // Act
        for (const pageNumber of [10_000, 9_999, 100_001]) {
          await store.putPage(requestId, { pageNumber, pageKey: `pages/${pageNumber}.json` });
        }
        const pages = await store.listPages(requestId);
        // Assert
        expect(pages.map((p) => p.pageNumber)).toEqual([9_999, 10_000, 100_001]);
      });

      it('stores a pointer checkpoint for a large page', async () => {
        // Arrange
        const store = await factory();
        const requestId = randomUUID();
        const checkpoint = { pageNumber: 7, pageKey: `pages/${requestId}/0007.json` };
        // Act
        await store.putPage(requestId, checkpoint);
        // Assert
        expect(await store.listPages(requestId)).toStrictEqual([checkpoint]);
      });

      it('overwrites the checkpoint of a page written twice', async () => {
        // Arrange
        const store = await factory();
        const requestId = randomUUID();
        await store.putPage(requestId, { pageNumber: 1, pageKey: 'pages/old.json' });
        // Act
        await store.putPage(requestId, { pageNumber: 1, page: aPage(1) });
        // Assert
        expect(await store.listPages(requestId)).toStrictEqual([{ pageNumber: 1, page: aPage(1) }]);
      });

      it('lists no checkpoints for a request without any', async () => {
        // Arrange
        const store = await factory();
        // Act
        const pages = await store.listPages(randomUUID());
        // Assert
        expect(pages).toEqual([]);
      });

      it('keeps the checkpoints of different requests apart', async () => {
        // Arrange
        const store = await factory();
        const first = aRequestRecord();
        const second = aRequestRecord();
        await store.create(first);
        await store.create(second);
        // Act
        await store.putPage(first.id, { pageNumber: 1, pageKey: 'first' });
        await store.putPage(second.id, { pageNumber: 1, pageKey: 'second' });
        // Assert
        expect(await store.listPages(first.id)).toEqual([{ pageNumber: 1, pageKey: 'first' }]);
        expect(await store.listPages(second.id)).toEqual([{ pageNumber: 1, pageKey: 'second' }]);
      });

      it('deletes every checkpoint of a request and keeps the record', async () => {
        // Arrange
        const store = await factory();
        const record = aRequestRecord();
        const other = randomUUID();
        await store.create(record);
        await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            store.putPage(record.id, { pageNumber: i + 1, pageKey: `pages/${i + 1}.json` }),
          ),
        );
        await store.putPage(other, { pageNumber: 1, pageKey: 'other' });
        // Act
        await store.deletePages(record.id);
        // Assert
        expect(await store.listPages(record.id)).toEqual([]);
        expect(await store.get(record.id)).toStrictEqual(record);
        expect(await store.listPages(other)).toHaveLength(1);
      });

      it('deletes the checkpoints of a request without any without error', async () => {
        // Arrange
        const store = await factory();
        // Act
        const deleting = store.deletePages(randomUUID());
        // Assert
        await expect(deleting).resolves.toBeUndefined();
      });

      it('lists all checkpoints when they exceed one query page', async () => {
        // Arrange
        const store = await factory();
        const requestId = randomUUID();
        const big = 'x'.repeat(100 * 1024);
        const count = 15;
        await Promise.all(
          Array.from({ length: count }, (_, i) =>
            store.putPage(requestId, {
              pageNumber: i + 1,
              page: { ...aPage(i + 1), content_markdown: big },
            }),
          ),
        );
        // Act
        const pages = await store.listPages(requestId);
        await store.deletePages(requestId);
        // Assert
        expect(pages.map((p) => p.pageNumber)).toEqual(
          Array.from({ length: count }, (_, i) => i + 1),
        );
        expect(await store.listPages(requestId)).toEqual([]);
      });
    });
  });
}
