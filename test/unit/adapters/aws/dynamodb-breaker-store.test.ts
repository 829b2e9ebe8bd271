import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbBreakerStore } from '../../../../functions/adapters/aws/dynamodb-breaker-store.js';
import { ConflictError } from '../../../../functions/core/domain/errors.js';
import { aBreakerRecord } from '../../../contract/breaker-store.contract.js';

const TABLE = 'svc';

/** A command as the stub sees it: its class and input. */
interface SentCommand {
  constructor: unknown;
  input: Record<string, unknown>;
}

/** A document client whose `send` is answered by `answer`; records every command. */
function stubClient(answer: (command: SentCommand) => unknown) {
  const sent: SentCommand[] = [];
  const send = vi.fn((command: SentCommand) => {
    sent.push(command);
    return Promise.resolve().then(() => answer(command));
  });
  return { client: { send } as unknown as DynamoDBDocumentClient, sent };
}

const ofType = (sent: SentCommand[], type: unknown) => sent.filter((c) => c.constructor === type);

const itemOf = (providerId: string) => ({
  ...aBreakerRecord(providerId, { version: 3 }),
  pk: `PROVIDER#${providerId}`,
  sk: 'BREAKER',
});

afterEach(() => {
  vi.useRealTimers();
});

describe('DynamoDbBreakerStore', () => {
  it('writes on the version it read, and creates only when absent', async () => {
    // Arrange
    const { client, sent } = stubClient((command) =>
      command.constructor === GetCommand ? { Item: itemOf('a') } : {},
    );
    const { client: empty, sent: sentToEmpty } = stubClient(() => ({}));
    // Act
    await new DynamoDbBreakerStore(client, TABLE).update('a', (current) => current ?? null);
    await new DynamoDbBreakerStore(empty, TABLE).update('b', () => aBreakerRecord('b'));
    // Assert
    expect(ofType(sent, PutCommand)[0]?.input).toMatchObject({
      TableName: TABLE,
      Item: { pk: 'PROVIDER#a', sk: 'BREAKER', version: 4 },
      ConditionExpression: '#version = :version',
      ExpressionAttributeValues: { ':version': 3 },
    });
    expect(ofType(sentToEmpty, PutCommand)[0]?.input).toMatchObject({
      Item: { pk: 'PROVIDER#b', sk: 'BREAKER', version: 1 },
      ConditionExpression: 'attribute_not_exists(#pk)',
    });
  });

  it('gives up with ConflictError after maxAttempts lost writes', async () => {
    // Arrange
    vi.useFakeTimers();
    const { client, sent } = stubClient((command) => {
      if (command.constructor === GetCommand) return { Item: itemOf('a') };
      throw new ConditionalCheckFailedException({ message: 'failed', $metadata: {} });
    });
    const store = new DynamoDbBreakerStore(client, TABLE, { maxAttempts: 3 });
    // Act
    const updating = store.update('a', (current) => current ?? null);
    const outcome = expect(updating).rejects.toBeInstanceOf(ConflictError);
    await vi.runAllTimersAsync();
    // Assert
    await outcome;
    expect(ofType(sent, GetCommand)).toHaveLength(3);
    expect(ofType(sent, PutCommand)).toHaveLength(3);
  });

  it('passes other write errors through without retrying', async () => {
    // Arrange
    const failure = new Error('ProvisionedThroughputExceeded');
    const { client, sent } = stubClient((command) => {
      if (command.constructor === GetCommand) return {};
      throw failure;
    });
    // Act
    const updating = new DynamoDbBreakerStore(client, TABLE).update('a', () => aBreakerRecord('a'));
    // Assert
    await expect(updating).rejects.toBe(failure);
    expect(ofType(sent, PutCommand)).toHaveLength(1);
  });

  it('reads many breakers in batches of 100, naming each key once', async () => {
    // Arrange
    const ids = Array.from({ length: 150 }, (_, i) => `p${i}`);
    const { client, sent } = stubClient((command) => {
      const request = command.input.RequestItems as Record<string, { Keys: { pk: string }[] }>;
      const keys = request[TABLE]?.Keys ?? [];
      return {
        Responses: { [TABLE]: keys.map((key) => itemOf(key.pk.slice('PROVIDER#'.length))) },
      };
    });
    // Act
    const records = await new DynamoDbBreakerStore(client, TABLE).getMany([...ids, 'p0']);
    // Assert
    const batches = ofType(sent, BatchGetCommand).map(
      (c) => (c.input.RequestItems as Record<string, { Keys: unknown[] }>)[TABLE]?.Keys.length,
    );
    expect(batches).toEqual([100, 50]);
    expect(records.size).toBe(150);
    expect(records.get('p149')).toStrictEqual(aBreakerRecord('p149', { version: 3 }));
  });

  it('reads an empty list without calling DynamoDB', async () => {
    // Arrange
    const { client, sent } = stubClient(() => ({}));
    // Act
    const records = await new DynamoDbBreakerStore(client, TABLE).getMany([]);
    // Assert
    expect(records.size).toBe(0);
    expect(sent).toHaveLength(0);
  });

  it('retries the keys DynamoDB leaves unprocessed', async () => {
    // Arrange
    vi.useFakeTimers();
    let call = 0;
    const { client, sent } = stubClient(() => {
      call++;
      if (call === 1) {
        return {
          Responses: { [TABLE]: [itemOf('a')] },
          UnprocessedKeys: { [TABLE]: { Keys: [{ pk: 'PROVIDER#b', sk: 'BREAKER' }] } },
        };
      }
      return { Responses: { [TABLE]: [itemOf('b')] }, UnprocessedKeys: {} };
    });
    // Act
    const reading = new DynamoDbBreakerStore(client, TABLE).getMany(['a', 'b']);
    await vi.runAllTimersAsync();
    const records = await reading;
    // Assert
    expect([...records.keys()].sort()).toEqual(['a', 'b']);
    const retried = ofType(sent, BatchGetCommand)[1]?.input.RequestItems as Record<
      string,
      { Keys: unknown[] }
    >;
    expect(retried[TABLE]?.Keys).toEqual([{ pk: 'PROVIDER#b', sk: 'BREAKER' }]);
  });

  it('falls back to single reads when keys stay unprocessed', async () => {
    // Arrange
    vi.useFakeTimers();
    const { client, sent } = stubClient((command) => {
      const key = command.input.Key as { pk: string } | undefined;
      if (key) return key.pk === 'PROVIDER#a' ? { Item: itemOf('a') } : {};
      return {
        UnprocessedKeys: {
          [TABLE]: {
            Keys: [
              { pk: 'PROVIDER#a', sk: 'BREAKER' },
              { pk: 'PROVIDER#b', sk: 'BREAKER' },
            ],
          },
        },
      };
    });
    // Act
    const reading = new DynamoDbBreakerStore(client, TABLE).getMany(['a', 'b']);
    await vi.runAllTimersAsync();
    const records = await reading;
    // Assert
    expect(ofType(sent, BatchGetCommand)).toHaveLength(5);
    expect(ofType(sent, GetCommand)).toHaveLength(2);
    expect([...records.keys()]).toEqual(['a']);
  });
});
