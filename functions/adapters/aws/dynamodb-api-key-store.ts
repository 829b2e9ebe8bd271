import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeyStore } from '../../core/ports/api-key-store.js';
import { API_KEY_SK, apiKeyPk, fromItem } from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY } from './service-table.js';
import { RecentlyUsed } from '../recently-used.js';

/** API keys by SHA-256 hash in the service table: `KEY#<sha256>` / `KEY`. */
export class DynamoDbApiKeyStore implements ApiKeyStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  /** Keys as last written or read, when this store is the table's only writer of them. */
  readonly #keys: RecentlyUsed<string, ApiKeyRecord> | undefined;

  /**
   * @param client a document client marshalling with `removeUndefinedValues: true`
   *   (see `createDocumentClient`).
   * @param tableName the service table (see `serviceTable`).
   * @param options.onlyWriter this store makes every write to API keys (one process over an
   *   embedded table): `get` then answers from the keys it last wrote or read. Never set it
   *   where other processes write keys.
   */
  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    options: { onlyWriter?: boolean } = {},
  ) {
    this.#client = client;
    this.#tableName = tableName;
    this.#keys = options.onlyWriter === true ? new RecentlyUsed({ maxEntries: 1000 }) : undefined;
  }

  /** Keeps a copy of `record` as stored, the most recent 1000. */
  #remember(record: ApiKeyRecord): void {
    this.#keys?.set(record.keyHash, JSON.parse(JSON.stringify(record)) as ApiKeyRecord);
  }

  async put(record: ApiKeyRecord): Promise<void> {
    await this.#client.send(
      new PutCommand({
        TableName: this.#tableName,
        Item: { ...record, [PARTITION_KEY]: apiKeyPk(record.keyHash), [SORT_KEY]: API_KEY_SK },
      }),
    );
    this.#remember(record);
  }

  async get(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const known = this.#keys?.get(keyHash);
    if (known) return structuredClone(known);
    const { Item: item } = await this.#client.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: { [PARTITION_KEY]: apiKeyPk(keyHash), [SORT_KEY]: API_KEY_SK },
        ConsistentRead: true,
      }),
    );
    if (!item) return undefined;
    const record = fromItem(item) as unknown as ApiKeyRecord;
    this.#remember(record);
    return record;
  }
}
