import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** Partition key attribute of the service table (`REQ#<id>`, `KEY#<sha256>`, ...). */
export const PARTITION_KEY = 'pk';
/** Sort key attribute of the service table (`META`, `PAGE#0001`, `EVT#0000000001`, ...). */
export const SORT_KEY = 'sk';
/** Epoch-seconds attribute DynamoDB's TTL sweeper reads. dynalite never expires items. */
export const TTL_ATTRIBUTE = 'expiresAt';

/** A string key attribute, in the shape both the SDK and CDK (`AttributeType.STRING` is `'S'`) use. */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S';
}

/**
 * The key schema of the single service table (DESIGN §5), as plain data.
 *
 * The field names follow the CDK `TableProps`, so the stack can spread them; the embedded
 * DynamoDB creates its table from {@link createTableInput}. Keeping one definition means the
 * emulator cannot drift from production.
 */
export interface ServiceTableDefinition {
  readonly tableName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  readonly billingMode: 'PAY_PER_REQUEST';
  readonly timeToLiveAttribute: string;
}

/**
 * The service table's definition under `tableName`.
 *
 * @example
 * const ddb = await startEmbeddedDynamo();
 * await ddb.ensureTable(serviceTable('svc'));
 */
export function serviceTable(tableName: string): ServiceTableDefinition {
  return {
    tableName,
    partitionKey: { name: PARTITION_KEY, type: 'S' },
    sortKey: { name: SORT_KEY, type: 'S' },
    billingMode: 'PAY_PER_REQUEST',
    timeToLiveAttribute: TTL_ATTRIBUTE,
  };
}

/**
 * The CreateTable request for a table definition.
 *
 * TTL is not part of CreateTable (it is a separate UpdateTimeToLive call, which CDK makes and
 * dynalite does not support), so it is left out here.
 */
export function createTableInput(definition: ServiceTableDefinition): CreateTableCommandInput {
  const { tableName, partitionKey, sortKey, billingMode } = definition;
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: partitionKey.name, AttributeType: partitionKey.type },
      { AttributeName: sortKey.name, AttributeType: sortKey.type },
    ],
    KeySchema: [
      { AttributeName: partitionKey.name, KeyType: 'HASH' },
      { AttributeName: sortKey.name, KeyType: 'RANGE' },
    ],
    BillingMode: billingMode,
  };
}
