import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoDbApiKeyStore } from '../../../functions/adapters/aws/dynamodb-api-key-store.js';
import { DynamoDbBatchStore } from '../../../functions/adapters/aws/dynamodb-batch-store.js';
import { DynamoDbBreakerStore } from '../../../functions/adapters/aws/dynamodb-breaker-store.js';
import { DynamoDbEventLog } from '../../../functions/adapters/aws/dynamodb-event-log.js';
import {
  createDocumentClient,
  pageSk,
  requestPk,
} from '../../../functions/adapters/aws/dynamodb-items.js';
import { DynamoDbRequestStore } from '../../../functions/adapters/aws/dynamodb-request-store.js';
import { DynamoDbUsageStore } from '../../../functions/adapters/aws/dynamodb-usage-store.js';
import {
  PARTITION_KEY,
  serviceTable,
  SORT_KEY,
} from '../../../functions/adapters/aws/service-table.js';
import { resetStorageCalls, storageCalls } from '../../../functions/adapters/storage-calls.js';
import {
  startEmbeddedDynamo,
  type EmbeddedDynamo,
} from '../../../functions/adapters/local/embedded-dynamo.js';
import {
  anApiKeyRecord,
  describeApiKeyStoreContract,
} from '../../contract/api-key-store.contract.js';
import {
  aBreakerRecord,
  aProviderId,
  describeBreakerStoreContract,
} from '../../contract/breaker-store.contract.js';
import {
  aBatchRecord,
  aLargeSchema,
  describeBatchStoreContract,
  itemsOf,
} from '../../contract/batch-store.contract.js';
import { describeEventLogContract } from '../../contract/event-log.contract.js';
import {
  aKeyHash,
  aTenant,
  DAY,
  describeUsageStoreContract,
  EXPIRES,
  WINDOW,
} from '../../contract/usage-store.contract.js';
import { describeWebhookSecretStoreContract } from '../../contract/webhook-secret-store.contract.js';
import { DynamoDbWebhookSecretStore } from '../../../functions/adapters/aws/dynamodb-webhook-secrets.js';
import { newWebhookSecret } from '../../../functions/adapters/http/webhook-signer.js';
import {
  aPage,
  aRequestRecord,
  describeRequestStoreContract,
} from '../../contract/request-store.contract.js';

const TABLE = 'docparse-test';

let ddb: EmbeddedDynamo;

beforeAll(async () => {
  ddb = await startEmbeddedDynamo();
  await ddb.ensureTable(serviceTable(TABLE));
});
afterAll(async () => {
  await ddb.stop();
});

// The contracts call the factories inside each test, after beforeAll has run.
describeRequestStoreContract(
  'DynamoDbRequestStore on dynalite',
  () => new DynamoDbRequestStore(ddb.documentClient, TABLE),
);
describeRequestStoreContract(
  'DynamoDbRequestStore on dynalite, as the only writer',
  () => new DynamoDbRequestStore(ddb.documentClient, TABLE, { onlyWriter: true }),
);
describeEventLogContract(
  'DynamoDbEventLog on dynalite',
  () => new DynamoDbEventLog(ddb.documentClient, TABLE),
);
describeApiKeyStoreContract(
  'DynamoDbApiKeyStore on dynalite',
  () => new DynamoDbApiKeyStore(ddb.documentClient, TABLE),
);
describeApiKeyStoreContract(
  'DynamoDbApiKeyStore on dynalite, as the only writer',
  () => new DynamoDbApiKeyStore(ddb.documentClient, TABLE, { onlyWriter: true }),
);
describeWebhookSecretStoreContract(
  'DynamoDbWebhookSecretStore on dynalite',
  () => new DynamoDbWebhookSecretStore(ddb.documentClient, TABLE, newWebhookSecret),
);
describeBreakerStoreContract(
  'DynamoDbBreakerStore on dynalite',
  () => new DynamoDbBreakerStore(ddb.documentClient, TABLE),
);
describeBatchStoreContract(
  'DynamoDbBatchStore on dynalite',
  () => new DynamoDbBatchStore(ddb.documentClient, TABLE),
);

describe('DynamoDbBatchStore on dynalite', () => {
  it('reads a batch and its items with one query over the partition, following its pages', async () => {
    // Arrange: 100 items of about 15 kB, more than the 1 MB of one query page.
    const store = new DynamoDbBatchStore(ddb.documentClient, TABLE);
    const batch = aBatchRecord({ itemCount: 100 });
    const items = itemsOf(batch).map((item) => ({
      ...item,
      document: { ...item.document, extractionSchema: aLargeSchema(item.index) },
    }));
    await store.create(batch, items);
    const send = vi.spyOn(ddb.documentClient, 'send');
    try {
      // Act
      const read = await store.getWithItems(batch.id);
      // Assert
      expect(read?.items).toHaveLength(100);
      const commands = send.mock.calls.map(([command]) => command);
      expect(commands.every((command) => command instanceof QueryCommand)).toBe(true);
      expect(commands.length).toBeGreaterThan(1);
      expect(commands[0]?.input).toMatchObject({ ConsistentRead: true, ScanIndexForward: false });
    } finally {
      send.mockRestore();
    }
  });
});

