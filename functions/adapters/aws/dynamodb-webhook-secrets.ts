import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../../core/domain/errors.js';
import type { WebhookSecretStore } from '../../core/ports/webhook-sender.js';
import { isConditionalCheckFailed, tenantPk, WEBHOOK_SECRET_SK } from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY } from './service-table.js';

/**
 * Webhook signing secrets in the service table, one per tenant: `TENANT#<tenant>` /
 * `WEBHOOK_SECRET`, attribute `secret` (a `whsec_` secret from `newSecret`). The table is
 * encrypted at rest.
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
    const secret = await this.#read(tenant);
    if (secret === undefined) throw new NotFoundError(`no webhook secret for tenant ${tenant}`);
    return secret;
  }

  /** Writes a new secret only if none exists (a conditional put), then reads the winner. */
  async getOrCreate(tenant: string): Promise<string> {
    const existing = await this.#read(tenant);
    if (existing !== undefined) return existing;
    const secret = this.#newSecret();
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: {
            [PARTITION_KEY]: tenantPk(tenant),
            [SORT_KEY]: WEBHOOK_SECRET_SK,
            secret,
            createdAt: new Date().toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        }),
      );
      return secret;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      return this.get(tenant);
    }
  }

  async #read(tenant: string): Promise<string | undefined> {
    const { Item: item } = await this.#client.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: { [PARTITION_KEY]: tenantPk(tenant), [SORT_KEY]: WEBHOOK_SECRET_SK },
        ConsistentRead: true,
      }),
    );
    const secret = (item as { secret?: unknown } | undefined)?.secret;
    return typeof secret === 'string' ? secret : undefined;
  }
}
