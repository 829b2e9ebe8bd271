import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbResultCache } from '../../../functions/adapters/aws/dynamodb-result-cache.js';
import { serviceTable } from '../../../functions/adapters/aws/service-table.js';
import {
  startEmbeddedDynamo,
  type EmbeddedDynamo,
} from '../../../functions/adapters/local/embedded-dynamo.js';
import { FsObjectStore } from '../../../functions/adapters/local/fs-object-store.js';
import { sweepExpired } from '../../../functions/adapters/local/retention.js';
import {
  aCachedResult,
  aCacheKey,
  describeResultCacheContract,
  NOW,
} from '../../contract/result-cache.contract.js';

const TABLE = 'result-cache';
let ddb: EmbeddedDynamo;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docparse-result-cache-'));
  ddb = await startEmbeddedDynamo();
  await ddb.ensureTable(serviceTable(TABLE));
});
afterAll(async () => {
  await ddb.stop();
  await rm(dir, { recursive: true, force: true });
});

// The contract calls the factory inside each test, after beforeAll has run.
describeResultCacheContract(
  'DynamoDbResultCache on dynalite',
  () => new DynamoDbResultCache(ddb.documentClient, TABLE),
);

describe('DynamoDbResultCache on dynalite', () => {
  it('is deleted by the local retention sweep once its validUntil has passed', async () => {
    // Arrange: one entry expired a second before the sweep, one valid after it.
    const cache = new DynamoDbResultCache(ddb.documentClient, TABLE);
    const [expired, valid] = [aCacheKey(), aCacheKey()];
    await cache.put(
      expired,
      aCachedResult({ validUntil: new Date(NOW.getTime() - 1000).toISOString() }),
    );
    await cache.put(valid, aCachedResult());
    // Act
    const report = await sweepExpired({
      objects: new FsObjectStore(join(dir, 'objects'), { onlyWriter: true }),
      documentClient: ddb.documentClient,
      tableName: TABLE,
      retentionDays: 7,
      now: () => NOW,
    });
    // Assert: the expired item is gone from the table, not only hidden by get.
    expect(report.items).toBe(1);
    const hour = new Date(NOW.getTime() - 3600 * 1000);
    expect(await cache.get(expired, hour)).toBeUndefined();
    expect(await cache.get(valid, NOW)).toBeDefined();
  });
});