describe('DynamoDbRequestStore as the only writer', () => {
  it('answers get from the record it last wrote, as an independent copy', async () => {
    // Arrange: a second store (another writer) changes the record behind the first one's back.
    const store = new DynamoDbRequestStore(ddb.documentClient, TABLE, { onlyWriter: true });
    const other = new DynamoDbRequestStore(ddb.documentClient, TABLE);
    const record = aRequestRecord();
    await store.create(record);
    await store.update(record.id, { status: 'processing' });
    await other.update(record.id, { status: 'failed' });
    // Act
    const first = await store.get(record.id);
    if (first) first.status = 'cancelled';
    const second = await store.get(record.id);
    // Assert: no read of the table (it would say failed), and callers cannot alter the copy.
    expect(second?.status).toBe('processing');
    expect((await other.get(record.id))?.status).toBe('failed');
  });

  it('lists the checkpoints it wrote for a request it created, complete and in page order', async () => {
    // Arrange: another writer's checkpoint would not be seen; this store wrote every page.
    const store = new DynamoDbRequestStore(ddb.documentClient, TABLE, { onlyWriter: true });
    const plain = new DynamoDbRequestStore(ddb.documentClient, TABLE);
    const record = aRequestRecord();
    await store.create(record);
    for (const n of [3, 1, 2]) await store.putPage(record.id, { pageNumber: n, page: aPage(n) });
    // Act
    const listed = await store.listPages(record.id);
    const first = listed[0];
    if (first?.page) first.page.content_markdown = 'changed by the caller';
    const again = await store.listPages(record.id);
    const fromTable = await plain.listPages(record.id);
    await store.deletePages(record.id);
    // Assert: the list read from the table, unchanged by what callers do with their copy.
    expect(listed.map((c) => c.pageNumber)).toEqual([1, 2, 3]);
    expect(again).toEqual(fromTable);
    expect(again[0]?.page?.content_markdown).toBe(aPage(1).content_markdown);
    expect(await store.listPages(record.id)).toEqual([]);
    expect(await plain.listPages(record.id)).toEqual([]);
  });
});

describe('DynamoDbRequestStore page checkpoints', () => {
  it('stores a page whose JSON exceeds the 400 KB item limit, compressed, and reads it back', async () => {
    // Arrange: 3,000 grounding entries of text, about 600 KB of JSON.
    const store = new DynamoDbRequestStore(ddb.documentClient, TABLE);
    const record = aRequestRecord();
    await store.create(record);
    const page = aPage(1);
    page.grounding = Array.from({ length: 3000 }, (_, i) => ({
      text: `Row ${String(i)}: the quarterly revenue of segment ${String(i % 17)} rose by ${String(i % 9)}.${String(i % 10)} %`,
      bbox: {
        x: i % 600,
        y: (i * 7) % 800,
        w: 120.5,
        h: 11.25,
        label: 'paragraph',
        confidence: 0.97,
      },
      element_type: 'paragraph' as const,
      page_number: 1,
    }));
    page.content_markdown = page.grounding.map((g) => g.text).join('\n\n');
    expect(JSON.stringify(page).length).toBeGreaterThan(400 * 1024);
    // Act
    await store.putPage(record.id, { pageNumber: 1, page });
    const [stored] = await store.listPages(record.id);
    // Assert
    expect(stored?.page).toEqual(page);
  });

  it('reads a page stored as a JSON string by earlier versions', async () => {
    // Arrange: an item as putPage wrote it before pages were compressed.
    const store = new DynamoDbRequestStore(ddb.documentClient, TABLE);
    const record = aRequestRecord();
    await store.create(record);
    await ddb.documentClient.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          pageNumber: 2,
          pageJson: JSON.stringify(aPage(2)),
          [PARTITION_KEY]: requestPk(record.id),
          [SORT_KEY]: pageSk(2),
        },
      }),
    );
    await store.putPage(record.id, { pageNumber: 1, page: aPage(1) });
    // Act
    const pages = await store.listPages(record.id);
    // Assert
    expect(pages.map((c) => c.page)).toEqual([aPage(1), aPage(2)]);
  });
});

