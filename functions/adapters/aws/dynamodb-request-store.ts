import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ConflictError, NotFoundError } from '../../core/domain/errors.js';
import type { Page } from '../../core/domain/schemas.js';
import type { PageCheckpoint, RequestRecord, RequestStatus } from '../../core/domain/request.js';
import type { RequestStore } from '../../core/ports/request-store.js';
import {
  META_SK,
  PAGE_SK_PREFIX,
  expiryOf,
  fromItem,
  schemaAsJson,
  schemaFromJson,
  isConditionalCheckFailed,
  pageSk,
  queryAll,
  requestPk,
  type Item,
  type ItemRetention,
} from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './service-table.js';
import { copyJson } from '../json-copy.js';
import { RecentlyUsed } from '../recently-used.js';
import { WriteQueues } from '../write-queues.js';

/** Attribute of the pages counted as parsed (a number set). */
const CHARGED_PAGES = 'chargedPages';
/** A page's JSON, gzip-compressed (binary); items written before it hold `pageJson` (a string). */
const PAGE_GZIP = 'pageJsonGzip';
/**
 * gzip level of stored pages: the fastest, about a fifth of the JSON's size on text pages. At
 * well over 100 MB/s it is done in place: zlib's asynchronous stream costs more than a page.
 */
const PAGE_GZIP_LEVEL = 1;

/** A checkpoint remembered as written: its fields but the page, and the page, as JSON. */
interface WrittenPage {
  rest: string;
  page: string | undefined;
}

/** BatchWriteItem takes at most 25 requests. */
const BATCH_WRITE_LIMIT = 25;

/** Attempts at writing a batch's unprocessed items before giving up. */
const BATCH_WRITE_ATTEMPTS = 8;

/** Records kept by a store that is their only writer. */
const REMEMBERED_RECORDS = 1000;
/** Requests whose checkpoints such a store keeps. */
const REMEMBERED_PAGE_LISTS = 16;

/**
 * Fields a patch may never change: they identify the record and its owner, or only
 * `chargePage`/`unchargePage` write them.
 */
const IMMUTABLE_FIELDS: ReadonlySet<string> = new Set(['id', 'tenant', CHARGED_PAGES]);

/** A `chargePage` call waiting for its write. */
interface PendingCharge {
  pageNumber: number;
  expectedStatus: readonly RequestStatus[];
  resolve: (added: boolean) => void;
  reject: (error: unknown) => void;
}

type RequestPatch = Partial<Omit<RequestRecord, 'id' | 'tenant' | 'chargedPages'>>;

/**
 * The record an item holds. `chargedPages` is stored as a number set (`NS`), so that adding
 * and removing a page are single atomic `ADD`/`DELETE` actions; records carry it as an array.
 */
function toRecord(item: Item): RequestRecord {
  const { [CHARGED_PAGES]: charged, ...rest } = schemaFromJson(fromItem(item));
  const record = rest as unknown as RequestRecord;
  if (charged instanceof Set && charged.size > 0) {
    record.chargedPages = [...(charged as Set<number>)].map(Number).sort((a, b) => a - b);
  }
  return record;
}

/**
 * Request records (`REQ#<id>` / `META`) and page checkpoints (`REQ#<id>` / `PAGE#0001`) in the
 * service table.
 *
 * Records are stored as ordinary attributes, so they read naturally in the console. Every write
 * is a single-item conditional write. Each write of a record or checkpoint sets its TTL
 * (`expiresAt`) to the retention after that write (see `ItemRetention`).
 */
