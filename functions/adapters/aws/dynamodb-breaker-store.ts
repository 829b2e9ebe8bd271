import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { BreakerRecord } from '../../core/domain/circuit-breaker.js';
import { ConflictError } from '../../core/domain/errors.js';
import type { BreakerChange, BreakerStore } from '../../core/ports/breaker-store.js';
import { fromItem, isConditionalCheckFailed, type Item } from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY } from './service-table.js';

/** Partition key of a provider's items: `PROVIDER#<id>`. */
export const providerPk = (providerId: string): string => `PROVIDER#${providerId}`;

/** Sort key of a provider's circuit breaker. */
export const BREAKER_SK = 'BREAKER';

/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_LIMIT = 100;

/** Attempts at reading a batch's unprocessed keys before falling back to single reads. */
const BATCH_GET_ATTEMPTS = 5;

/**
 * Attempts of one `update` before it gives up with ConflictError.
 *
 * Each lost attempt means another writer's update succeeded after this one read, so with N
 * concurrent updaters none needs more than N attempts: 32 covers any realistic burst on one
 * provider, and a caller that still loses only drops one breaker observation.
 */
const DEFAULT_UPDATE_ATTEMPTS = 32;

/**
 * Circuit breakers in the service table: `PROVIDER#<id>` / `BREAKER`, one item per provider,
 * written with a conditional put on its `version` (optimistic concurrency).
 */
export class DynamoDbBreakerStore implements BreakerStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #maxAttempts: number;

  /**
   * @param client a document client (see `createDocumentClient`).
   * @param tableName the service table (see `serviceTable`).
   * @param options.maxAttempts attempts of one `update` before ConflictError (default 32).
   */
  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    options: { maxAttempts?: number } = {},
  ) {
    this.#client = client;
    this.#tableName = tableName;
    this.#maxAttempts = options.maxAttempts ?? DEFAULT_UPDATE_ATTEMPTS;
  }

  async get(providerId: string): Promise<BreakerRecord | undefined> {
    const { Item: item } = await this.#client.send(
      new GetCommand({ TableName: this.#tableName, Key: keyOf(providerId), ConsistentRead: true }),
    );
    return item && toRecord(item);
  }

  async getMany(providerIds: readonly string[]): Promise<Map<string, BreakerRecord>> {
    // BatchGetItem rejects a request that names the same key twice.
    const ids = [...new Set(providerIds)];
    const records = new Map<string, BreakerRecord>();
    for (let start = 0; start < ids.length; start += BATCH_GET_LIMIT) {
      const items = await this.#getBatch(ids.slice(start, start + BATCH_GET_LIMIT).map(keyOf));
      for (const item of items) {
        const record = toRecord(item);
        records.set(record.providerId, record);
      }
    }
    return records;
  }

  async update(providerId: string, change: BreakerChange): Promise<BreakerRecord | undefined> {
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const current = await this.get(providerId);
      const next = change(current);
      if (next === null) return current;
      const record: BreakerRecord = { ...next, providerId, version: (current?.version ?? 0) + 1 };
      try {
        await this.#client.send(
          new PutCommand({
            TableName: this.#tableName,
            Item: { ...record, ...keyOf(providerId) },
            ...(current
              ? {
                  ConditionExpression: '#version = :version',
                  ExpressionAttributeNames: { '#version': 'version' },
                  ExpressionAttributeValues: { ':version': current.version },
                }
              : {
                  ConditionExpression: 'attribute_not_exists(#pk)',
                  ExpressionAttributeNames: { '#pk': PARTITION_KEY },
                }),
          }),
        );
        return record;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        // Full jitter, so that the losers of one round do not collide again in the next.
        await sleep(Math.random() * Math.min(5 * 2 ** attempt, 100));
      }
    }
    throw new ConflictError(
      `breaker of provider ${providerId} kept changing under ${this.#maxAttempts} update attempts`,
      { details: { providerId, attempts: this.#maxAttempts } },
    );
  }

  /** Reads up to 100 keys, retrying what DynamoDB leaves unprocessed, then reading one by one. */
  async #getBatch(keys: Item[]): Promise<Item[]> {
    const items: Item[] = [];
    let pending = keys;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > BATCH_GET_ATTEMPTS) {
        for (const key of pending) {
          const { Item: item } = await this.#client.send(
            new GetCommand({ TableName: this.#tableName, Key: key, ConsistentRead: true }),
          );
          if (item) items.push(item);
        }
        return items;
      }
      if (attempt > 1) await sleep(Math.min(50 * 2 ** attempt, 1_000));
      const { Responses: responses, UnprocessedKeys: unprocessed } = await this.#client.send(
        new BatchGetCommand({
          RequestItems: { [this.#tableName]: { Keys: pending, ConsistentRead: true } },
        }),
      );
      items.push(...(responses?.[this.#tableName] ?? []));
      pending = unprocessed?.[this.#tableName]?.Keys ?? [];
    }
    return items;
  }
}

function keyOf(providerId: string): Item {
  return { [PARTITION_KEY]: providerPk(providerId), [SORT_KEY]: BREAKER_SK };
}

function toRecord(item: Item): BreakerRecord {
  return fromItem(item) as unknown as BreakerRecord;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