describe('DynamoDbRequestStore charges', () => {
  it('stores each charged page before its call returns, concurrent charges sharing writes', async () => {
    // Arrange: a second store reads the table itself, as another process would.
    const store = new DynamoDbRequestStore(ddb.documentClient, TABLE, { onlyWriter: true });
    const reader = new DynamoDbRequestStore(ddb.documentClient, TABLE);
    const record = aRequestRecord({ status: 'processing' });
    await store.create(record);
    const IN_FLIGHT = ['queued', 'processing'] as const;
    const storedWhenCharged = new Map<number, number[]>();
    resetStorageCalls();
    // Act
    await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        await store.chargePage(record.id, n, IN_FLIGHT);
        storedWhenCharged.set(n, (await reader.get(record.id))?.chargedPages ?? []);
      }),
    );
    // Assert
    for (const [page, stored] of storedWhenCharged) expect(stored).toContain(page);
    expect(storageCalls().get('DynamoDB UpdateItem')).toBe(2);
    expect((await store.get(record.id))?.chargedPages).toEqual([1, 2, 3, 4]);
  });
});

describe('DynamoDB item layout', () => {
  it('stores the request record as attributes under REQ#<id> / META', async () => {
    // Arrange
    const store = new DynamoDbRequestStore(ddb.documentClient, TABLE);
    const record = aRequestRecord();
    // Act
    await store.create(record);
    // Assert
    const { Item: item } = await ddb.documentClient.send(
      new GetCommand({ TableName: TABLE, Key: { pk: `REQ#${record.id}`, sk: 'META' } }),
    );
    expect(item).toMatchObject({ status: 'queued', tenant: 'tenant-a', options: record.options });
  });

  it('keeps pages, events and the record of one request apart in one partition', async () => {
    // Arrange
    const requests = new DynamoDbRequestStore(ddb.documentClient, TABLE);
    const events = new DynamoDbEventLog(ddb.documentClient, TABLE, {
      clock: { now: () => new Date('2025-01-02T03:04:05.000Z') },
    });
    const record = aRequestRecord();
    await requests.create(record);
    // Act
    await requests.putPage(record.id, { pageNumber: 2, pageKey: 'pages/2.json' });
    await events.append(record.id, { event: 'request.started' });
    await events.append(record.id, { event: 'page.completed', page_number: 2 });
    // Assert
    const { Items: items } = await ddb.documentClient.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `REQ#${record.id}` },
      }),
    );
    expect(items?.map((item) => item.sk as unknown)).toEqual([
      'EVT#0000000001',
      'EVT#0000000002',
      'META',
      'PAGE#0002',
    ]);
    expect(await requests.listPages(record.id)).toEqual([
      { pageNumber: 2, pageKey: 'pages/2.json' },
    ]);
    expect(await events.list(record.id)).toEqual([
      { seq: 1, at: '2025-01-02T03:04:05.000Z', body: { event: 'request.started' } },
      {
        seq: 2,
        at: '2025-01-02T03:04:05.000Z',
        body: { event: 'page.completed', page_number: 2 },
      },
    ]);
    expect(await requests.get(record.id)).toStrictEqual(record);
  });

  it('reads more than 1 MB of checkpoints over several query pages', async () => {
    // Arrange
    const requests = new DynamoDbRequestStore(ddb.documentClient, TABLE);
    const requestId = aRequestRecord().id;
    // Random text: pages are stored compressed, and this does not compress below 1 MB in all.
    const markdown = randomBytes(150 * 1024).toString('base64');
    for (let pageNumber = 1; pageNumber <= 8; pageNumber++) {
      await requests.putPage(requestId, {
        pageNumber,
        page: { ...aPage(pageNumber), content_markdown: markdown },
      });
    }
    const send = vi.spyOn(ddb.documentClient, 'send');
    try {
      // Act
      const pages = await requests.listPages(requestId);
      // Assert
      expect(pages.map((p) => p.pageNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const queries = send.mock.calls.filter(([command]) => command instanceof QueryCommand);
      expect(queries.length).toBeGreaterThan(1);
    } finally {
      send.mockRestore();
    }
  });

  it('stores an API key under KEY#<sha256> / KEY', async () => {
    // Arrange
    const keys = new DynamoDbApiKeyStore(ddb.documentClient, TABLE);
    const record = anApiKeyRecord();
    // Act
    await keys.put(record);
    // Assert
    const { Item: item } = await ddb.documentClient.send(
      new GetCommand({ TableName: TABLE, Key: { pk: `KEY#${record.keyHash}`, sk: 'KEY' } }),
    );
    expect(item).toMatchObject({ tenant: 'tenant-a', plan: 'pro' });
  });

  it('stores a provider breaker under PROVIDER#<id> / BREAKER', async () => {
    // Arrange
    const breakers = new DynamoDbBreakerStore(ddb.documentClient, TABLE);
    const id = aProviderId();
    // Act
    await breakers.update(id, () => aBreakerRecord(id));
    // Assert
    const { Item: item } = await ddb.documentClient.send(
      new GetCommand({ TableName: TABLE, Key: { pk: `PROVIDER#${id}`, sk: 'BREAKER' } }),
    );
    expect(item).toMatchObject({ providerId: id, state: 'OPEN', version: 1 });
  });
});

