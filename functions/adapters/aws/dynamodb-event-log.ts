import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../core/ports/clock.js';
import type { EventLog, LoggedEvent, ProgressEvent } from '../../core/ports/event-log.js';
import {
  DEFAULT_RETENTION_DAYS,
  MAX_EVENT_SEQ,
  eventSk,
  expiryOf,
  fromItem,
  isConditionalCheckFailed,
  queryAll,
  requestPk,
  type Item,
} from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './service-table.js';
import { RecentlyUsed } from '../recently-used.js';
import { WriteQueues } from '../write-queues.js';

/** Attempts at claiming a sequence number before an append gives up. */
const MAX_CLAIM_ATTEMPTS = 50;
/** Requests whose last sequence number is remembered by this process. */
const REMEMBERED_REQUESTS = 1000;

const systemClock: Clock = { now: () => new Date() };

/** Most events written in one item: a burst of appends is stored together. */
const MAX_GROUP = 25;

/** Options of {@link DynamoDbEventLog}. */
export interface DynamoDbEventLogOptions {
  /** Stamps `at` on appended events. @default the system clock */
  readonly clock?: Clock;
  /**
   * Milliseconds an append that finds no write in flight waits before writing, so that the
   * events of a burst (a stage's start, its pages, its end) share one item. Progress readers
   * see events up to this much later; callers that await an append wait this much longer.
   * @default 0 (write at once)
   */
  readonly lingerMs?: number;
  /**
   * Days an event item is kept after it is written (`RETENTION_DAYS`): its TTL (`expiresAt`)
   * is the append's time (from {@link clock}) plus this.
   * @default 7
   */
  readonly retentionDays?: number;
}

/** An append waiting for its write. */
interface Pending {
  at: string;
  body: ProgressEvent;
  resolve: (seq: number) => void;
  reject: (error: unknown) => void;
}

/**
 * The per-request event log in the service table: `REQ#<id>` / `EVT#0000000001`, ...
 *
 * An append claims the next sequence number with a conditional put (`attribute_not_exists`).
 * The appends this process makes for one request are queued and written in the order made;
 * those that arrive while a write is in flight are written together when it ends, as one item
 * under the first one's number holding up to 25 events (`events`, numbered on from `seq` to
 * `lastSeq`). The last number this process wrote for a request is remembered; when another
 * writer (another Lambda) took it first, the append reads the newest item and tries the number
 * after it. Because a number is claimed only after every smaller one was written, readers
 * never see event `n + 1` before event `n`, and there are no gaps. With `lingerMs`, the first
 * append of a burst waits that long before its write, so that more of the burst joins it.
 */
export class DynamoDbEventLog implements EventLog {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #clock: Clock;
  readonly #retentionDays: number | undefined;
  readonly #lastSeq = new RecentlyUsed<string, number>({ maxEntries: REMEMBERED_REQUESTS });
  /** Appends waiting for a write, per request. */
  readonly #appends: WriteQueues<Pending>;