export class DynamoDbRequestStore implements RequestStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #retention: ItemRetention | undefined;
  /** Records as last written or read, when this store is the table's only writer of them. */
  readonly #records: RecentlyUsed<string, RequestRecord> | undefined;
  /**
   * Page checkpoints (as JSON) of the requests this store created, when it is the only writer:
   * it then wrote every one of them, so the list is complete.
   */
  readonly #pages: RecentlyUsed<string, Map<number, WrittenPage>> | undefined;
  /** Charges waiting for the charge write in flight of their request, by request id. */
  readonly #charging = new WriteQueues<PendingCharge>((id, queue) => this.#writeCharges(id, queue));

  /**
   * @param client a document client marshalling with `removeUndefinedValues: true`
   *   (see `createDocumentClient`).
   * @param tableName the service table (see `serviceTable`).
   * @param options.onlyWriter this store makes every write to request records and checkpoints
   *   (one process over an embedded table): `get` then answers from the records it last wrote
   *   or read, and `listPages` from the checkpoints it wrote for the requests it created (the
   *   latest 16). Never set it where other processes write (Lambda): it would miss their writes.
   * @param options.retention how long records and checkpoints are kept after their last write
   *   (`RETENTION_DAYS`). @default 7 days
   */
  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    options: { onlyWriter?: boolean; retention?: ItemRetention } = {},
  ) {
    this.#client = client;
    this.#tableName = tableName;
    this.#retention = options.retention;
    const onlyWriter = options.onlyWriter === true;
    this.#records = onlyWriter ? new RecentlyUsed({ maxEntries: REMEMBERED_RECORDS }) : undefined;
    this.#pages = onlyWriter ? new RecentlyUsed({ maxEntries: REMEMBERED_PAGE_LISTS }) : undefined;
  }

  /**
   * Forgets the records and checkpoints remembered as their only writer, so the next reads go
   * to the table: after items were deleted behind this store's back (the local retention sweep
   * removing expired ones).
   */
  forgetRemembered(): void {
    this.#records?.clear();
    this.#pages?.clear();
  }

  /** Keeps a copy of `record` as stored (undefined fields dropped), the most recent 1000. */
  #remember(record: RequestRecord): void {
    this.#records?.set(record.id, JSON.parse(JSON.stringify(record)) as RequestRecord);
  }

  async create(record: RequestRecord): Promise<void> {
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: {
            ...schemaAsJson(withChargedSet(record)),
            [PARTITION_KEY]: requestPk(record.id),
            [SORT_KEY]: META_SK,
            [TTL_ATTRIBUTE]: expiryOf(this.#retention),
          },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        }),
      );
      this.#remember(record);
      this.#pages?.set(record.id, new Map());
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      throw new ConflictError(`request ${record.id} exists already`, {
        cause: error,
        details: { requestId: record.id },
      });
    }
  }

  async get(id: string): Promise<RequestRecord | undefined> {
    const known = this.#records?.get(id);
    if (known) return copyJson(known);
    const { Item: item } = await this.#client.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: this.#metaKey(id),
        ConsistentRead: true,
      }),
    );
    if (!item) return undefined;
    const record = toRecord(item);
    this.#remember(record);
    return record;
  }

  async update(
    id: string,
    patch: RequestPatch,
    expectedStatus?: readonly RequestStatus[],
  ): Promise<RequestRecord> {
    const fields = (Object.entries(patch) as [string, unknown][]).filter(
      ([name]) => !IMMUTABLE_FIELDS.has(name),
    );
    // An UpdateExpression cannot be empty, and `IN ()` is not valid: both cases reduce to a
    // plain read with the same checks.
    if (fields.length === 0 || expectedStatus?.length === 0) {
      return this.#checkedRead(id, expectedStatus);
    }

    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    // One placeholder per attribute name, shared by the update and the condition.
    const nameOf = (attribute: string): string => {
      const placeholder = `#n${Object.keys(names).length}`;
      const existing = Object.entries(names).find(([, name]) => name === attribute);
      if (existing) return existing[0];
      names[placeholder] = attribute;
      return placeholder;
    };
    const sets: string[] = [];
    const removes: string[] = [];
    fields.forEach(([name, value], index) => {
      // A field patched to `undefined` is removed, as object spread would drop it from JSON.
      if (value === undefined) {
        removes.push(nameOf(name));
      } else {
        values[`:v${index}`] = value;
        sets.push(`${nameOf(name)} = :v${index}`);
      }
    });
    // The record is kept for the retention after its last change.
    values[':ttl'] = expiryOf(this.#retention);
    sets.push(`${nameOf(TTL_ATTRIBUTE)} = :ttl`);

    let condition = `attribute_exists(${nameOf(PARTITION_KEY)})`;
    if (expectedStatus) {
      const placeholders = expectedStatus.map((status, index) => {
        values[`:s${index}`] = status;
        return `:s${index}`;
      });
      condition += ` AND ${nameOf('status')} IN (${placeholders.join(', ')})`;
    }

    const clauses = [
      sets.length > 0 ? `SET ${sets.join(', ')}` : '',
      removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
    ];
    try {
      const { Attributes: attributes } = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: this.#metaKey(id),
          UpdateExpression: clauses.filter(Boolean).join(' '),
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: Object.keys(values).length > 0 ? values : undefined,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      if (!attributes) throw new Error(`update of request ${id} returned no attributes`);
      const record = toRecord(attributes);
      this.#remember(record);
      return record;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      // DynamoDB returns the old item with the failure; emulators may not, so read it then.
      const exists = error.Item !== undefined || (await this.get(id)) !== undefined;
      if (!exists) throw notFound(id, error);
      throw conflict(id, expectedStatus ?? [], error);
    }
  }

  async claimRun(
    id: string,
    run: number,
    patch: Partial<Omit<RequestRecord, 'id' | 'tenant' | 'runs' | 'chargedPages'>>,
  ): Promise<boolean> {
    if (!Number.isInteger(run) || run < 1)
      throw new RangeError(`run must be 1 or more; got ${run}`);
    const names: Record<string, string> = {
      '#pk': PARTITION_KEY,
      '#runs': 'runs',
      '#ttl': TTL_ATTRIBUTE,
    };
    const values: Record<string, unknown> = { ':run': run, ':ttl': expiryOf(this.#retention) };
    const sets = ['#runs = :run', '#ttl = :ttl'];
    const removes: string[] = [];
    (Object.entries(patch) as [string, unknown][])
      .filter(([name]) => !IMMUTABLE_FIELDS.has(name) && name !== 'runs')
      .forEach(([name, value], index) => {
        names[`#f${index}`] = name;
        if (value === undefined) {
          removes.push(`#f${index}`);
        } else {
          values[`:f${index}`] = value;
          sets.push(`#f${index} = :f${index}`);
        }
      });
    let condition = 'attribute_exists(#pk) AND ';
    if (run === 1) {
      condition += '(attribute_not_exists(#runs) OR #runs = :previous)';
      values[':previous'] = 0;
    } else {
      condition += '#runs = :previous';
      values[':previous'] = run - 1;
    }
    return this.#updateIf(id, {
      UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: condition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }

  /**
   * Charges made while an earlier charge of the same request is being written wait for it, then
   * go together in one write: the pages a request's concurrent page stages charge at once cost
   * one UpdateItem, and no charge returns before its page is stored.
   */
  chargePage(
    id: string,
    pageNumber: number,
    expectedStatus: readonly RequestStatus[],
  ): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      pageSk(pageNumber); // validates the page number
      const pending: PendingCharge = { pageNumber, expectedStatus, resolve, reject };
      this.#charging.add(id, pending);
    });
  }

  /** Writes the next group of the request's queued charges: those expecting the same statuses. */
  async #writeCharges(id: string, queue: PendingCharge[]): Promise<void> {
    const statuses = queue[0]?.expectedStatus.join() ?? '';
    const group = queue.filter((p) => p.expectedStatus.join() === statuses);
    queue.splice(0, queue.length, ...queue.filter((p) => !group.includes(p)));
    try {
      const before = await this.#addCharged(
        id,
        group.map((p) => p.pageNumber),
        group[0]?.expectedStatus ?? [],
      );
      // A page charged twice in one group is added by its first caller only.
      for (const p of group) {
        p.resolve(!before.has(p.pageNumber));
        before.add(p.pageNumber);
      }
    } catch (error) {
      for (const p of group) p.reject(error);
    }
  }

  /**
   * Adds `pages` to the record's charged pages in one conditional write.
   * @returns the pages charged before it.
   */
  async #addCharged(
    id: string,
    pages: readonly number[],
    expectedStatus: readonly RequestStatus[],
  ): Promise<Set<number>> {
    if (expectedStatus.length === 0) {
      await this.#checkedRead(id, expectedStatus);
      throw conflict(id, expectedStatus);
    }
    const { condition, names, values } = statusCondition(expectedStatus);
    try {
      // UPDATED_OLD: only the charged pages come back, not the whole record.
      const { Attributes: old } = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: this.#metaKey(id),
          UpdateExpression: 'ADD #charged :pages',
          ConditionExpression: condition,
          ExpressionAttributeNames: { ...names, '#charged': CHARGED_PAGES },
          ExpressionAttributeValues: { ...values, ':pages': new Set(pages) },
          ReturnValues: 'UPDATED_OLD',
        }),
      );
      const charged: unknown = old?.[CHARGED_PAGES];
      const before = new Set(
        charged instanceof Set ? [...(charged as Set<number>)].map(Number) : [],
      );
      const known = this.#records?.get(id);
      if (known) {
        const after = new Set([...before, ...pages]);
        this.#records?.set(id, { ...known, chargedPages: [...after].sort((a, b) => a - b) });
      }
      return before;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      if ((await this.get(id)) === undefined) throw notFound(id, error);
      throw conflict(id, expectedStatus, error);
    }
  }

  async unchargePage(
    id: string,
    pageNumber: number,
    expectedStatus: readonly RequestStatus[],
  ): Promise<boolean> {
    pageSk(pageNumber);
    if (expectedStatus.length === 0) {
      await this.#checkedRead(id, undefined);
      return false;
    }
    const { condition, names, values } = statusCondition(expectedStatus);
    return this.#updateIf(id, {
      UpdateExpression: 'DELETE #charged :page',
      ConditionExpression: `${condition} AND contains(#charged, :n)`,
      ExpressionAttributeNames: { ...names, '#charged': CHARGED_PAGES },
      ExpressionAttributeValues: {
        ...values,
        ':page': new Set([pageNumber]),
        ':n': pageNumber,
      },
    });
  }

  /**
   * One conditional update of the request's record; the record it leaves is remembered.
   * @returns true when written, false when the condition failed on an existing record.
   * @throws {NotFoundError} when the request does not exist.
   */
  async #updateIf(
    id: string,
    update: Omit<UpdateCommandInput, 'TableName' | 'Key' | 'ReturnValues'>,
  ): Promise<boolean> {
    try {
      const { Attributes: attributes } = await this.#client.send(
        new UpdateCommand({
          ...update,
          TableName: this.#tableName,
          Key: this.#metaKey(id),
          ReturnValues: 'ALL_NEW',
        }),
      );
      if (attributes) this.#remember(toRecord(attributes));
      return true;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      if ((await this.get(id)) === undefined) throw notFound(id, error);
      return false;
    }
  }

  /**
   * The page is stored as its JSON, gzip-compressed, in one binary attribute (`pageJsonGzip`): a
   * page holds hundreds of grounding entries, and a nested map costs far more to marshal and
   * validate than one value, while nothing queries inside it. Compressed, a page of text takes
   * about a fifth of the write capacity and of DynamoDB's 400 KB item limit that its JSON would.
   * Items written as a JSON string (`pageJson`) are still read.
   */
  async putPage(requestId: string, checkpoint: PageCheckpoint): Promise<void> {
    const { page, ...rest } = checkpoint;
    // The page's JSON is made once, for the item and for the copy remembered as its only writer.
    const pageJson = page === undefined ? undefined : JSON.stringify(page);
    const gzipped =
      pageJson === undefined ? undefined : gzipSync(pageJson, { level: PAGE_GZIP_LEVEL });
    await this.#client.send(
      new PutCommand({
        TableName: this.#tableName,
        Item: {
          ...rest,
          ...(gzipped === undefined ? {} : { [PAGE_GZIP]: gzipped }),
          [PARTITION_KEY]: requestPk(requestId),
          [SORT_KEY]: pageSk(checkpoint.pageNumber),
          // Page text is document content: kept for the retention, like the record.
          [TTL_ATTRIBUTE]: expiryOf(this.#retention),
        },
      }),
    );
    this.#pages
      ?.get(requestId)
      ?.set(checkpoint.pageNumber, { rest: JSON.stringify(rest), page: pageJson });
  }

  async listPages(requestId: string): Promise<PageCheckpoint[]> {
    const written = this.#pages?.get(requestId);
    if (written) {
      return [...written.values()]
        .map(({ rest, page }) => {
          const checkpoint = JSON.parse(rest) as PageCheckpoint;
          if (page !== undefined) checkpoint.page = JSON.parse(page) as Page;
          return checkpoint;
        })
        .sort((a, b) => a.pageNumber - b.pageNumber);
    }
    const items = await this.#queryPages(requestId);
    const checkpoints = items.map((item) => {
      const { pageJson, [PAGE_GZIP]: gzipped, ...rest } = fromItem(item) as Record<string, unknown>;
      const checkpoint = rest as unknown as PageCheckpoint;
      if (gzipped instanceof Uint8Array) {
        checkpoint.page = JSON.parse(gunzipSync(gzipped).toString('utf8')) as Page;
      } else if (typeof pageJson === 'string') {
        checkpoint.page = JSON.parse(pageJson) as Page;
      }
      return checkpoint;
    });
    return checkpoints.sort((a, b) => a.pageNumber - b.pageNumber);
  }

  async deletePages(requestId: string): Promise<void> {
    const keys = (await this.#queryPages(requestId, true)).map((item) => ({
      [PARTITION_KEY]: item[PARTITION_KEY],
      [SORT_KEY]: item[SORT_KEY],
    }));
    for (let start = 0; start < keys.length; start += BATCH_WRITE_LIMIT) {
      await this.#deleteBatch(keys.slice(start, start + BATCH_WRITE_LIMIT));
    }
    this.#pages?.get(requestId)?.clear();
  }

  async #checkedRead(
    id: string,
    expectedStatus: readonly RequestStatus[] | undefined,
  ): Promise<RequestRecord> {
    const record = await this.get(id);
    if (!record) throw notFound(id);
    if (expectedStatus && !expectedStatus.includes(record.status)) {
      throw conflict(id, expectedStatus);
    }
    return record;
  }

  #queryPages(requestId: string, keysOnly = false): Promise<Item[]> {
    return queryAll(this.#client, {
      TableName: this.#tableName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: { ':pk': requestPk(requestId), ':prefix': PAGE_SK_PREFIX },
      ProjectionExpression: keysOnly ? '#pk, #sk' : undefined,
      ConsistentRead: true,
    });
  }

  /** Deletes up to 25 items, retrying what DynamoDB leaves unprocessed with backoff. */
  async #deleteBatch(keys: Item[]): Promise<void> {
    let requests = keys.map((key) => ({ DeleteRequest: { Key: key } }));
    for (let attempt = 1; requests.length > 0; attempt++) {
      if (attempt > BATCH_WRITE_ATTEMPTS) {
        // Fall back to single deletes so a throttled table still ends up clean.
        for (const request of requests) {
          await this.#client.send(
            new DeleteCommand({ TableName: this.#tableName, Key: request.DeleteRequest.Key }),
          );
        }
        return;
      }
      if (attempt > 1) await sleep(Math.min(50 * 2 ** attempt, 2_000));
      const { UnprocessedItems: unprocessed } = await this.#client.send(
        new BatchWriteCommand({ RequestItems: { [this.#tableName]: requests } }),
      );
      requests = (unprocessed?.[this.#tableName] ?? []).flatMap((request) =>
        request.DeleteRequest?.Key ? [{ DeleteRequest: { Key: request.DeleteRequest.Key } }] : [],
      );
    }
  }

  #metaKey(id: string): Item {
    return { [PARTITION_KEY]: requestPk(id), [SORT_KEY]: META_SK };
  }
}

function notFound(id: string, cause?: unknown): NotFoundError {
  return new NotFoundError(`request ${id} does not exist`, {
    ...(cause === undefined ? {} : { cause }),
    details: { requestId: id },
  });
}

function conflict(
  id: string,
  expectedStatus: readonly RequestStatus[],
  cause?: unknown,
): ConflictError {
  return new ConflictError(
    `request ${id} is not in an expected status (${expectedStatus.join(', ') || 'none'})`,
    {
      ...(cause === undefined ? {} : { cause }),
      details: { requestId: id, expectedStatus: [...expectedStatus] },
    },
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The condition that the record exists and its status is one of `expected` (not empty). */
function statusCondition(expected: readonly RequestStatus[]): {
  condition: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  const values: Record<string, unknown> = {};
  const placeholders = expected.map((status, index) => {
    values[`:s${index}`] = status;
    return `:s${index}`;
  });
  return {
    condition: `attribute_exists(#pk) AND #status IN (${placeholders.join(', ')})`,
    names: { '#pk': PARTITION_KEY, '#status': 'status' },
    values,
  };
}

/** The record as an item: `chargedPages` as a number set, left out when empty. */
function withChargedSet(record: RequestRecord): Item {
  const { chargedPages, ...rest } = record;
  return chargedPages && chargedPages.length > 0
    ? { ...rest, [CHARGED_PAGES]: new Set(chargedPages) }
    : rest;
}
