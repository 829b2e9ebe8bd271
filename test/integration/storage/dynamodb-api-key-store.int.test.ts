import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbApiKeyStore } from '../../../functions/adapters/aws/dynamodb-api-key-store.js';
import { serviceTable } from '../../../functions/adapters/aws/service-table.js';
import {
  startEmbeddedDynamo,
  type EmbeddedDynamo,
} from '../../../functions/adapters/local/embedded-dynamo.js';
import { createApiKey } from '../../../functions/core/app/api-keys.js';
import { authenticate } from '../../../functions/core/app/authenticate.js';
import { aTenant, anApiKeyRecord } from '../../contract/api-key-store.contract.js';

/** How DynamoDbApiKeyStore lays keys out in the service table, on dynalite. */

const TABLE = 'docparse-keys';

let ddb: EmbeddedDynamo;

beforeAll(async () => {
  ddb = await startEmbeddedDynamo();
  await ddb.ensureTable(serviceTable(TABLE));
});
afterAll(async () => {
  await ddb.stop();
});

async function item(pk: string, sk: string) {
  const { Item } = await ddb.documentClient.send(
    new GetCommand({ TableName: TABLE, Key: { pk, sk } }),
  );
  return Item;
}

describe('DynamoDbApiKeyStore on dynalite', () => {
  it('writes the record under its hash, its tenant and the directory, never the key', async () => {
    // Arrange
    const store = new DynamoDbApiKeyStore(ddb.documentClient, TABLE);
    const tenant = aTenant();
    // Act
    const { key, record } = await createApiKey(
      store,
      { tenant, plan: 'pro', label: 'ci' },
      new Date(),
    );
    // Assert
    const items = [
      await item(`KEY#${record.keyHash}`, 'KEY'),
      await item(`TENANT#${tenant}`, `KEY#${record.keyId}`),
      await item('APIKEYS', `KEY#${record.keyId}`),
    ];
    for (const stored of items) {
      expect(stored).toMatchObject({ ...record });
      expect(JSON.stringify(stored)).not.toContain(key);
    }
  });

  it('marks all three items when a key is revoked', async () => {
    // Arrange
    const store = new DynamoDbApiKeyStore(ddb.documentClient, TABLE);
    const record = anApiKeyRecord({ tenant: aTenant() });
    await store.put(record);
    // Act
    await store.revoke(record.keyId, new Date('2026-01-01T00:00:00.000Z'));
    // Assert
    for (const [pk, sk] of [
      [`KEY#${record.keyHash}`, 'KEY'],
      [`TENANT#${record.tenant}`, `KEY#${record.keyId}`],
      ['APIKEYS', `KEY#${record.keyId}`],
    ] as const) {
      expect(await item(pk, sk)).toMatchObject({ revokedAt: '2026-01-01T00:00:00.000Z' });
    }
  });

  it('gives a key item written before ids existed its id, and makes it listable and revocable once read', async () => {
    // Arrange
    const store = new DynamoDbApiKeyStore(ddb.documentClient, TABLE);
    const { keyId, ...legacy } = anApiKeyRecord({ tenant: aTenant() });
    await ddb.documentClient.send(
      new PutCommand({
        TableName: TABLE,
        Item: { pk: `KEY#${legacy.keyHash}`, sk: 'KEY', ...legacy },
      }),
    );
    expect(await store.getById(keyId)).toBeUndefined();
    // Act
    const read = await store.get(legacy.keyHash);
    // Assert
    expect(read).toStrictEqual({ ...legacy, keyId });
    expect(await item(`KEY#${legacy.keyHash}`, 'KEY')).toMatchObject({ keyId });
    expect(await store.list(legacy.tenant)).toStrictEqual([{ ...legacy, keyId }]);
    await store.revoke(keyId, new Date('2026-01-01T00:00:00.000Z'));
    expect(await store.get(legacy.keyHash)).toMatchObject({
      revokedAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it('creates no key item when revoking a key whose put was interrupted after the directory entry', async () => {
    // Arrange
    const store = new DynamoDbApiKeyStore(ddb.documentClient, TABLE);
    const record = anApiKeyRecord({ tenant: aTenant() });
    await ddb.documentClient.send(
      new PutCommand({
        TableName: TABLE,
        Item: { pk: 'APIKEYS', sk: `KEY#${record.keyId}`, ...record },
      }),
    );
    // Act
    const revoked = await store.revoke(record.keyId, new Date());
    // Assert
    expect(revoked).toBeUndefined();
    expect(await item(`KEY#${record.keyHash}`, 'KEY')).toBeUndefined();
    expect(await store.getById(record.keyId)).toBeUndefined();
  });

  it('answers a revoked key from its own cache as the only writer', async () => {
    // Arrange
    const store = new DynamoDbApiKeyStore(ddb.documentClient, TABLE, { onlyWriter: true });
    const { key, record } = await createApiKey(
      store,
      { tenant: aTenant(), plan: 'free' },
      new Date(),
    );
    await authenticate(store, key);
    // Act
    await store.revoke(record.keyId, new Date());
    // Assert
    await expect(authenticate(store, key)).rejects.toThrow('API key revoked');
  });

  it('lists a tenant with one query on its partition', async () => {
    // Arrange
    const store = new DynamoDbApiKeyStore(ddb.documentClient, TABLE);
    const tenant = aTenant();
    await store.put(anApiKeyRecord({ tenant }));
    // Act
    const { Items } = await ddb.documentClient.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `TENANT#${tenant}` },
      }),
    );
    // Assert
    expect(Items?.map((i) => String(i.sk))).toEqual([expect.stringMatching(/^KEY#key_/)]);
  });
});
