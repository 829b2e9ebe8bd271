import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceTable, TTL_ATTRIBUTE } from '../../../functions/adapters/aws/service-table.js';
import {
  startEmbeddedDynamo,
  type EmbeddedDynamo,
} from '../../../functions/adapters/local/embedded-dynamo.js';
import { FsObjectStore } from '../../../functions/adapters/local/fs-object-store.js';
import { sweepExpired } from '../../../functions/adapters/local/retention.js';

/**
 * The local retention sweep does what the AWS stack's expiry does: objects under `uploads/` and
 * `work/` older than the retention are deleted (S3 lifecycle rules), results are kept, and table
 * items whose TTL attribute has passed are deleted (DynamoDB TTL, which dynalite lacks). The
 * clock is injected: nothing sleeps.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const TABLE = 'retention';
let dir: string;
let ddb: EmbeddedDynamo;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docparse-retention-'));
  ddb = await startEmbeddedDynamo();
  await ddb.ensureTable(serviceTable(TABLE));
});
afterAll(async () => {
  await ddb.stop();
  await rm(dir, { recursive: true, force: true });
});

const bytes = (text: string) => new TextEncoder().encode(text);

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('sweepExpired', () => {
  it('deletes uploads, work, results and table items past their retention, and keeps the rest', async () => {
    // Arrange: a request written 8 days ago and one written now, with a 7-day retention.
    const root = join(dir, 'objects');
    const store = new FsObjectStore(root, { onlyWriter: true });
    const now = new Date();
    const old = new Date(now.getTime() - 8 * DAY_MS);
    // Results hold document content too: they expire with the same retention.
    const oldKeys = [
      'uploads/req_old/document',
      'uploads/slots/t/upl_old/document',
      'work/req_old/inspection.json',
      'work/req_old/pages/0001.json',
      'results/t/req_old.json',
      'results/t/req_old.md',
    ];
    const freshKeys = [
      'uploads/req_new/document',
      'work/req_new/pages/0001.json',
      'results/t/req_new.json',
    ];
    for (const key of [...oldKeys, ...freshKeys]) {
      await store.put(key, bytes(key));
    }
    for (const key of oldKeys) await utimes(join(root, key), old, old);
    const epoch = (date: Date) => Math.floor(date.getTime() / 1000);
    const items = {
      expired: { pk: 'USAGE#t', sk: 'DAY#2025-01-01', [TTL_ATTRIBUTE]: epoch(now) - 60 },
      live: { pk: 'USAGE#t', sk: 'DAY#2999-01-01', [TTL_ATTRIBUTE]: epoch(now) + 3600 },
      untimed: { pk: 'REQ#req_old', sk: 'META', status: 'completed' },
    };
    for (const item of Object.values(items)) {
      await ddb.documentClient.send(new PutCommand({ TableName: TABLE, Item: item }));
    }
    // Act
    const report = await sweepExpired({
      objects: store,
      documentClient: ddb.documentClient,
      tableName: TABLE,
      retentionDays: 7,
      now: () => now,
    });
    // Assert
    expect(report).toEqual({ objects: oldKeys.length, items: 1 });
    for (const key of oldKeys) {
      expect(await exists(join(root, key))).toBe(false);
      // The store's memory of recent writes forgets them too.
      expect(await store.exists(key)).toBe(false);
      await expect(store.get(key)).rejects.toThrow();
    }
    for (const key of freshKeys) expect(await exists(join(root, key))).toBe(true);
    // Emptied directories go with their files.
    expect(await exists(join(root, 'work/req_old'))).toBe(false);
    const read = async (item: { pk: string; sk: string }) =>
      (
        await ddb.documentClient.send(
          new GetCommand({ TableName: TABLE, Key: { pk: item.pk, sk: item.sk } }),
        )
      ).Item;
    expect(await read(items.expired)).toBeUndefined();
    expect(await read(items.live)).toBeDefined();
    expect(await read(items.untimed)).toBeDefined();
  });

  it('expires the fresh objects too once the clock passes their retention', async () => {
    // Arrange: a half-day retention, the clock advanced 13 hours.
    const root = join(dir, 'objects-advanced');
    const store = new FsObjectStore(root);
    await store.put('work/req_a/pages/0001.json', bytes('{}'));
    const later = new Date(Date.now() + 13 * 60 * 60 * 1000);
    // Act
    const kept = await sweepExpired({
      objects: store,
      documentClient: ddb.documentClient,
      tableName: TABLE,
      retentionDays: 1,
      now: () => later,
    });
    const swept = await sweepExpired({
      objects: store,
      documentClient: ddb.documentClient,
      tableName: TABLE,
      retentionDays: 0.5,
      now: () => later,
    });
    // Assert
    expect(kept.objects).toBe(0);
    expect(swept.objects).toBe(1);
    expect(await store.exists('work/req_a/pages/0001.json')).toBe(false);
  });
});
