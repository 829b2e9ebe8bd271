import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { CachedResult, ResultCache, ResultCacheKey } from '../../core/ports/result-cache.js';
import type { Item } from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './service-table.js';

/**
 * Partition key of a result cache entry: `DOC#<tenant>#<sha256>#<variant>` (DESIGN §5). The hash
 * and variant are fixed-length hex, so a `#` in a tenant name cannot make two keys meet.
 */
export const resultCachePk = (key: ResultCacheKey): string =>
  `DOC#${key.tenant}#${key.documentHash}#${key.variant}`;

/** Sort key of a result cache entry. */
export const RESULT_CACHE_SK = 'DOC';

/**
 * The result cache in the service table: one item per key, `DOC#<tenant>#<sha256>#<variant>` /
 * `DOC`, holding the entry and its `validUntil` as the table's TTL attribute (`expiresAt`, epoch
 * seconds), so DynamoDB's TTL (on AWS) and the local retention sweeper (on dynalite) delete it
 * once it has expired. Both sweep late, so reads check `validUntil` themselves.
 */
export class DynamoDbResultCache implements ResultCache {
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

  async get(key: ResultCacheKey, now: Date): Promise<CachedResult | undefined> {
    const { Item: item } = await this.#client.send(
      new GetCommand({ TableName: this.#tableName, Key: keyOf(key) }),
    );
    const entry = item && toEntry(item);
    if (!entry || !(Date.parse(entry.validUntil) > now.getTime())) return undefined;
    return entry;
  }

  async put(key: ResultCacheKey, entry: CachedResult): Promise<void> {
    await this.#client.send(
      new PutCommand({
        TableName: this.#tableName,
        Item: {
          ...keyOf(key),
          requestId: entry.requestId,
          resultKey: entry.resultKey,
          pages: entry.pages,
          storedAt: entry.storedAt,
          validUntil: entry.validUntil,
          [TTL_ATTRIBUTE]: Math.ceil(Date.parse(entry.validUntil) / 1000),
        },
      }),
    );
  }

  async delete(key: ResultCacheKey): Promise<void> {
    await this.#client.send(new DeleteCommand({ TableName: this.#tableName, Key: keyOf(key) }));
  }
}

function keyOf(key: ResultCacheKey): Item {
  return { [PARTITION_KEY]: resultCachePk(key), [SORT_KEY]: RESULT_CACHE_SK };
}

/** The entry of an item, or undefined for an item that is not one (never written by `put`). */
function toEntry(item: Item): CachedResult | undefined {
  const { requestId, resultKey, pages, storedAt, validUntil } = item;
  if (
    typeof requestId !== 'string' ||
    typeof resultKey !== 'string' ||
    typeof pages !== 'number' ||
    typeof storedAt !== 'string' ||
    typeof validUntil !== 'string'
  ) {
    return undefined;
  }
  return { requestId, resultKey, pages, storedAt, validUntil };
}
