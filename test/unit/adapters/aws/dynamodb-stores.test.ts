import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbEventLog } from '../../../../functions/adapters/aws/dynamodb-event-log.js';
import { DynamoDbRequestStore } from '../../../../functions/adapters/aws/dynamodb-request-store.js';
import { ConflictError, NotFoundError } from '../../../../functions/core/domain/errors.js';
import { aRequestRecord } from '../../../contract/request-store.contract.js';

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

const conditionFailed = (item?: Record<string, unknown>) =>
  Object.assign(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }), {
    Item: item,
  });

const ofType = (sent: SentCommand[], type: unknown) => sent.filter((c) => c.constructor === type);

afterEach(() => {
  vi.useRealTimers();
});

describe('DynamoDbRequestStore', () => {
  it('creates with attribute_not_exists and turns a failed condition into ConflictError', async () => {
    // Arrange
    const failure = conditionFailed();
    const { client, sent } = stubClient(() => {
      throw failure;
    });
    const store = new DynamoDbRequestStore(client, TABLE);
    // Act
    const creating = store.create(aRequestRecord({ id: 'r-1' }));
    // Assert
    await expect(creating).rejects.toBeInstanceOf(ConflictError);
    await expect(creating).rejects.toMatchObject({ cause: failure });
    expect(sent[0]?.input).toMatchObject({
      TableName: TABLE,
      Item: { pk: 'REQ#r-1', sk: 'META', id: 'r-1', status: 'queued' },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'pk' },
    });
  });

  it('builds the update from the patch keys with a name placeholder for every attribute', async () => {
    // Arrange
    const record = aRequestRecord({ id: 'r-1', status: 'processing' });
    const { client, sent } = stubClient(() => ({
      Attributes: { ...record, status: 'cancelled', pk: 'REQ#r-1', sk: 'META' },
    }));
    const store = new DynamoDbRequestStore(client, TABLE);
    // Act
    const updated = await store.update('r-1', { status: 'cancelled', resultKey: undefined }, [
      'queued',
      'processing',
    ]);
    // Assert
    expect(updated).toStrictEqual({ ...record, status: 'cancelled' });
    expect(sent[0]?.constructor).toBe(UpdateCommand);
    expect(sent[0]?.input).toEqual({
      TableName: TABLE,
      Key: { pk: 'REQ#r-1', sk: 'META' },
      // The record's TTL moves to the retention after this change.
      UpdateExpression: 'SET #n0 = :v0, #n2 = :ttl REMOVE #n1',
      ConditionExpression: 'attribute_exists(#n3) AND #n0 IN (:s0, :s1)',
      ExpressionAttributeNames: {
        '#n0': 'status',
        '#n1': 'resultKey',
        '#n2': 'expiresAt',
        '#n3': 'pk',
      },
      ExpressionAttributeValues: {
        ':v0': 'cancelled',
        ':ttl': expect.any(Number) as unknown,
        ':s0': 'queued',
        ':s1': 'processing',
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('writes the charges made while one is in flight as one update, each added by one caller', async () => {
    // Arrange: page 3 was charged before; the second write adds the pages queued behind the first.
    const writes: Set<number>[] = [];
    const { client, sent } = stubClient((command) => {
      const pages = (command.input.ExpressionAttributeValues as { ':pages': Set<number> })[
        ':pages'
      ];
      writes.push(pages);
      return { Attributes: { chargedPages: new Set(writes.length === 1 ? [3] : [3, 1]) } };
    });
    const store = new DynamoDbRequestStore(client, TABLE);
    const IN_FLIGHT = ['queued', 'processing'] as const;
    // Act
    const added = await Promise.all(
      [1, 2, 3, 2, 4].map((n) => store.chargePage('r-1', n, IN_FLIGHT)),
    );
    // Assert
    expect(added).toEqual([true, true, false, false, true]);
    expect(writes).toEqual([new Set([1]), new Set([2, 3, 4])]);
    expect(ofType(sent, UpdateCommand)).toHaveLength(2);
    expect(sent[1]?.input).toEqual({
      TableName: TABLE,
      Key: { pk: 'REQ#r-1', sk: 'META' },
      UpdateExpression: 'ADD #charged :pages',
      ConditionExpression: 'attribute_exists(#pk) AND #status IN (:s0, :s1)',
      ExpressionAttributeNames: { '#pk': 'pk', '#status': 'status', '#charged': 'chargedPages' },
      ExpressionAttributeValues: {
        ':s0': 'queued',
        ':s1': 'processing',
        ':pages': new Set([2, 3, 4]),
      },
      // Only the charged pages come back, not the whole record.
      ReturnValues: 'UPDATED_OLD',
    });
  });

  it('rejects every charge of a write whose status condition fails with ConflictError', async () => {
    // Arrange
    const record = aRequestRecord({ id: 'r-1', status: 'cancelled' });
    const { client } = stubClient((command) => {
      if (command.constructor === GetCommand) return { Item: record };
      throw conditionFailed();
    });
    const store = new DynamoDbRequestStore(client, TABLE);
    // Act
    const charges = [1, 2, 3].map((n) => store.chargePage('r-1', n, ['processing']));
    // Assert
    for (const charge of charges) await expect(charge).rejects.toBeInstanceOf(ConflictError);
  });

  it('never patches the id or the tenant', async () => {
    // Arrange
    const record = aRequestRecord({ id: 'r-1' });
    const { client, sent } = stubClient(() => ({ Attributes: record }));
    const store = new DynamoDbRequestStore(client, TABLE);
    const patch = { tenant: 'tenant-b', id: 'r-2', status: 'failed' } as Parameters<
      DynamoDbRequestStore['update']
    >[1];
    // Act
    await store.update('r-1', patch);
    // Assert
    expect(sent[0]?.input.ExpressionAttributeNames).toEqual({
      '#n0': 'status',
      '#n1': 'expiresAt',
      '#n2': 'pk',
    });
  });

  it('throws ConflictError from the old item DynamoDB returns, without reading again', async () => {
    // Arrange
    const failure = conditionFailed({ pk: { S: 'REQ#r-1' }, status: { S: 'completed' } });
    const { client, sent } = stubClient(() => {
      throw failure;
    });
    const store = new DynamoDbRequestStore(client, TABLE);
    // Act
    const updating = store.update('r-1', { status: 'cancelled' }, ['processing']);
    // Assert
    await expect(updating).rejects.toBeInstanceOf(ConflictError);
    await expect(updating).rejects.toMatchObject({ cause: failure });
    expect(ofType(sent, GetCommand)).toHaveLength(0);
  });

  it('throws NotFoundError when the failed condition is explained by a missing record', async () => {
    // Arrange
    const failure = conditionFailed();
    const { client, sent } = stubClient((command) => {
      if (command.constructor === GetCommand) return {};
      throw failure;
    });
    const store = new DynamoDbRequestStore(client, TABLE);
    // Act
    const updating = store.update('r-1', { status: 'cancelled' }, ['processing']);
    // Assert
    await expect(updating).rejects.toBeInstanceOf(NotFoundError);
    await expect(updating).rejects.toMatchObject({ cause: failure });
    expect(ofType(sent, GetCommand)[0]?.input).toMatchObject({ ConsistentRead: true });
  });

  it('rethrows errors other than a failed condition unchanged', async () => {
    // Arrange
    const throttled = Object.assign(new Error('slow down'), {
      name: 'ProvisionedThroughputExceededException',
    });
    const { client } = stubClient(() => {
      throw throttled;
    });
    const store = new DynamoDbRequestStore(client, TABLE);
    // Act
    const updating = store.update('r-1', { status: 'failed' });
    // Assert
    await expect(updating).rejects.toBe(throttled);
  });

  it('lists pages across query pages by following LastEvaluatedKey', async () => {
    // Arrange
    const { client, sent } = stubClient((command) =>
      command.input.ExclusiveStartKey
        ? { Items: [{ pk: 'REQ#r-1', sk: 'PAGE#0001', pageNumber: 1, pageKey: 'a' }] }
        : {
            Items: [{ pk: 'REQ#r-1', sk: 'PAGE#0002', pageNumber: 2, pageKey: 'b' }],
            LastEvaluatedKey: { pk: 'REQ#r-1', sk: 'PAGE#0002' },
          },
    );
    const store = new DynamoDbRequestStore(client, TABLE);
    // Act
    const pages = await store.listPages('r-1');
    // Assert
    expect(pages).toEqual([
      { pageNumber: 1, pageKey: 'a' },
      { pageNumber: 2, pageKey: 'b' },
    ]);
    expect(ofType(sent, QueryCommand)).toHaveLength(2);
    expect(sent[1]?.input.ExclusiveStartKey).toEqual({ pk: 'REQ#r-1', sk: 'PAGE#0002' });
  });

  it('deletes pages in batches of 25 and retries unprocessed items', async () => {
    // Arrange
    const keys = Array.from({ length: 30 }, (_, i) => ({
      pk: 'REQ#r-1',
      sk: `PAGE#${String(i + 1).padStart(4, '0')}`,
    }));
    let batches = 0;
    const { client, sent } = stubClient((command) => {
      if (command.constructor === QueryCommand) return { Items: keys };
      batches += 1;
      if (batches === 1) {
        return {
          UnprocessedItems: { [TABLE]: [{ DeleteRequest: { Key: keys[0] } }] },
        };
      }
      return { UnprocessedItems: {} };
    });
    const store = new DynamoDbRequestStore(client, TABLE);
    // Act
    await store.deletePages('r-1');
    // Assert
    const writes = ofType(sent, BatchWriteCommand).map(
      (c) => (c.input.RequestItems as Record<string, unknown[]>)[TABLE]!.length,
    );
    expect(writes).toEqual([25, 1, 5]);
    expect(ofType(sent, QueryCommand)[0]?.input).toMatchObject({
      ProjectionExpression: '#pk, #sk',
    });
  });

  it('falls back to single deletes when a batch stays unprocessed', async () => {
    // Arrange
    vi.useFakeTimers();
    const key = { pk: 'REQ#r-1', sk: 'PAGE#0001' };
    const { client, sent } = stubClient((command) => {
      if (command.constructor === QueryCommand) return { Items: [key] };
      if (command.constructor === DeleteCommand) return {};
      return { UnprocessedItems: { [TABLE]: [{ DeleteRequest: { Key: key } }] } };
    });
    const store = new DynamoDbRequestStore(client, TABLE);
    // Act
    const deleting = store.deletePages('r-1');
    await vi.runAllTimersAsync();
    await deleting;
    // Assert
    expect(ofType(sent, BatchWriteCommand)).toHaveLength(8);
    expect(ofType(sent, DeleteCommand)[0]?.input).toEqual({ TableName: TABLE, Key: key });
  });
});

describe('DynamoDbEventLog', () => {
  it('claims the seq after the newest stored event with a conditional put under EVT#<seq>', async () => {
    // Arrange
    const { client, sent } = stubClient((command) =>
      command.constructor === QueryCommand ? { Items: [{ seq: 6 }] } : {},
    );
    const log = new DynamoDbEventLog(client, TABLE, {
      clock: { now: () => new Date('2025-01-02T03:04:05.000Z') },
    });
    // Act
    const seq = await log.append('r-1', { event: 'page.completed', page_number: 3 });
    const next = await log.append('r-1', { event: 'page.completed', page_number: 4 });
    // Assert
    expect([seq, next]).toEqual([7, 8]);
    expect(ofType(sent, QueryCommand)).toHaveLength(1);
    expect(sent[0]?.input).toMatchObject({ ScanIndexForward: false, Limit: 1 });
    expect(sent[1]?.input).toMatchObject({
      Item: {
        pk: 'REQ#r-1',
        sk: 'EVT#0000000007',
        seq: 7,
        at: '2025-01-02T03:04:05.000Z',
        body: { event: 'page.completed', page_number: 3 },
      },
      ConditionExpression: 'attribute_not_exists(#pk)',
    });
  });

  it('takes the following seq when another writer claimed it first', async () => {
    // Arrange
    let newest = 0;
    const { client } = stubClient((command) => {
      if (command.constructor === QueryCommand) return { Items: newest ? [{ seq: newest }] : [] };
      const item = (command.input as { Item: { seq: number } }).Item;
      if (item.seq <= 3) {
        newest = 3;
        throw new ConditionalCheckFailedException({ message: 'taken', $metadata: {} });
      }
      return {};
    });
    const log = new DynamoDbEventLog(client, TABLE);
    // Act
    const seq = await log.append('r-1', { event: 'route.page' });
    // Assert
    expect(seq).toBe(4);
  });

  it('queries event keys from the earliest group that may hold the seq after the given one', async () => {
    // Arrange
    const { client, sent } = stubClient(() => ({ Items: [] }));
    const log = new DynamoDbEventLog(client, TABLE);
    // Act
    await log.list('r-1', 41);
    // Assert: a group of up to 25 events keyed at 18 would hold 42.
    expect(sent[0]?.input).toMatchObject({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': 'REQ#r-1',
        ':from': 'EVT#0000000018',
        ':to': 'EVT#9999999999',
      },
      ConsistentRead: true,
    });
  });

  it('writes the appends made during a write as one group item, and lists them one by one', async () => {
    // Arrange: the first put waits until released; items are kept as written.
    const written: Record<string, unknown>[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { client } = stubClient(async (command) => {
      if (command.constructor === QueryCommand) return { Items: written };
      const item = (command.input as { Item: Record<string, unknown> }).Item;
      if (written.length === 0) await held;
      written.push(item);
      return {};
    });
    const log = new DynamoDbEventLog(client, TABLE);
    log.opened('r-1');
    // Act
    const seqs = Promise.all(['a', 'b', 'c', 'd'].map((event) => log.append('r-1', { event })));
    release();
    // Assert
    expect(await seqs).toEqual([1, 2, 3, 4]);
    expect(written.map((item) => [item.sk, item.lastSeq])).toEqual([
      ['EVT#0000000001', undefined],
      ['EVT#0000000002', 4],
    ]);
    expect((await log.list('r-1', 2)).map((e) => [e.seq, e.body.event])).toEqual([
      [3, 'c'],
      [4, 'd'],
    ]);
  });

  it('with lingerMs, writes appends made within the window after the first as one item', async () => {
    // Arrange
    const written: Record<string, unknown>[] = [];
    const { client } = stubClient((command) => {
      written.push((command.input as { Item: Record<string, unknown> }).Item);
      return {};
    });
    const log = new DynamoDbEventLog(client, TABLE, { lingerMs: 20 });
    log.opened('r-1');
    // Act: two appends now, one 5 ms later, all before the first write.
    const first = [log.append('r-1', { event: 'a' }), log.append('r-1', { event: 'b' })];
    await new Promise((wake) => setTimeout(wake, 5));
    const seqs = await Promise.all([...first, log.append('r-1', { event: 'c' })]);
    // Assert
    expect(seqs).toEqual([1, 2, 3]);
    expect(written.map((item) => [item.sk, item.lastSeq])).toEqual([['EVT#0000000001', 3]]);
  });

  it('numbers on after a group written by another writer', async () => {
    // Arrange: the newest item is a group of events 5 to 9.
    const { client, sent } = stubClient((command) =>
      command.constructor === QueryCommand ? { Items: [{ seq: 5, lastSeq: 9 }] } : {},
    );
    const log = new DynamoDbEventLog(client, TABLE);
    // Act
    const seq = await log.append('r-1', { event: 'x' });
    // Assert
    expect(seq).toBe(10);
    expect(sent[0]?.input).toMatchObject({ ProjectionExpression: 'seq, lastSeq' });
  });
});
