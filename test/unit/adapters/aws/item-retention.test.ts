import {
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { DynamoDbBatchStore } from '../../../../functions/adapters/aws/dynamodb-batch-store.js';
import { DynamoDbEventLog } from '../../../../functions/adapters/aws/dynamodb-event-log.js';
import {
  DEFAULT_RETENTION_DAYS,
  expiryOf,
} from '../../../../functions/adapters/aws/dynamodb-items.js';
import { DynamoDbRequestStore } from '../../../../functions/adapters/aws/dynamodb-request-store.js';
import { DynamoDbResultCache } from '../../../../functions/adapters/aws/dynamodb-result-cache.js';
import type { BatchItem, BatchRecord } from '../../../../functions/core/domain/batch.js';
import { aRequestRecord } from '../../../contract/request-store.contract.js';

/**
 * Every item class that holds document content or history is written with the table's TTL
 * attribute (`expiresAt`, epoch seconds) set to the time of the write plus the retention
 * (`RETENTION_DAYS`), so DynamoDB's TTL and the local sweeper remove it.
 */

const TABLE = 'svc';
const NOW = new Date('2025-03-01T12:00:00.000Z');
const NOW_S = NOW.getTime() / 1000;
const DAY_S = 24 * 60 * 60;
const retention = { days: 3, now: () => NOW };

interface SentCommand {
  constructor: unknown;
  input: Record<string, unknown>;
}

/** A document client whose `send` is answered by `answer`; records every command. */
function stubClient(answer: (command: SentCommand) => unknown = () => ({})) {
  const sent: SentCommand[] = [];
  const send = vi.fn((command: SentCommand) => {
    sent.push(command);
    return Promise.resolve().then(() => answer(command));
  });
  return { client: { send } as unknown as DynamoDBDocumentClient, sent };
}

/** The TTL value an Update sets (`#x = :ttl` with `#x` naming `expiresAt`), or undefined. */
function ttlSetBy(input: Record<string, unknown>): unknown {
  const names = input.ExpressionAttributeNames as Record<string, string>;
  const values = input.ExpressionAttributeValues as Record<string, unknown>;
  const expression = String(input.UpdateExpression);
  const placeholder = Object.entries(names).find(([, name]) => name === 'expiresAt')?.[0];
  if (!placeholder) return undefined;
  const match = new RegExp(`${placeholder} = (:\\w+)`).exec(expression);
  return match?.[1] === undefined ? undefined : values[match[1]];
}

const ofType = (sent: SentCommand[], type: unknown) => sent.filter((c) => c.constructor === type);

const itemOf = (command: SentCommand | undefined) =>
  (command?.input as { Item: Record<string, unknown> } | undefined)?.Item;

describe('expiryOf', () => {
  it('is the time of the write plus the retention, in epoch seconds', () => {
    expect(expiryOf({ days: 0.5, now: () => NOW })).toBe(NOW_S + DAY_S / 2);
  });

  it('defaults to RETENTION_DAYS default of 7 days', () => {
    // Arrange
    vi.useFakeTimers({ now: NOW });
    try {
      // Act
      const expiry = expiryOf(undefined);
      // Assert
      expect(DEFAULT_RETENTION_DAYS).toBe(7);
      expect(expiry).toBe(NOW_S + 7 * DAY_S);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('DynamoDbRequestStore retention', () => {
  it('writes the request record (META) with expiresAt at the retention after its creation', async () => {
    // Arrange
    const { client, sent } = stubClient();
    const store = new DynamoDbRequestStore(client, TABLE, { retention });
    // Act
    await store.create(aRequestRecord({ id: 'r-1' }));
    // Assert
    expect(itemOf(sent[0])).toMatchObject({
      pk: 'REQ#r-1',
      sk: 'META',
      expiresAt: NOW_S + 3 * DAY_S,
    });
  });

  it('moves the record expiresAt to the retention after each update and each run claimed', async () => {
    // Arrange
    const record = aRequestRecord({ id: 'r-1', status: 'processing' });
    const { client, sent } = stubClient(() => ({
      Attributes: { ...record, pk: 'REQ#r-1', sk: 'META', expiresAt: 1 },
    }));
    const store = new DynamoDbRequestStore(client, TABLE, { retention });
    // Act
    const updated = await store.update('r-1', { status: 'completed' }, ['processing']);
    await store.claimRun('r-1', 2, {});
    // Assert
    expect(sent.map((c) => c.constructor)).toEqual([UpdateCommand, UpdateCommand]);
    expect(ttlSetBy(sent[0]?.input ?? {})).toBe(NOW_S + 3 * DAY_S);
    expect(ttlSetBy(sent[1]?.input ?? {})).toBe(NOW_S + 3 * DAY_S);
    expect(updated).not.toHaveProperty('expiresAt');
  });

  it('writes each page checkpoint (PAGE#) with expiresAt at the retention after it', async () => {
    // Arrange
    const { client, sent } = stubClient();
    const store = new DynamoDbRequestStore(client, TABLE, { retention });
    // Act
    await store.putPage('r-1', { pageNumber: 2, status: 'COMPLETED' } as never);
    // Assert
    expect(sent[0]?.constructor).toBe(PutCommand);
    expect(itemOf(sent[0])).toMatchObject({
      pk: 'REQ#r-1',
      sk: 'PAGE#0002',
      expiresAt: NOW_S + 3 * DAY_S,
    });
  });
});

describe('DynamoDbEventLog retention', () => {
  it('writes each event item (EVT#) with expiresAt at the retention after the append', async () => {
    // Arrange
    const { client, sent } = stubClient((command) =>
      command.constructor === QueryCommand ? { Items: [] } : {},
    );
    const log = new DynamoDbEventLog(client, TABLE, {
      clock: { now: () => NOW },
      retentionDays: 3,
    });
    // Act
    await log.append('r-1', { event: 'page.completed', page_number: 1 });
    // Assert
    const [put] = ofType(sent, PutCommand);
    expect(itemOf(put)).toMatchObject({ sk: 'EVT#0000000001', expiresAt: NOW_S + 3 * DAY_S });
  });
});

describe('DynamoDbBatchStore retention', () => {
  const batch = {
    id: 'batch_1',
    tenant: 't',
    status: 'queued',
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
    totals: { queued: 1, in_progress: 0, completed: 0, failed: 0 },
  } as unknown as BatchRecord;
  const item = { index: 1, status: 'queued' } as unknown as BatchItem;

  it('writes the batch (META) and its items (ITEM#) with expiresAt at the retention', async () => {
    // Arrange
    const { client, sent } = stubClient();
    const store = new DynamoDbBatchStore(client, TABLE, { retention });
    // Act
    await store.create(batch, [item]);
    // Assert
    expect(sent.map((c) => [itemOf(c)?.sk, itemOf(c)?.expiresAt])).toEqual([
      ['ITEM#0001', NOW_S + 3 * DAY_S],
      ['META', NOW_S + 3 * DAY_S],
    ]);
  });

  it('moves expiresAt to the retention after every later write of a batch or an item', async () => {
    // Arrange
    const { client, sent } = stubClient(() => ({
      Attributes: { pk: 'BATCH#batch_1', sk: 'META' },
    }));
    const store = new DynamoDbBatchStore(client, TABLE, { retention });
    // Act
    await store.transitionItem('batch_1', 1, { from: 'queued', to: 'in_progress', at: NOW });
    await store.applyMove('batch_1', { id: 'm-1', from: 'queued', to: 'in_progress' }, NOW);
    await store.finish('batch_1', 'completed', NOW);
    await store.update('batch_1', { webhookEventId: 'evt_1' });
    // Assert
    expect(sent).toHaveLength(4);
    for (const command of sent) expect(ttlSetBy(command.input)).toBe(NOW_S + 3 * DAY_S);
  });
});

describe('DynamoDbResultCache retention', () => {
  it('expires an entry at its validUntil, never after the result it points to', async () => {
    // Arrange: Deliver stores the result at `now`, then files the entry valid for the retention.
    const { client, sent } = stubClient();
    const cache = new DynamoDbResultCache(client, TABLE);
    const validUntil = new Date(NOW.getTime() + 3 * DAY_S * 1000).toISOString();
    // Act
    await cache.put(
      { tenant: 't', documentHash: 'a'.repeat(64), variant: 'b'.repeat(16) },
      {
        requestId: 'r-1',
        resultKey: 'results/t/r-1.json',
        pages: 1,
        storedAt: NOW.toISOString(),
        validUntil,
      },
    );
    // Assert: the entry goes no later than a result object written at `now` (S3 rounds its
    // expiry up to the next midnight, the sweeper keeps files younger than the retention).
    expect(itemOf(sent[0])?.expiresAt).toBe(NOW_S + 3 * DAY_S);
  });
});