describe('startEmbeddedDynamo', () => {
  it('keeps a request record on disk across a stop and a restart', async () => {
    // Arrange
    const dir = await mkdtemp(join(tmpdir(), 'embedded-dynamo-'));
    const path = join(dir, 'dynamodb');
    const record = aRequestRecord({ status: 'completed', resultKey: 'results/r.json' });
    try {
      const first = await startEmbeddedDynamo({ path });
      await first.ensureTable(serviceTable(TABLE));
      const requests = new DynamoDbRequestStore(first.documentClient, TABLE);
      await requests.create(record);
      await requests.putPage(record.id, { pageNumber: 1, pageKey: 'pages/1.json' });
      await first.stop();
      // Act
      const second = await startEmbeddedDynamo({ path });
      try {
        await second.ensureTable(serviceTable(TABLE));
        const reopened = new DynamoDbRequestStore(second.documentClient, TABLE);
        // Assert
        expect(await reopened.get(record.id)).toStrictEqual(record);
        expect(await reopened.listPages(record.id)).toEqual([
          { pageNumber: 1, pageKey: 'pages/1.json' },
        ]);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('ensures an existing table without error', async () => {
    // Arrange
    const definition = serviceTable(TABLE);
    // Act
    const ensuring = ddb.ensureTable(definition);
    // Assert
    await expect(ensuring).resolves.toBeUndefined();
  });

  it('serves the same table over TCP at its endpoint as to its in-process clients', async () => {
    // Arrange: the stores' client talks to dynalite in-process; a second client uses the socket
    const requests = new DynamoDbRequestStore(ddb.documentClient, TABLE);
    const record = aRequestRecord({ id: 'req_over_tcp' });
    await requests.create(record);
    const overTcp = createDocumentClient(
      new DynamoDBClient({
        endpoint: ddb.endpoint,
        region: 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    );
    try {
      // Act
      const { Item: item } = await overTcp.send(
        new GetCommand({ TableName: TABLE, Key: { pk: 'REQ#req_over_tcp', sk: 'META' } }),
      );
      // Assert
      expect(item?.id).toBe('req_over_tcp');
    } finally {
      overTcp.destroy();
    }
  });

  it('listens on 127.0.0.1 and stops twice without error', async () => {
    // Arrange
    const instance = await startEmbeddedDynamo({ port: 0 });
    // Act
    await instance.stop();
    const again = instance.stop();
    // Assert
    expect(instance.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(again).resolves.toBeUndefined();
  });
});

describeUsageStoreContract(
  'DynamoDbUsageStore on dynalite',
  () => new DynamoDbUsageStore(ddb.documentClient, TABLE),
);

describe('DynamoDbUsageStore item layout', () => {
  it('counts requests under KEY#<sha256> / RATE#<epoch minute> with a TTL in epoch seconds', async () => {
    // Arrange
    const usage = new DynamoDbUsageStore(ddb.documentClient, TABLE);
    const keyHash = aKeyHash();
    // Act
    await usage.consumeRequest(keyHash, WINDOW, 10, EXPIRES);
    // Assert
    const { Item: item } = await ddb.documentClient.send(
      new GetCommand({
        TableName: TABLE,
        Key: { pk: `KEY#${keyHash}`, sk: `RATE#${WINDOW.getTime() / 60_000}` },
      }),
    );
    expect(item).toMatchObject({ count: 1, expiresAt: EXPIRES.getTime() / 1000 });
  });

  it('counts pages under TENANT#<tenant> / PAGES#<day> and marks refunds under REFUND#<id>', async () => {
    // Arrange
    const usage = new DynamoDbUsageStore(ddb.documentClient, TABLE);
    const tenant = aTenant();
    // Act
    await usage.reservePages(tenant, DAY, 7, 25, EXPIRES);
    await usage.refundPages(tenant, DAY, 2, 'req_1#2026-11-21T10:15:00.000Z', EXPIRES);
    // Assert
    const { Items: items } = await ddb.documentClient.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `TENANT#${tenant}` },
      }),
    );
    expect(items).toEqual([
      {
        pk: `TENANT#${tenant}`,
        sk: `PAGES#${DAY}`,
        used: 5,
        expiresAt: EXPIRES.getTime() / 1000,
      },
      {
        pk: `TENANT#${tenant}`,
        sk: 'REFUND#req_1#2026-11-21T10:15:00.000Z',
        day: DAY,
        pages: 2,
        expiresAt: EXPIRES.getTime() / 1000,
      },
    ]);
  });
});