  /**
   * @param client a document client marshalling with `removeUndefinedValues: true`
   *   (see `createDocumentClient`).
   * @param tableName the service table (see `serviceTable`).
   */
  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    options: DynamoDbEventLogOptions = {},
  ) {
    this.#client = client;
    this.#tableName = tableName;
    this.#clock = options.clock ?? systemClock;
    this.#appends = new WriteQueues((requestId, queue) => this.#writeGroup(requestId, queue), {
      lingerMs: options.lingerMs ?? 0,
    });
    this.#retentionDays = options.retentionDays;
  }

  append(requestId: string, event: ProgressEvent): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const pending: Pending = {
        at: this.#clock.now().toISOString(),
        body: event,
        resolve,
        reject,
      };
      this.#appends.add(requestId, pending);
    });
  }

  /** Writes the next group of the request's queued appends and settles each. */
  async #writeGroup(requestId: string, queue: Pending[]): Promise<void> {
    const group = queue.splice(0, MAX_GROUP);
    try {
      const first = await this.#claim(requestId, group);
      group.forEach((pending, i) => {
        pending.resolve(first + i);
      });
    } catch (error) {
      for (const pending of group) pending.reject(error);
    }
  }

  /** Writes `group` under the next free sequence numbers; returns the first. */
  async #claim(requestId: string, group: readonly Pending[]): Promise<number> {
    let seq = (this.#lastSeq.get(requestId) ?? (await this.#newestSeq(requestId))) + 1;
    for (let attempt = 1; ; attempt++) {
      const last = seq + group.length - 1;
      const [only] = group;
      const content =
        group.length === 1 && only
          ? ({ seq, at: only.at, body: only.body } satisfies LoggedEvent)
          : { seq, lastSeq: last, events: group.map(({ at, body }) => ({ at, body })) };
      try {
        await this.#client.send(
          new PutCommand({
            TableName: this.#tableName,
            Item: {
              ...content,
              [PARTITION_KEY]: requestPk(requestId),
              [SORT_KEY]: eventSk(seq),
              [TTL_ATTRIBUTE]: this.#expiry(),
            },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': PARTITION_KEY },
          }),
        );
        this.#remember(requestId, last);
        return seq;
      } catch (error) {
        if (!isConditionalCheckFailed(error) || attempt >= MAX_CLAIM_ATTEMPTS) throw error;
        seq = Math.max(seq, await this.#newestSeq(requestId)) + 1;
      }
    }
  }

  /** The TTL of an event item written now. */
  #expiry(): number {
    return expiryOf({
      days: this.#retentionDays ?? DEFAULT_RETENTION_DAYS,
      now: () => this.#clock.now(),
    });
  }

  /** {@inheritDoc EventLog.opened} */
  opened(requestId: string): void {
    if (!this.#lastSeq.has(requestId)) this.#remember(requestId, 0);
  }

  #remember(requestId: string, seq: number): void {
    this.#lastSeq.set(requestId, seq);
  }

  async list(requestId: string, afterSeq = 0): Promise<LoggedEvent[]> {
    const after = Math.max(0, Math.floor(afterSeq));
    if (after >= MAX_EVENT_SEQ) return [];
    // A group item is keyed by its first event: start early enough to find the one holding
    // `after + 1`. BETWEEN keeps the range inside `EVT#...`.
    const items = await queryAll(this.#client, {
      TableName: this.#tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: {
        ':pk': requestPk(requestId),
        ':from': eventSk(Math.max(1, after + 2 - MAX_GROUP)),
        ':to': eventSk(MAX_EVENT_SEQ),
      },
      ConsistentRead: true,
    });
    return items.flatMap(eventsOf).filter((event) => event.seq > after);
  }

  /** The newest stored sequence number of the request, 0 when it has no events. */
  async #newestSeq(requestId: string): Promise<number> {
    const { Items: items } = await this.#client.send(
      new QueryCommand({
        TableName: this.#tableName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
        ExpressionAttributeValues: {
          ':pk': requestPk(requestId),
          ':from': eventSk(1),
          ':to': eventSk(MAX_EVENT_SEQ),
        },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
        ProjectionExpression: 'seq, lastSeq',
      }),
    );
    const item = items?.[0] as Item | undefined;
    const last = item?.lastSeq ?? item?.seq;
    return typeof last === 'number' ? last : 0;
  }
}

/** The events an item holds: one (`seq`, `at`, `body`) or a group (`seq`, `events`). */
function eventsOf(item: Item): LoggedEvent[] {
  const { seq, events } = fromItem(item) as { seq: number; events?: unknown };
  if (!Array.isArray(events)) return [fromItem(item) as unknown as LoggedEvent];
  return (events as { at: string; body: ProgressEvent }[]).map((event, i) => ({
    seq: seq + i,
    at: event.at,
    body: event.body,
  }));
}
