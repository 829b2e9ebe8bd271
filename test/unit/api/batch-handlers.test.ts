import { describe, expect, it } from 'vitest';
import { createHandler as getBatchHandler } from '../../../functions/api/get-batch.handler.js';
import { createHandler as parseBatchHandler } from '../../../functions/api/parse-batch.handler.js';
import { createHandler as batchItemHandler } from '../../../functions/pipeline/batch-item.handler.js';
import type { Queue, QueueEntry } from '../../../functions/core/ports/queue.js';
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

/** A queue that keeps the entries it is sent. */
class RecordingQueue implements Queue {
  readonly entries: QueueEntry[] = [];
  send(): Promise<void> {
    return Promise.resolve();
  }
  sendMany(entries: readonly QueueEntry[]): Promise<void> {
    this.entries.push(...entries);
    return Promise.resolve();
  }
}

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function withQueue(): Promise<FakeDeps & { batchItems: RecordingQueue }> {
  return Object.assign(await fakeDeps(), { batchItems: new RecordingQueue() });
}

const post = (deps: FakeDeps, body: unknown) =>
  parseBatchHandler(() => Promise.resolve(deps))(
    anApiEvent({
      httpMethod: 'POST',
      path: '/v1/parse/batch',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    lambdaContext('parse-batch'),
  );

const get = (deps: FakeDeps, id: string, apiKey = API_KEY) =>
  getBatchHandler(() => Promise.resolve(deps))(
    aGetEvent(`/v1/batch/${id}`, { pathParameters: { batch_id: id }, apiKey }),
    lambdaContext('get-batch'),
  );

const doc = (n: number) => ({ file_url: `https://files.example.com/${n}.pdf` });

describe('POST /v1/parse/batch', () => {
  it('answers 200 at once with the batch id, queued, and the item count', async () => {
    // Arrange
    const deps = await withQueue();
    // Act
    const result = await post(deps, { documents: [doc(1), doc(2)], priority: 'high' });
    // Assert
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({ batch_id: 'batch_id0001', status: 'queued', item_count: 2 });
    expect(deps.batchItems.entries.map((e) => e.delaySeconds)).toEqual([0, 0]);
    expect((await deps.batches.get('batch_id0001'))?.priority).toBe('high');
  });

  it.each([
    ['no documents', { documents: [] }, ['body', 'documents']],
    [
      '101 documents',
      { documents: Array.from({ length: 101 }, (_, i) => doc(i)) },
      ['body', 'documents'],
    ],
    ['an unknown priority', { documents: [doc(1)], priority: 'urgent' }, ['body', 'priority']],
    [
      "a document's own webhook_url",
      { documents: [doc(1), { ...doc(2), webhook_url: 'https://hooks.example.com/x' }] },
      ['body', 'documents', 1, 'webhook_url'],
    ],
    [
      'a document with both file_url and upload_id',
      { documents: [{ ...doc(1), upload_id: 'upl_abc123' }] },
      ['body', 'documents', 0, 'file_url'],
    ],
    [
      'a document with neither file_url nor upload_id',
      { documents: [{ operation_mode: 'ocr' }] },
      ['body', 'documents', 0, 'file_url'],
    ],
    [
      'a malformed upload_id',
      { documents: [{ upload_id: 'file.pdf' }] },
      ['body', 'documents', 0, 'upload_id'],
    ],
    [
      'an unknown field of a document',
      { documents: [{ ...doc(1), colour: 'blue' }] },
      ['body', 'documents', 0],
    ],
  ])('answers 422 for %s', async (_, body, loc) => {
    // Arrange
    const deps = await withQueue();
    // Act
    const result = await post(deps, body);
    // Assert
    expect(result.statusCode).toBe(422);
    const detail = bodyOf(result).detail as { loc: unknown[] }[];
    expect(detail[0]?.loc).toEqual(loc);
    expect(deps.batchItems.entries).toEqual([]);
  });

  it('accepts documents sent beforehand to upload slots, by upload_id', async () => {
    // Arrange
    const deps = await withQueue();
    // Act
    const result = await post(deps, { documents: [{ upload_id: 'upl_abc123' }, doc(2)] });
    // Assert
    expect(result.statusCode).toBe(200);
    const items = await deps.batches.listItems('batch_id0001');
    expect(items.map((item) => item.document)).toEqual([
      expect.objectContaining({ uploadId: 'upl_abc123' }),
      expect.objectContaining({ fileUrl: 'https://files.example.com/2.pdf' }),
    ]);
  });

  it('answers 400 for a webhook_url at a private address, before storing anything', async () => {
    // Arrange
    const deps = await withQueue();
    // Act
    const result = await post(deps, {
      documents: [doc(1)],
      webhook_url: 'https://10.0.0.8/hooks',
    });
    // Assert
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result).detail).toMatch(/^webhook_url refused: .*private/);
    expect(await deps.batches.get('batch_id0001')).toBeUndefined();
  });
});

describe('GET /v1/batch/{batch_id}', () => {
  it("answers the caller's batch, and 404 to another tenant", async () => {
    // Arrange
    const deps = await withQueue();
    await post(deps, { documents: [doc(1)] });
    // Act
    const mine = await get(deps, 'batch_id0001');
    const theirs = await get(deps, 'batch_id0001', OTHER_API_KEY);
    const unknown = await get(deps, 'batch_nothing');
    // Assert
    expect(mine.statusCode).toBe(200);
    expect(bodyOf(mine)).toMatchObject({
      batch_id: 'batch_id0001',
      status: 'queued',
      totals: { queued: 1, in_progress: 0, completed: 0, failed: 0 },
      completed_documents: 0,
      total_documents: 1,
      items: [{ request_id: null, status: 'queued', file_url: doc(1).file_url }],
    });
    // The same answer as for an id that does not exist.
    expect(theirs.statusCode).toBe(404);
    expect(bodyOf(theirs)).toEqual({ detail: 'batch batch_id0001 not found' });
    expect(unknown.statusCode).toBe(404);
    expect(bodyOf(unknown)).toEqual({ detail: 'batch batch_nothing not found' });
  });
});

describe('the batch item consumer', () => {
  it('drops malformed messages and messages of unknown items without a retry', async () => {
    // Arrange
    const deps = await withQueue();
    const handler = batchItemHandler(() => Promise.resolve(deps), silent);
    const record = (messageId: string, body: string) => ({
      messageId,
      receiptHandle: messageId,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 'test',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:batch-items',
      awsRegion: 'local',
    });
    // Act
    const result = await handler(
      {
        Records: [
          record('m1', 'not json'),
          record('m2', JSON.stringify({ batchId: 'batch_gone', index: 1 })),
        ],
      },
      lambdaContext('BatchItem'),
    );
    // Assert
    expect(result).toEqual({ batchItemFailures: [] });
  });
});
