import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeyStore } from '../../core/ports/api-key-store.js';
import { API_KEY_SK, apiKeyPk, fromItem } from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY } from './service-table.js';

/** API keys by SHA-256 hash in the service table: `KEY#<sha256>` / `KEY`. */
export class DynamoDbApiKeyStore implements ApiKeyStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;

  /**
   * @param client a document client marshalling with `removeUndefinedValues: true`
   *   (see `createDocumentClient`).
   * @param tableName the service table (see `serviceTable`).
   */
  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.#client = client;
    this.#tableName = tableName;
  }

  async put(record: ApiKeyRecord): Promise<void> {
    await this.#client.send(
      new PutCommand({
        TableName: this.#tableName,
        Item: { ...record, [PARTITION_KEY]: apiKeyPk(record.keyHash), [SORT_KEY]: API_KEY_SK },
      }),
    );
  }

  async get(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const { Item: item } = await this.#client.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: { [PARTITION_KEY]: apiKeyPk(keyHash), [SORT_KEY]: API_KEY_SK },
        ConsistentRead: true,
      }),
    );
    return item ? (fromItem(item) as unknown as ApiKeyRecord) : undefined;
  }
}
