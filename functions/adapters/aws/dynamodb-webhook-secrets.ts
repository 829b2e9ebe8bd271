import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../../core/domain/errors.js';
import type { WebhookSecretStore } from '../../core/ports/webhook-sender.js';
import {
  isConditionalCheckFailed,
  tenantPk,
  webhookSecretPk,
  WEBHOOK_SECRET_SK,
  type Item,
} from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY } from './service-table.js';

/**
 * Webhook signing secrets in the service table, one per tenant: `WHSEC#<tenant>` /
 * `WEBHOOK_SECRET`, attribute `secret` (a `whsec_` secret from `newSecret`). The table is
 * encrypted at rest, and the `WHSEC#` partitions are denied to every role but those of the
 * functions that sign deliveries or show the secret (see `grantTable` in
 * lib/constructs/grants.ts), so only those functions use this store on AWS.
 *
 * A secret an earlier version kept under `TENANT#<tenant>` / `WEBHOOK_SECRET` (readable by every
 * role) is moved on its first read: copied under `WHSEC#<tenant>`, then deleted there.
 */
export class DynamoDbWebhookSecretStore implements WebhookSecretStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #newSecret: () => string;

  /** @param newSecret makes a new secret (`newWebhookSecret` of the signer). */
  constructor(client: DynamoDBDocumentClient, tableName: string, newSecret: () => string) {
    this.#client = client;
    this.#tableName = tableName;
    this.#newSecret = newSecret;
  }

  async get(tenant: string): Promise<string> {
    const secret = (await this.#read(tenant)) ?? (await this.#moveLegacy(tenant));
    if (secret === undefined) throw new NotFoundError(`no webhook secret for tenant ${tenant}`);
    return secret;
  }

  /** Writes a new secret only if none exists (a conditional put), then reads the winner. */
  async getOrCreate(tenant: string): Promise<string> {
    const existing = (await this.#read(tenant)) ?? (await this.#moveLegacy(tenant));
    if (existing !== undefined) return existing;
    return this.#create(tenant, this.#newSecret(), new Date().toISOString());
  }

  /** Stores `secret` unless one exists; returns the stored one. */
  async #create(tenant: string, secret: string, createdAt: string): Promise<string> {
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: { ...secretKey(tenant), secret, createdAt },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        }),
      );
      return secret;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const winner = await this.#read(tenant);
      if (winner === undefined) throw error;
      return winner;
    }
  }

  /** The secret kept under `TENANT#<tenant>` by earlier versions, moved to its own item. */
  async #moveLegacy(tenant: string): Promise<string | undefined> {
    const legacyKey = { [PARTITION_KEY]: tenantPk(tenant), [SORT_KEY]: WEBHOOK_SECRET_SK };
    const { Item: item } = await this.#client.send(
      new GetCommand({ TableName: this.#tableName, Key: legacyKey, ConsistentRead: true }),
    );
    const secret = secretOf(item);
    if (secret === undefined) return undefined;
    const createdAt = typeof item?.createdAt === 'string' ? item.createdAt : undefined;
    const kept = await this.#create(tenant, secret, createdAt ?? new Date().toISOString());
    await this.#client.send(new DeleteCommand({ TableName: this.#tableName, Key: legacyKey }));
    return kept;
  }

  async #read(tenant: string): Promise<string | undefined> {
    const { Item: item } = await this.#client.send(
      new GetCommand({ TableName: this.#tableName, Key: secretKey(tenant), ConsistentRead: true }),
    );
    return secretOf(item);
  }
}

function secretKey(tenant: string): Item {
  return { [PARTITION_KEY]: webhookSecretPk(tenant), [SORT_KEY]: WEBHOOK_SECRET_SK };
}

function secretOf(item: Item | undefined): string | undefined {
  const secret = item?.secret;
  return typeof secret === 'string' ? secret : undefined;
}
