import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { DynamoDbApiKeyStore } from '../../../../functions/adapters/aws/dynamodb-api-key-store.js';
import { ConflictError } from '../../../../functions/core/domain/errors.js';
import { anApiKeyRecord } from '../../../contract/api-key-store.contract.js';

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

const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'failed', $metadata: {} });

describe('DynamoDbApiKeyStore', () => {
  it('claims the id in the directory first and turns a failed condition into ConflictError', async () => {
    // Arrange
    const failure = conditionFailed();
    const { client, sent } = stubClient(() => {
      throw failure;
    });
    const record = anApiKeyRecord();
    // Act
    const putting = new DynamoDbApiKeyStore(client, TABLE).put(record);
    // Assert
    await expect(putting).rejects.toBeInstanceOf(ConflictError);
    await expect(putting).rejects.toMatchObject({ cause: failure });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.input).toMatchObject({
      Item: { pk: 'APIKEYS', sk: `KEY#${record.keyId}`, keyHash: record.keyHash },
      ConditionExpression: 'attribute_not_exists(#pk) OR #keyHash = :keyHash',
      ExpressionAttributeValues: { ':keyHash': record.keyHash },
    });
  });

  it('revokes with a conditional update that keeps the first revocation time', async () => {
    // Arrange
    const record = anApiKeyRecord();
    const { client, sent } = stubClient((command) => {
      if (command.constructor === GetCommand) return { Item: { ...record } };
      if (command.constructor === UpdateCommand) {
        return { Attributes: { ...record, revokedAt: '2026-01-01T00:00:00.000Z' } };
      }
      return {};
    });
    // Act
    const revoked = await new DynamoDbApiKeyStore(client, TABLE).revoke(
      record.keyId,
      new Date('2026-01-01T00:00:00.000Z'),
    );
    // Assert
    expect(revoked?.revokedAt).toBe('2026-01-01T00:00:00.000Z');
    expect(ofType(sent, UpdateCommand)[0]?.input).toMatchObject({
      Key: { pk: `KEY#${record.keyHash}`, sk: 'KEY' },
      UpdateExpression: 'SET #revokedAt = if_not_exists(#revokedAt, :at), #keyId = :keyId',
      ConditionExpression: 'attribute_exists(#pk)',
    });
  });

  it('still answers for a key stored before ids existed when adding its entries fails', async () => {
    // Arrange
    const { keyId, ...legacy } = anApiKeyRecord();
    const { client, sent } = stubClient((command) => {
      if (command.constructor === GetCommand) return { Item: { pk: 'x', sk: 'KEY', ...legacy } };
      throw Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' });
    });
    // Act
    const read = await new DynamoDbApiKeyStore(client, TABLE).get(legacy.keyHash);
    // Assert
    expect(read).toStrictEqual({ ...legacy, keyId });
    expect(ofType(sent, PutCommand)).toHaveLength(1);
  });

  it('rethrows a failure of the revoking update other than a failed condition', async () => {
    // Arrange
    const record = anApiKeyRecord();
    const { client } = stubClient((command) => {
      if (command.constructor === GetCommand) return { Item: { ...record } };
      throw new Error('throttled');
    });
    // Act
    const revoking = new DynamoDbApiKeyStore(client, TABLE).revoke(record.keyId, new Date());
    // Assert
    await expect(revoking).rejects.toThrow('throttled');
  });
});
