import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbWebhookSecretStore } from '../../../functions/adapters/aws/dynamodb-webhook-secrets.js';
import { serviceTable } from '../../../functions/adapters/aws/service-table.js';
import { newWebhookSecret } from '../../../functions/adapters/http/webhook-signer.js';
import {
  startEmbeddedDynamo,
  type EmbeddedDynamo,
} from '../../../functions/adapters/local/embedded-dynamo.js';

/**
 * Webhook signing secrets live in partitions of their own (`WHSEC#<tenant>`), which the stack
 * denies to every role but the signer's and the shower's; a secret an earlier version kept in
 * the tenant's partition (`TENANT#<tenant>`, readable by every role) is moved on first read.
 */

const TABLE = 'webhook-secrets';
let ddb: EmbeddedDynamo;

beforeAll(async () => {
  ddb = await startEmbeddedDynamo();
  await ddb.ensureTable(serviceTable(TABLE));
});
afterAll(() => ddb.stop());

const item = async (pk: string) =>
  (
    await ddb.documentClient.send(
      new GetCommand({ TableName: TABLE, Key: { pk, sk: 'WEBHOOK_SECRET' } }),
    )
  ).Item;

describe('DynamoDbWebhookSecretStore on dynalite', () => {
  it("stores a tenant's secret under WHSEC#<tenant>, never in the tenant's partition", async () => {
    // Arrange
    const store = new DynamoDbWebhookSecretStore(ddb.documentClient, TABLE, newWebhookSecret);
    // Act
    const secret = await store.getOrCreate('acme');
    // Assert
    expect((await item('WHSEC#acme'))?.secret).toBe(secret);
    expect(await item('TENANT#acme')).toBeUndefined();
  });

  it('moves a secret kept in the tenant partition to its own, keeping its value', async () => {
    // Arrange: the item as earlier versions wrote it.
    const legacy = newWebhookSecret();
    await ddb.documentClient.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          pk: 'TENANT#old-co',
          sk: 'WEBHOOK_SECRET',
          secret: legacy,
          createdAt: '2025-01-01T00:00:00.000Z',
        },
      }),
    );
    const store = new DynamoDbWebhookSecretStore(ddb.documentClient, TABLE, newWebhookSecret);
    // Act
    const read = await store.get('old-co');
    const again = await store.getOrCreate('old-co');
    // Assert
    expect([read, again]).toEqual([legacy, legacy]);
    expect(await item('WHSEC#old-co')).toMatchObject({
      secret: legacy,
      createdAt: '2025-01-01T00:00:00.000Z',
    });
    expect(await item('TENANT#old-co')).toBeUndefined();
  });
});
