import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './service-table.js';

/** A DynamoDB item as the document client returns it. */
export type Item = Record<string, unknown>;

/** Attributes the adapters add to every item; never part of a domain record. */
const INTERNAL_ATTRIBUTES: ReadonlySet<string> = new Set([PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE]);

/**
 * Days the items holding document content or history are kept when no retention is given: the
 * default of `RETENTION_DAYS` (functions/config.ts) and of the stack's `docparse:retentionDays`.
 */
export const DEFAULT_RETENTION_DAYS = 7;

/**
 * The retention of the items that hold document content or history (request records, page
 * checkpoints, events, batches and their items): each write of such an item sets the table's
 * TTL attribute (`expiresAt`) to the time of the write plus `days`, so DynamoDB's TTL (on AWS)
 * and the local retention sweeper delete it that long after its last change.
 */
export interface ItemRetention {
  /** Days kept after the last write (`RETENTION_DAYS`); fractions allowed. */
  readonly days: number;
  /** The time of a write. @default the system clock */
  readonly now?: () => Date;
}

/** The TTL attribute value (epoch seconds) of an item written now under `retention`. */
export function expiryOf(retention: ItemRetention | undefined): number {
  const days = retention?.days ?? DEFAULT_RETENTION_DAYS;
  const now = retention?.now?.() ?? new Date();
  return Math.ceil(now.getTime() / 1000 + days * 24 * 60 * 60);
}

/** Partition key of a request and everything stored under it. */
export const requestPk = (requestId: string): string => `REQ#${requestId}`;

/** Sort key of the request record. */
export const META_SK = 'META';

/** Sort key prefix of page checkpoints. */
export const PAGE_SK_PREFIX = 'PAGE#';

/** Sort key prefix of logged events. */
export const EVENT_SK_PREFIX = 'EVT#';

/** Width of the zero-padded page number: `PAGE#0001`. */
const PAGE_DIGITS = 4;

/** Width of the zero-padded event sequence number; wide enough that keys always sort by seq. */
const EVENT_DIGITS = 10;

/** Largest sequence number an event key can hold while keeping its order. */
export const MAX_EVENT_SEQ = 10 ** EVENT_DIGITS - 1;

/**
 * Sort key of one page checkpoint: `PAGE#0001`.
 *
 * Pages above 9999 get more digits and no longer sort by key alone, so readers order pages by
 * their `pageNumber`.
 */
export function pageSk(pageNumber: number): string {
  if (!Number.isSafeInteger(pageNumber) || pageNumber < 1) {
    throw new RangeError(`page number must be a positive integer, got ${pageNumber}`);
  }
  return `${PAGE_SK_PREFIX}${String(pageNumber).padStart(PAGE_DIGITS, '0')}`;
}

/** Sort key of one logged event: `EVT#0000000001`. */
export function eventSk(seq: number): string {
  return `${EVENT_SK_PREFIX}${String(seq).padStart(EVENT_DIGITS, '0')}`;
}

/** Partition key of an API key: `KEY#<sha256>`. */
export const apiKeyPk = (keyHash: string): string => `KEY#${keyHash}`;

/** Sort key of an API key item. */
export const API_KEY_SK = 'KEY';

/** Partition key of a tenant's own items. */
export const tenantPk = (tenant: string): string => `TENANT#${tenant}`;

/** Partition key of the directory of all API keys by public id (`APIKEYS` / `KEY#<keyId>`). */
export const API_KEY_DIRECTORY_PK = 'APIKEYS';

/** Sort key prefix of API key entries by id, in a tenant's partition and in the directory. */
export const API_KEY_ID_SK_PREFIX = 'KEY#';

/** Sort key of an API key's entries by id: `KEY#<keyId>`. */
export const apiKeyIdSk = (keyId: string): string => `${API_KEY_ID_SK_PREFIX}${keyId}`;

/**
 * Partition key prefix of the webhook signing secrets, kept apart from every other item: the
 * stack denies the items under it (`dynamodb:LeadingKeys`) to every role but those of the
 * functions that sign or show secrets (`grantTable` in lib/constructs/grants.ts).
 */
export const WEBHOOK_SECRET_PK_PREFIX = 'WHSEC#';

/** Partition key of a tenant's webhook signing secret: `WHSEC#<tenant>`. */
export const webhookSecretPk = (tenant: string): string => `${WEBHOOK_SECRET_PK_PREFIX}${tenant}`;

/**
 * Sort key of a tenant's webhook signing secret (under {@link webhookSecretPk}; earlier
 * versions kept it under `tenantPk`, where every role could read it).
 */
export const WEBHOOK_SECRET_SK = 'WEBHOOK_SECRET';

/**
 * Sort key of an API key's request count in one fixed minute (under `apiKeyPk`):
 * `RATE#<minutes since the epoch>`.
 */
export const rateWindowSk = (epochMinute: number): string => `RATE#${epochMinute}`;

/** Sort key of a tenant's page count of one UTC day (under `tenantPk`): `PAGES#<yyyy-mm-dd>`. */
export const pagesDaySk = (day: string): string => `PAGES#${day}`;

/**
 * Sort key of the marker of one page refund (under `tenantPk`): `REFUND#<refund id>`. Its
 * conditional creation makes the refund happen at most once.
 */
export const pageRefundSk = (refundId: string): string => `REFUND#${refundId}`;

/** The item without the key and other internal attributes: the stored domain object. */
export function fromItem(item: Item): Item {
  return Object.fromEntries(
    Object.entries(item).filter(([name]) => !INTERNAL_ATTRIBUTES.has(name)),
  );
}

/**
 * The attribute holding a record's `extractionSchema` as JSON text. A JSON Schema is arbitrary
 * JSON: numbers past what DynamoDB stores (`1e200`, `9007199254740993`, `1e-320`) and property
 * names such as `constructor` or `__proto__`, which the document client's marshalling refuses,
 * so it is never stored as a map.
 */
const SCHEMA_JSON = 'extractionSchemaJson';

/** `value` with its `extractionSchema` (if any) as JSON text in {@link SCHEMA_JSON}. */
export function schemaAsJson(value: object): Item {
  const { extractionSchema, ...rest } = value as Item;
  return extractionSchema === undefined
    ? rest
    : { ...rest, [SCHEMA_JSON]: JSON.stringify(extractionSchema) };
}

/**
 * `item` with its `extractionSchema` read back from {@link SCHEMA_JSON} (items written before
 * hold it as a map, kept as they are).
 */
export function schemaFromJson(item: Item): Item {
  const text = item[SCHEMA_JSON];
  if (typeof text !== 'string') return item;
  const rest = Object.fromEntries(Object.entries(item).filter(([name]) => name !== SCHEMA_JSON));
  return { ...rest, extractionSchema: JSON.parse(text) as unknown };
}

/** True for the SDK's failed-condition error (a lost conditional write). */
export function isConditionalCheckFailed(error: unknown): error is ConditionalCheckFailedException {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

/** Every item a query matches, following `LastEvaluatedKey` across pages. */
export async function queryAll(
  client: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * The document client the DynamoDB adapters expect.
 *
 * Optional fields of domain records may be `undefined`; they are dropped instead of failing the
 * marshalling.
 */
export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}
