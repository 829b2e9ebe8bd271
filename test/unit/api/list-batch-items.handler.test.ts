import { describe, expect, it } from 'vitest';
import { createHandler as listItemsHandler } from '../../../functions/api/list-batch-items.handler.js';
import { createHandler as parseBatchHandler } from '../../../functions/api/parse-batch.handler.js';
import type { Queue } from '../../../functions/core/ports/queue.js';
import {
  API_KEY,
  OTHER_API_KEY,
  aGetEvent,
  anApiEvent,
  bodyOf,
  fakeDeps,
  lambdaContext,
  type FakeDeps,
} from '../../support/builders.js';

/** A batch queue that drops what it is sent (the items stay queued). */
const dropping: Queue = { send: () => Promise.resolve(), sendMany: () => Promise.resolve() };

/** Fake dependencies holding one batch of `count` documents, and its id. */
async function aBatch(count: number): Promise<{ deps: FakeDeps; batchId: string }> {
  const deps = Object.assign(await fakeDeps(), { batchItems: dropping });
  const documents = Array.from({ length: count }, (_, n) => ({
    file_url: `https://files.example.com/${n}.pdf`,
  }));
  const submitted = await parseBatchHandler(() => Promise.resolve(deps))(
    anApiEvent({
      httpMethod: 'POST',
      path: '/v1/parse/batch',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ documents }),
    }),
    lambdaContext('parse-batch'),
  );
  return { deps, batchId: bodyOf(submitted).batch_id as string };
}

const list = (
  deps: FakeDeps,
  batchId: string,
  query: Record<string, string> = {},
  apiKey: string | null = API_KEY,
) =>
  listItemsHandler(() => Promise.resolve(deps))(
    aGetEvent(`/v1/batch/${batchId}/items`, {
      pathParameters: { batch_id: batchId },
      query,
      apiKey,
    }),
    lambdaContext('list-batch-items'),
  );

describe('GET /v1/batch/{batch_id}/items', () => {
  it('answers the first page of items in submission order, with the cursor of the next', async () => {
    // Arrange
    const { deps, batchId } = await aBatch(3);
    // Act
    const result = await list(deps, batchId, { limit: '2' });
    // Assert
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({
      batch_id: batchId,
      items: [
        {
          index: 0,
          request_id: null,
          status: 'queued',
          file_url: 'https://files.example.com/0.pdf',
        },
        {
          index: 1,
          request_id: null,
          status: 'queued',
          file_url: 'https://files.example.com/1.pdf',
        },
      ],
      next_cursor: '2',
    });
  });

  it('answers the last page from a cursor, with no next cursor', async () => {
    // Arrange
    const { deps, batchId } = await aBatch(3);
    // Act
    const result = await list(deps, batchId, { limit: '2', cursor: '2' });
    // Assert
    const body = bodyOf(result) as { items: { index: number }[]; next_cursor: unknown };
    expect(body.items.map((item) => item.index)).toEqual([2]);
    expect(body.next_cursor).toBeNull();
  });

  it('lists only the items of the status asked for, keeping their indexes', async () => {
    // Arrange
    const { deps, batchId } = await aBatch(4);
    const at = new Date();
    // The store numbers items from 1; the API's index is the position in `documents`, from 0.
    for (const index of [2, 4]) {
      await deps.batches.transitionItem(batchId, index, {
        from: 'queued',
        to: 'failed',
        at,
        error: { kind: 'invalid', detail: 'refused URL' },
      });
    }
    // Act
    const failed = await list(deps, batchId, { status: 'failed' });
    const queued = await list(deps, batchId, { status: 'queued', limit: '1' });
    // Assert
    expect(
      (bodyOf(failed).items as { index: number; error?: unknown }[]).map(({ index, error }) => ({
        index,
        error,
      })),
    ).toEqual([
      { index: 1, error: { kind: 'invalid', detail: 'refused URL' } },
      { index: 3, error: { kind: 'invalid', detail: 'refused URL' } },
    ]);
    expect(bodyOf(queued)).toMatchObject({ items: [{ index: 0 }], next_cursor: '2' });
  });

  it('answers 50 items by default', async () => {
    // Arrange
    const { deps, batchId } = await aBatch(51);
    // Act
    const result = await list(deps, batchId);
    // Assert
    expect((bodyOf(result).items as unknown[]).length).toBe(50);
    expect(bodyOf(result).next_cursor).toBe('50');
  });

  it('rejects a limit above 100 and an unknown status with 422', async () => {
    // Arrange
    const { deps, batchId } = await aBatch(1);
    // Act
    const tooMany = await list(deps, batchId, { limit: '101' });
    const unknown = await list(deps, batchId, { status: 'done' });
    // Assert
    expect(tooMany.statusCode).toBe(422);
    expect(unknown.statusCode).toBe(422);
  });

  it('fails with 401 without an API key', async () => {
    // Arrange
    const { deps, batchId } = await aBatch(1);
    // Act
    const result = await list(deps, batchId, {}, null);
    // Assert
    expect(result.statusCode).toBe(401);
  });

  it("fails with 404 for another tenant's batch, as for an unknown one", async () => {
    // Arrange
    const { deps, batchId } = await aBatch(1);
    // Act
    const theirs = await list(deps, batchId, {}, OTHER_API_KEY);
    const unknown = await list(deps, 'batch_unknown', {}, OTHER_API_KEY);
    // Assert
    expect(theirs.statusCode).toBe(404);
    expect(bodyOf(theirs)).toEqual({ detail: `batch ${batchId} not found` });
    expect(unknown.statusCode).toBe(404);
  });
});
