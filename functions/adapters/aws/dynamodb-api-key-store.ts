import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { apiKeyId, byCreation, withKeyId } from '../../core/app/api-keys.js';
import { ConflictError } from '../../core/domain/errors.js';
import type { ApiKeyInput, ApiKeyRecord, ApiKeyStore } from '../../core/ports/api-key-store.js';
import {
  API_KEY_DIRECTORY_PK,
  API_KEY_ID_SK_PREFIX,
  API_KEY_SK,
  apiKeyIdSk,
  apiKeyPk,
  fromItem,
  isConditionalCheckFailed,
  queryAll,
  tenantPk,
  type Item,
} from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY } from './service-table.js';
import { copyJson } from '../json-copy.js';
import { RecentlyUsed } from '../recently-used.js';

/** Key of an item of the service table. */
type Key = Record<typeof PARTITION_KEY | typeof SORT_KEY, string>;

const keyItem = (keyHash: string): Key => ({
  [PARTITION_KEY]: apiKeyPk(keyHash),
  [SORT_KEY]: API_KEY_SK,
});
const tenantEntry = (tenant: string, keyId: string): Key => ({
  [PARTITION_KEY]: tenantPk(tenant),
  [SORT_KEY]: apiKeyIdSk(keyId),
});
const directoryEntry = (keyId: string): Key => ({
  [PARTITION_KEY]: API_KEY_DIRECTORY_PK,
  [SORT_KEY]: apiKeyIdSk(keyId),
});

/** The record an item holds; items written before key ids existed get the id of their hash. */
function toRecord(item: Item): ApiKeyRecord {
  const stored = fromItem(item) as Omit<ApiKeyRecord, 'keyId'> & { keyId?: string };
  return { ...stored, keyId: stored.keyId ?? apiKeyId(stored.keyHash) };
}

/**
 * API keys in the service table, as three items per key that each hold the whole record (hash
 * and metadata, never the key itself):
 *
 * - `KEY#<sha256>` / `KEY`: what `get` reads to authenticate; the item that counts.
 * - `TENANT#<tenant>` / `KEY#<keyId>`: a tenant's keys, listed by one Query.
 * - `APIKEYS` / `KEY#<keyId>`: every key by id, for `getById` and for `list()` without a tenant.
 *   The table has no secondary index; only key management reads or writes this partition.
 *
 * Writes are single-item (dynalite has no transactions), ordered so that an interrupted one
 * never leaves a usable key that cannot be listed or revoked: `put` claims the id in the
 * directory first (conditionally: an id held by another key is a ConflictError), then writes the
 * tenant entry, then the key item; `revoke` marks the key item first (conditionally: a missing
 * key is never created), then copies it over both entries. Repeating either completes it.
 *
 * Key items written before ids existed have no entries: the first `get` of one adds them (best
 * effort), so such a key becomes listable and revocable once it is used.
 */
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

  async put(input: ApiKeyInput): Promise<void> {
    const record = withKeyId(input);
    await this.#claimId(record);
    await this.#write(tenantEntry(record.tenant, record.keyId), record);
    const { Attributes: old } = await this.#client.send(
      new PutCommand({
        TableName: this.#tableName,
        Item: { ...record, ...keyItem(record.keyHash) },
        ReturnValues: 'ALL_OLD',
      }),
    );
    // A key moved to another tenant leaves that tenant's list.
    const oldTenant = old?.tenant as unknown;
    if (typeof oldTenant === 'string' && oldTenant !== record.tenant) {
      await this.#client.send(
        new DeleteCommand({
          TableName: this.#tableName,
          Key: tenantEntry(oldTenant, record.keyId),
        }),
      );
    }
    this.#remember(record);
  }

  async get(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const known = this.#keys?.get(keyHash);
    if (known) return copyJson(known);
    const item = await this.#read(keyItem(keyHash));
    if (!item) return undefined;
    const record = toRecord(item);
    if (item.keyId === undefined) await this.#index(record);
    this.#remember(record);
    return record;
  }

  async getById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const entry = await this.#read(directoryEntry(keyId));
    return entry ? this.get(toRecord(entry).keyHash) : undefined;
  }

  async list(tenant?: string): Promise<ApiKeyRecord[]> {
    const items = await queryAll(this.#client, {
      TableName: this.#tableName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: {
        ':pk': tenant === undefined ? API_KEY_DIRECTORY_PK : tenantPk(tenant),
        ':prefix': API_KEY_ID_SK_PREFIX,
      },
      ConsistentRead: true,
    });
    return items.map(toRecord).sort(byCreation);
  }

  async revoke(keyId: string, at: Date): Promise<ApiKeyRecord | undefined> {
    const entry = await this.#read(directoryEntry(keyId));
    if (!entry) return undefined;
    let revoked: Item | undefined;
    try {
      ({ Attributes: revoked } = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: keyItem(toRecord(entry).keyHash),
          UpdateExpression: 'SET #revokedAt = if_not_exists(#revokedAt, :at), #keyId = :keyId',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: {
            '#pk': PARTITION_KEY,
            '#revokedAt': 'revokedAt',
            '#keyId': 'keyId',
          },
          ExpressionAttributeValues: { ':at': at.toISOString(), ':keyId': keyId },
          ReturnValues: 'ALL_NEW',
        }),
      ));
    } catch (error) {
      // The directory names a key whose item was never written (an interrupted put).
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
    if (!revoked) throw new Error(`revoking API key ${keyId} returned no record`);
    const record = toRecord(revoked);
    await Promise.all([
      this.#write(tenantEntry(record.tenant, keyId), record),
      this.#write(directoryEntry(keyId), record),
    ]);
    this.#remember(record);
    return record;
  }

  /**
   * Enters `record` in the directory unless another key holds its id.
   * @throws {ConflictError} when another key holds it.
   */
  async #claimId(record: ApiKeyRecord): Promise<void> {
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: { ...record, ...directoryEntry(record.keyId) },
          ConditionExpression: 'attribute_not_exists(#pk) OR #keyHash = :keyHash',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#keyHash': 'keyHash' },
          ExpressionAttributeValues: { ':keyHash': record.keyHash },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      throw new ConflictError(`API key id ${record.keyId} is taken by another key`, {
        cause: error,
        details: { keyId: record.keyId },
      });
    }
  }

  /**
   * Adds the entries and the id of a key stored before ids existed.
   *
   * Best effort: authentication must not fail for it (the caller's role may only read the
   * table, as on read-only routes), and a later read tries again. Only the id is added to the
   * key item, so a concurrent revoke is kept.
   */
  async #index(record: ApiKeyRecord): Promise<void> {
    try {
      await this.#claimId(record);
      await this.#write(tenantEntry(record.tenant, record.keyId), record);
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: keyItem(record.keyHash),
          UpdateExpression: 'SET #keyId = :keyId',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#keyId': 'keyId' },
          ExpressionAttributeValues: { ':keyId': record.keyId },
        }),
      );
    } catch {
      // Left for a later read; see above.
    }
  }

  async #read(key: Key): Promise<Item | undefined> {
    const { Item: item } = await this.#client.send(
      new GetCommand({ TableName: this.#tableName, Key: key, ConsistentRead: true }),
    );
    return item;
  }

  async #write(key: Key, record: ApiKeyRecord): Promise<void> {
    await this.#client.send(
      new PutCommand({ TableName: this.#tableName, Item: { ...record, ...key } }),
    );
  }
}
