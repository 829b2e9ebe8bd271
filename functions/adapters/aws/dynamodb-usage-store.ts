import {
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../core/domain/errors.js';
import type { UsageStore } from '../../core/ports/usage-store.js';
import {
  apiKeyPk,
  isConditionalCheckFailed,
  pageRefundSk,
  pagesDaySk,
  rateWindowSk,
  tenantPk,
  type Item,
} from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './service-table.js';

/** Attribute of a request window's count. */
const COUNT = 'count';
/** Attribute of a day's page count. */
const USED = 'used';

/**
 * Rounds of a refund that would take a day's count below zero (read, then set to zero if
 * unchanged); each lost round means another writer changed the count in between.
 */
const FLOOR_ATTEMPTS = 8;

/**
 * Usage counters in the service table, each one item updated with a single conditional write:
 * - `KEY#<sha256>` / `RATE#<epoch minute>`: `count` of the key's requests in that minute;
 * - `TENANT#<tenant>` / `PAGES#<yyyy-mm-dd>`: `used` pages of the tenant's UTC day;
 * - `TENANT#<tenant>` / `REFUND#<refund id>`: the marker that a refund happened, created with
 *   `attribute_not_exists` before the count is lowered, so a refund happens at most once.
 *
 * Every item carries `expiresAt` (epoch seconds) for DynamoDB's TTL sweeper; dynalite never
 * expires items, which only costs space locally.
 */
export class DynamoDbUsageStore implements UsageStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;

  /**
   * @param client a document client (see `createDocumentClient`).
   * @param tableName the service table (see `serviceTable`).
   */
  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.#client = client;
    this.#tableName = tableName;
  }

  async consumeRequest(
    keyHash: string,
    windowStart: Date,
    limit: number,
    expiresAt: Date,
  ): Promise<{ allowed: boolean; count: number }> {
    const key = {
      [PARTITION_KEY]: apiKeyPk(keyHash),
      [SORT_KEY]: rateWindowSk(Math.floor(windowStart.getTime() / 60_000)),
    };
    try {
      const { Attributes: attributes } = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: key,
          UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
          ExpressionAttributeNames: { '#count': COUNT, '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': limit,
            ':ttl': epochSeconds(expiresAt),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { allowed: true, count: Number(attributes?.[COUNT] ?? 1) };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      return { allowed: false, count: (await this.#read(key, COUNT)) ?? limit };
    }
  }

  async reservePages(
    tenant: string,
    day: string,
    pages: number,
    limit: number | null,
    expiresAt: Date,
  ): Promise<{ allowed: boolean; used: number }> {
    checkPages(pages);
    const key = dayKey(tenant, day);
    // A document larger than the whole limit never fits: nothing to write.
    if (limit !== null && pages > limit) {
      return { allowed: false, used: (await this.#read(key, USED)) ?? 0 };
    }
    try {
      const { Attributes: attributes } = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: key,
          UpdateExpression: 'ADD #used :pages SET #ttl = :ttl',
          ...(limit === null
            ? {}
            : { ConditionExpression: 'attribute_not_exists(#used) OR #used <= :room' }),
          ExpressionAttributeNames: { '#used': USED, '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':pages': pages,
            ':ttl': epochSeconds(expiresAt),
            ...(limit === null ? {} : { ':room': limit - pages }),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { allowed: true, used: Number(attributes?.[USED] ?? pages) };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      return { allowed: false, used: (await this.#read(key, USED)) ?? 0 };
    }
  }

  async refundPages(
    tenant: string,
    day: string,
    pages: number,
    refundId: string,
    expiresAt: Date,
  ): Promise<boolean> {
    checkPages(pages);
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: {
            [PARTITION_KEY]: tenantPk(tenant),
            [SORT_KEY]: pageRefundSk(refundId),
            day,
            pages,
            [TTL_ATTRIBUTE]: epochSeconds(expiresAt),
          },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      return false;
    }
    await this.#lower(dayKey(tenant, day), pages);
    return true;
  }

  async pagesUsed(tenant: string, day: string): Promise<number> {
    return (await this.#read(dayKey(tenant, day), USED)) ?? 0;
  }

  /** Lowers the day's count by `pages`, or to zero when it holds fewer. */
  async #lower(key: Item, pages: number): Promise<void> {
    for (let attempt = 1; attempt <= FLOOR_ATTEMPTS; attempt++) {
      try {
        await this.#client.send(
          new UpdateCommand({
            TableName: this.#tableName,
            Key: key,
            UpdateExpression: 'ADD #used :minus',
            ConditionExpression: '#used >= :pages',
            ExpressionAttributeNames: { '#used': USED },
            ExpressionAttributeValues: { ':minus': -pages, ':pages': pages },
          }),
        );
        return;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
      const used = await this.#read(key, USED);
      // Nothing counted that day (or the count expired): nothing to give back.
      if (used === undefined) return;
      if (used >= pages) continue;
      try {
        await this.#client.send(
          new UpdateCommand({
            TableName: this.#tableName,
            Key: key,
            UpdateExpression: 'SET #used = :zero',
            ConditionExpression: '#used = :seen',
            ExpressionAttributeNames: { '#used': USED },
            ExpressionAttributeValues: { ':zero': 0, ':seen': used },
          }),
        );
        return;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    }
    throw new ConflictError(
      `the page count ${String(key[SORT_KEY])} kept changing under ${FLOOR_ATTEMPTS} refund attempts`,
    );
  }

  /** A numeric attribute of an item, or undefined when the item or attribute is absent. */
  async #read(key: Item, attribute: string): Promise<number | undefined> {
    const { Item: item } = await this.#client.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: key,
        ConsistentRead: true,
        ProjectionExpression: '#a',
        ExpressionAttributeNames: { '#a': attribute },
      }),
    );
    const value: unknown = item?.[attribute];
    return value === undefined ? undefined : Number(value);
  }
}

function dayKey(tenant: string, day: string): Item {
  return { [PARTITION_KEY]: tenantPk(tenant), [SORT_KEY]: pagesDaySk(day) };
}

/** DynamoDB's TTL attribute: whole seconds since the epoch. */
function epochSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}

function checkPages(pages: number): void {
  if (!Number.isSafeInteger(pages) || pages < 1) {
    throw new RangeError(`pages must be a positive integer, got ${pages}`);
  }
}
