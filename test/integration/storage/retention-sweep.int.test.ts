import { mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoDbBatchStore } from '../../../functions/adapters/aws/dynamodb-batch-store.js';
import { DynamoDbEventLog } from '../../../functions/adapters/aws/dynamodb-event-log.js';
import { DynamoDbRequestStore } from '../../../functions/adapters/aws/dynamodb-request-store.js';
import { serviceTable } from '../../../functions/adapters/aws/service-table.js';
import {
  startEmbeddedDynamo,
  type EmbeddedDynamo,
} from '../../../functions/adapters/local/embedded-dynamo.js';
import { FsObjectStore } from '../../../functions/adapters/local/fs-object-store.js';
import { EXPIRING_PREFIXES, sweepExpired } from '../../../functions/adapters/local/retention.js';
import type { BatchItem, BatchRecord } from '../../../functions/core/domain/batch.js';
import { aRequestRecord } from '../../contract/request-store.contract.js';

/**
 * The local mode follows RETENTION_DAYS as the AWS stack does: files under uploads/, work/,
 * results/ and incoming/ older than the retention go (the bucket's lifecycle rules), and so do
 * request records, checkpoints, events and batches the retention after their last write (the
 * table's TTL).
 */

const TABLE = 'retention';
const DAY_MS = 24 * 60 * 60 * 1000;
const WRITTEN = new Date('2025-04-01T00:00:00.000Z');
let ddb: EmbeddedDynamo;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docparse-retention-sweep-'));
  ddb = await startEmbeddedDynamo();
  await ddb.ensureTable(serviceTable(TABLE));
});
afterAll(async () => {
  await ddb.stop();
  await rm(dir, { recursive: true, force: true });
});

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('the local retention sweep', () => {
  it('deletes files of every expiring prefix older than the retention, and keeps younger ones', async () => {
    // Arrange: one file per prefix written 3 days ago, one per prefix written now.
    const root = join(dir, 'objects');
    const objects = new FsObjectStore(root, { onlyWriter: true });
    const now = new Date();
    const old = new Date(now.getTime() - 3 * DAY_MS);
    for (const prefix of EXPIRING_PREFIXES) {
      await objects.put(`${prefix}t/old.json`, new Uint8Array([1]));
      await utimes(join(root, prefix, 't', 'old.json'), old, old);
      await objects.put(`${prefix}t/new.json`, new Uint8Array([1]));
    }
    // Act
    const report = await sweepExpired({
      objects,
      documentClient: ddb.documentClient,
      tableName: TABLE,
      retentionDays: 2,
      now: () => now,
    });
    // Assert
    expect(report.objects).toBe(4);
    for (const prefix of ['uploads/', 'work/', 'results/', 'incoming/']) {
      expect(await exists(join(root, prefix, 't', 'old.json'))).toBe(false);
      expect(await exists(join(root, prefix, 't', 'new.json'))).toBe(true);
    }
  });

  it('deletes records, checkpoints, events and batches the retention after their last write', async () => {
    // Arrange: everything written at WRITTEN with a 2-day retention.
    const retention = { days: 2, now: () => WRITTEN };
    const requests = new DynamoDbRequestStore(ddb.documentClient, TABLE, {
      onlyWriter: true,
      retention,
    });
    const events = new DynamoDbEventLog(ddb.documentClient, TABLE, {
      clock: { now: () => WRITTEN },
      retentionDays: 2,
    });
    const batches = new DynamoDbBatchStore(ddb.documentClient, TABLE, { retention });
    await requests.create(aRequestRecord({ id: 'r-old' }));
    await requests.putPage('r-old', { pageNumber: 1, status: 'COMPLETED' } as never);
    await events.append('r-old', { event: 'page.completed', page_number: 1 });
    await batches.create(
      {
        id: 'batch_old',
        tenant: 't',
        status: 'queued',
        createdAt: WRITTEN.toISOString(),
        updatedAt: WRITTEN.toISOString(),
        totals: { queued: 1, in_progress: 0, completed: 0, failed: 0 },
      } as unknown as BatchRecord,
      [{ index: 1, status: 'queued' } as unknown as BatchItem],
    );
    const forgotten = vi.fn(() => {
      requests.forgetRemembered();
    });
    const sweep = (days: number) =>
      sweepExpired({
        objects: new FsObjectStore(join(dir, 'none'), { onlyWriter: true }),
        documentClient: ddb.documentClient,
        tableName: TABLE,
        retentionDays: 2,
        now: () => new Date(WRITTEN.getTime() + days * DAY_MS),
        onItemsDeleted: forgotten,
      });
    // Act
    const early = await sweep(1.9);
    const late = await sweep(2.1);
    // Assert: META + PAGE# + EVT# + batch META + ITEM#.
    expect(early.items).toBe(0);
    expect(late.items).toBe(5);
    expect(forgotten).toHaveBeenCalledTimes(1);
    expect(await requests.get('r-old')).toBeUndefined();
    expect(await requests.listPages('r-old')).toEqual([]);
    expect(await events.list('r-old')).toEqual([]);
    expect(await batches.get('batch_old')).toBeUndefined();
  });
});
