import {
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type {
  BatchEndStatus,
  BatchItem,
  BatchItemStatus,
  BatchRecord,
  BatchTotals,
  CountMove,
} from '../../core/domain/batch.js';
import { ConflictError, NotFoundError } from '../../core/domain/errors.js';
import type { BatchStore, ItemTransition } from '../../core/ports/batch-store.js';
import {
  META_SK,
  expiryOf,
  fromItem,
  schemaAsJson,
  schemaFromJson,
  isConditionalCheckFailed,
  queryAll,
  type Item,
  type ItemRetention,
} from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './service-table.js';

/** Partition key of a batch and its items: `BATCH#<id>`. */
export const batchPk = (batchId: string): string => `BATCH#${batchId}`;

/** Sort key prefix of batch items. */
export const ITEM_SK_PREFIX = 'ITEM#';

/** Sort key of one item: `ITEM#0001` (four digits: a batch has at most 100 items). */
export function itemSk(index: number): string {
  if (!Number.isSafeInteger(index) || index < 1) {
    throw new RangeError(`an item index is a positive integer; got ${index}`);
  }
  return `${ITEM_SK_PREFIX}${String(index).padStart(4, '0')}`;
}

/** The counters of the totals, each a top-level number attribute of the record (ADD needs that). */
const COUNTERS = ['queued', 'in_progress', 'completed', 'failed'] as const;

/** String set of the ids of the count moves applied to the record (see `BatchStore.applyMove`). */
const MOVES = 'appliedMoves';

/** Items written at once while a batch is created. */
const CREATE_PARALLELISM = 25;

/**
 * Batches in the service table: the record `BATCH#<id>` / `META` (the totals as four number
 * attributes, and the ids of the count moves applied so far as a string set) and the items
 * `BATCH#<id>` / `ITEM#0001`. Every write is a single-item conditional write: an item changes
 * status only from the status its writer expects, and a count move carries its id into the
 * condition (`NOT contains(appliedMoves, :id)`), so concurrent and repeated moves count once.
 * Every write sets the item's TTL (`expiresAt`) to the retention after it (see `ItemRetention`):
 * a batch and its items are kept that long after their last change.
 */
export class DynamoDbBatchStore implements BatchStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #retention: ItemRetention | undefined;

  /**
   * @param client a document client (see `createDocumentClient`).
   * @param tableName the service table (see `serviceTable`).
   * @param options.retention how long batches and items are kept after their last write
   *   (`RETENTION_DAYS`). @default 7 days
   */
  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    options: { retention?: ItemRetention } = {},
  ) {
    this.#client = client;
    this.#tableName = tableName;
    this.#retention = options.retention;
  }

  /** The TTL of an item written now. */
  #expiry(): number {
    return expiryOf(this.#retention);
  }

  async create(batch: BatchRecord, items: readonly BatchItem[]): Promise<void> {
    const pk = batchPk(batch.id);
    try {
      for (let start = 0; start < items.length; start += CREATE_PARALLELISM) {
        await Promise.all(
          items.slice(start, start + CREATE_PARALLELISM).map((item) =>
            this.#client.send(
              new PutCommand({
                TableName: this.#tableName,
                Item: {
                  ...item,
                  ...(typeof item.document === 'object'
                    ? { document: schemaAsJson(item.document) }
                    : {}),
                  [PARTITION_KEY]: pk,
                  [SORT_KEY]: itemSk(item.index),
                  [TTL_ATTRIBUTE]: this.#expiry(),
                },
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': PARTITION_KEY },
              }),
            ),
          ),
        );
      }
      const { totals, ...record } = batch;
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: {
            ...record,
            ...totals,
            [PARTITION_KEY]: pk,
            [SORT_KEY]: META_SK,
            [TTL_ATTRIBUTE]: this.#expiry(),
          },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      throw new ConflictError(`batch ${batch.id} exists already`, {
        cause: error,
        details: { batchId: batch.id },
      });
    }
  }

  async get(batchId: string): Promise<BatchRecord | undefined> {
    const { Item: item } = await this.#client.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: { [PARTITION_KEY]: batchPk(batchId), [SORT_KEY]: META_SK },
        ConsistentRead: true,
      }),
    );
    return item && toBatch(item);
  }

  async getItem(batchId: string, index: number): Promise<BatchItem | undefined> {
    const { Item: item } = await this.#client.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: { [PARTITION_KEY]: batchPk(batchId), [SORT_KEY]: itemSk(index) },
        ConsistentRead: true,
      }),
    );
    return item && toBatchItem(item);
  }

  async listItems(batchId: string): Promise<BatchItem[]> {
    const items = await queryAll(this.#client, {
      TableName: this.#tableName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: { ':pk': batchPk(batchId), ':prefix': ITEM_SK_PREFIX },
      ConsistentRead: true,
    });
    return items.map(toBatchItem).sort((a, b) => a.index - b.index);
  }

  async getWithItems(
    batchId: string,
  ): Promise<{ batch: BatchRecord; items: BatchItem[] } | undefined> {
    // One Query over the partition (every page of it: 100 items with their documents and
    // extraction schemas can pass the 1 MB a page holds), newest sort key first so that the
    // record (META) is read before the items (ITEM#...). No TransactGetItems: it takes at most
    // 100 keys (a full batch is 101) and dynalite has no transactions.
    const found = await queryAll(this.#client, {
      TableName: this.#tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      ExpressionAttributeValues: { ':pk': batchPk(batchId) },
      ConsistentRead: true,
      ScanIndexForward: false,
    });
    const record = found.find((item) => item[SORT_KEY] === META_SK);
    if (!record) return undefined;
    const items = found
      .filter((item) => String(item[SORT_KEY]).startsWith(ITEM_SK_PREFIX))
      .map(toBatchItem)
      .sort((a, b) => a.index - b.index);
    return { batch: toBatch(record), items };
  }

  async transitionItem(batchId: string, index: number, change: ItemTransition): Promise<BatchItem> {
    const sets = ['#status = :to', '#updatedAt = :at', '#ttl = :ttl'];
    const removes: string[] = [];
    const names: Record<string, string> = {
      '#status': 'status',
      '#updatedAt': 'updatedAt',
      '#ttl': TTL_ATTRIBUTE,
    };
    const values: Record<string, unknown> = {
      ':from': change.from,
      ':to': change.to,
      ':at': change.at.toISOString(),
      ':ttl': this.#expiry(),
    };
    if (change.requestId !== undefined) {
      names['#requestId'] = 'requestId';
      if (change.requestId === null) {
        removes.push('#requestId');
      } else {
        sets.push('#requestId = :requestId');
        values[':requestId'] = change.requestId;
      }
    }
    if (change.error !== undefined) {
      sets.push('#error = :error');
      names['#error'] = 'error';
      values[':error'] = change.error;
    }
    const remove = removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : '';
    return this.#updateItem(batchId, index, change.from, {
      UpdateExpression: `SET ${sets.join(', ')}${remove}`,
      ConditionExpression: '#status = :from',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }

  async applyMove(
    batchId: string,
    move: CountMove,
    at: Date,
  ): Promise<{ applied: boolean; batch: BatchRecord }> {
    const names: Record<string, string> = {
      '#pk': PARTITION_KEY,
      '#from': move.from,
      '#to': move.to,
      '#moves': MOVES,
      '#updatedAt': 'updatedAt',
      '#ttl': TTL_ATTRIBUTE,
    };
    const values: Record<string, unknown> = {
      ':minus': -1,
      ':plus': 1,
      ':move': move.id,
      ':moves': new Set([move.id]),
      ':at': at.toISOString(),
      ':ttl': this.#expiry(),
    };
    const sets = ['#updatedAt = :at', '#ttl = :ttl'];
    if (move.to === 'in_progress') {
      // Items start only while the batch runs, so this never overwrites a terminal status: a
      // batch ends once every item's end move (which follows its start move) is applied.
      sets.push('#status = :inProgress');
      names['#status'] = 'status';
      values[':inProgress'] = 'in_progress';
    }
    try {
      const { Attributes: after } = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: { [PARTITION_KEY]: batchPk(batchId), [SORT_KEY]: META_SK },
          UpdateExpression: `ADD #from :minus, #to :plus, #moves :moves SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(#pk) AND NOT contains(#moves, :move)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { applied: true, batch: toBatch(after ?? {}) };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      return { applied: false, batch: await this.#existing(batchId, error) };
    }
  }

  async finish(batchId: string, status: BatchEndStatus, at: Date): Promise<BatchRecord> {
    try {
      const { Attributes: after } = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: { [PARTITION_KEY]: batchPk(batchId), [SORT_KEY]: META_SK },
          UpdateExpression: 'SET #status = :status, #endedAt = :at, #updatedAt = :at, #ttl = :ttl',
          ConditionExpression: 'attribute_exists(#pk) AND #status IN (:queued, :inProgress)',
          ExpressionAttributeNames: {
            '#pk': PARTITION_KEY,
            '#status': 'status',
            '#endedAt': 'endedAt',
            '#updatedAt': 'updatedAt',
            '#ttl': TTL_ATTRIBUTE,
          },
          ExpressionAttributeValues: {
            ':status': status,
            ':at': at.toISOString(),
            ':ttl': this.#expiry(),
            ':queued': 'queued',
            ':inProgress': 'in_progress',
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toBatch(after ?? {});
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const batch = await this.#existing(batchId, error);
      throw new ConflictError(`batch ${batchId} has ended already (${batch.status})`, {
        cause: error,
        details: { batchId, status: batch.status },
      });
    }
  }

  async update(
    batchId: string,
    patch: Partial<Pick<BatchRecord, 'webhook' | 'webhookEventId'>>,
  ): Promise<BatchRecord> {
    const fields = (Object.entries(patch) as [string, unknown][]).filter(
      ([, value]) => value !== undefined,
    );
    if (fields.length === 0) return this.#existing(batchId);
    const names: Record<string, string> = { '#pk': PARTITION_KEY, '#ttl': TTL_ATTRIBUTE };
    const values: Record<string, unknown> = { ':ttl': this.#expiry() };
    const sets = fields.map(([name, value], i) => {
      names[`#f${i}`] = name;
      values[`:v${i}`] = value;
      return `#f${i} = :v${i}`;
    });
    sets.push('#ttl = :ttl');
    try {
      const { Attributes: after } = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: { [PARTITION_KEY]: batchPk(batchId), [SORT_KEY]: META_SK },
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toBatch(after ?? {});
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      throw notFound(batchId, error);
    }
  }

  /** A conditional update of one item; a failed condition is NotFoundError or ConflictError. */
  async #updateItem(
    batchId: string,
    index: number,
    expected: BatchItemStatus,
    update: {
      UpdateExpression: string;
      ConditionExpression: string;
      ExpressionAttributeNames: Record<string, string>;
      ExpressionAttributeValues: Record<string, unknown>;
    },
  ): Promise<BatchItem> {
    try {
      const { Attributes: after } = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: { [PARTITION_KEY]: batchPk(batchId), [SORT_KEY]: itemSk(index) },
          ...update,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toBatchItem(after ?? {});
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const item = await this.getItem(batchId, index);
      if (!item) {
        throw new NotFoundError(`item ${index} of batch ${batchId} does not exist`, {
          cause: error,
          details: { batchId, index },
        });
      }
      throw new ConflictError(
        `item ${index} of batch ${batchId} is ${item.status}, not ${expected}`,
        { cause: error, details: { batchId, index, status: item.status, expected } },
      );
    }
  }

  /** The batch, read after a failed condition. @throws {NotFoundError} when there is none. */
  async #existing(batchId: string, cause?: unknown): Promise<BatchRecord> {
    const batch = await this.get(batchId);
    if (!batch) throw notFound(batchId, cause);
    return batch;
  }
}

function notFound(batchId: string, cause: unknown): NotFoundError {
  return new NotFoundError(`batch ${batchId} does not exist`, {
    ...(cause === undefined ? {} : { cause }),
    details: { batchId },
  });
}

/** The batch item an ITEM item holds (its document's extraction schema kept as JSON text). */
function toBatchItem(item: Item): BatchItem {
  const attributes = fromItem(item);
  const document = attributes.document;
  return (document && typeof document === 'object'
    ? { ...attributes, document: schemaFromJson(document as Item) }
    : attributes) as unknown as BatchItem;
}

/** The domain record of a META item: the counters gathered into `totals`, the moves left out. */
function toBatch(item: Item): BatchRecord {
  const attributes = fromItem(item);
  const internal = new Set<string>([...COUNTERS, MOVES]);
  const record = Object.fromEntries(
    Object.entries(attributes).filter(([name]) => !internal.has(name)),
  ) as unknown as Omit<BatchRecord, 'totals'>;
  const count = (name: keyof BatchTotals) => Number(attributes[name] ?? 0);
  return {
    ...record,
    totals: {
      queued: count('queued'),
      in_progress: count('in_progress'),
      completed: count('completed'),
      failed: count('failed'),
    },
  };
}
