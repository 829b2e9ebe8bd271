import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { DynamoDbResultCache } from '../../../../functions/adapters/aws/dynamodb-result-cache.js';
import { aCachedResult, aCacheKey, NOW } from '../../../contract/result-cache.contract.js';

const TABLE = 'svc';

/** A document client whose `send` is answered by `answer`; records every command. */
function stubClient(answer: (command: { input: Record<string, unknown> }) => unknown) {
  const sent: { constructor: unknown; input: Record<string, unknown> }[] = [];
  const send = vi.fn((command: { constructor: unknown; input: Record<string, unknown> }) => {
    sent.push(command);
    return Promise.resolve(answer(command));
  });
  return { client: { send } as unknown as DynamoDBDocumentClient, sent };
}

describe('DynamoDbResultCache', () => {
  it('writes one item per key, DOC#<tenant>#<sha256>#<variant> / DOC, with its TTL in epoch seconds', async () => {
    // Arrange
    const { client, sent } = stubClient(() => ({}));
    const key = aCacheKey({ tenant: 'acme' });
    const entry = aCachedResult({ validUntil: '2026-03-02T12:00:00.500Z' });
    // Act
    await new DynamoDbResultCache(client, TABLE).put(key, entry);
    // Assert
    expect(sent[0]?.constructor).toBe(PutCommand);
    expect(sent[0]?.input).toEqual({
      TableName: TABLE,
      Item: {
        pk: `DOC#acme#${key.documentHash}#${key.variant}`,
        sk: 'DOC',
        ...entry,
        expiresAt: Math.ceil(Date.parse('2026-03-02T12:00:00.500Z') / 1000),
      },
    });
  });

  it('reads an expired item the TTL sweeper has not deleted yet as no entry', async () => {
    // Arrange
    const entry = aCachedResult({ validUntil: new Date(NOW.getTime() - 1).toISOString() });
    const { client, sent } = stubClient(() => ({ Item: { pk: 'x', sk: 'DOC', ...entry } }));
    // Act
    const found = await new DynamoDbResultCache(client, TABLE).get(aCacheKey(), NOW);
    // Assert
    expect(sent[0]?.constructor).toBe(GetCommand);
    expect(found).toBeUndefined();
  });
});
