import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../core/ports/clock.js';
import type { EventLog, LoggedEvent, ProgressEvent } from '../../core/ports/event-log.js';
import {
  MAX_EVENT_SEQ,
  eventSk,
  fromItem,
  isConditionalCheckFailed,
  queryAll,
  requestPk,
  type Item,
} from './dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY } from './service-table.js';

/** Attempts at claiming a sequence number before an append gives up. */
const MAX_CLAIM_ATTEMPTS = 50;
/** Requests whose last sequence number is remembered by this process. */
const REMEMBERED_REQUESTS = 1000;

const systemClock: Clock = { now: () => new Date() };

/**
 * The per-request event log in the service table: `REQ#<id>` / `EVT#0000000001`, ...
 *
 * An append claims the next sequence number with a conditional put (`attribute_not_exists`):
 * one write per event. The last number this process wrote for a request is remembered, and the
 * appends this process makes for one request are queued, so they never race each other; when
 * another writer (another Lambda) took the number first, the append reads the newest event and
 * tries the following number. Because a number is claimed only after every smaller
 * one was written, readers never see event `n + 1` before event `n`, and there are no gaps.
 */
export class DynamoDbEventLog implements EventLog {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #clock: Clock;
  readonly #lastSeq = new Map<string, number>();
  /** The latest pending append of each request, which the next one waits for. */
  readonly #tails = new Map<string, Promise<number>>();

  /**
   * @param client a document client marshalling with `removeUndefinedValues: true`
   *   (see `createDocumentClient`).
   * @param tableName the service table (see `serviceTable`).
   * @param clock stamps `at` on appended events.
   */
  constructor(client: DynamoDBDocumentClient, tableName: string, clock: Clock = systemClock) {
    this.#client = client;
    this.#tableName = tableName;
    this.#clock = clock;
  }

  append(requestId: string, event: ProgressEvent): Promise<number> {
    // Appends of one request made in this process are written one after the other: racing
    // them would only make all but one fail their condition and read the log again.
    const previous = this.#tails.get(requestId);
    const appended = (previous ?? Promise.resolve(0))
      .catch(() => 0)
      .then(() => this.#claim(requestId, event));
    this.#tails.set(requestId, appended);
    const forget = () => {
      if (this.#tails.get(requestId) === appended) this.#tails.delete(requestId);
    };
    appended.then(forget, forget);
    return appended;
  }

  /** Writes `event` under the next free sequence number. */
  async #claim(requestId: string, event: ProgressEvent): Promise<number> {
    let seq = (this.#lastSeq.get(requestId) ?? (await this.#newestSeq(requestId))) + 1;
    for (let attempt = 1; ; attempt++) {
      const logged: LoggedEvent = { seq, at: this.#clock.now().toISOString(), body: event };
      try {
        await this.#client.send(
          new PutCommand({
            TableName: this.#tableName,
            Item: { ...logged, [PARTITION_KEY]: requestPk(requestId), [SORT_KEY]: eventSk(seq) },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': PARTITION_KEY },
          }),
        );
        this.#remember(requestId, seq);
        return seq;
      } catch (error) {
        if (!isConditionalCheckFailed(error) || attempt >= MAX_CLAIM_ATTEMPTS) throw error;
        seq = Math.max(seq, await this.#newestSeq(requestId)) + 1;
      }
    }
  }

  /** {@inheritDoc EventLog.opened} */
  opened(requestId: string): void {
    if (!this.#lastSeq.has(requestId)) this.#remember(requestId, 0);
  }

  #remember(requestId: string, seq: number): void {
    this.#lastSeq.delete(requestId);
    this.#lastSeq.set(requestId, seq);
    if (this.#lastSeq.size > REMEMBERED_REQUESTS) {
      const oldest = this.#lastSeq.keys().next();
      if (oldest.done !== true) this.#lastSeq.delete(oldest.value);
    }
  }

  async list(requestId: string, afterSeq = 0): Promise<LoggedEvent[]> {
    const from = Math.max(1, Math.floor(afterSeq) + 1);
    if (from > MAX_EVENT_SEQ) return [];
    // BETWEEN keeps the range inside `EVT#...`: the counter item (`EVTSEQ`) sorts after it.
    const items = await queryAll(this.#client, {
      TableName: this.#tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: {
        ':pk': requestPk(requestId),
        ':from': eventSk(from),
        ':to': eventSk(MAX_EVENT_SEQ),
      },
      ConsistentRead: true,
    });
    return items.map((item) => fromItem(item) as unknown as LoggedEvent);
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
        ProjectionExpression: 'seq',
      }),
    );
    const seq = (items?.[0] as Item | undefined)?.seq;
    return typeof seq === 'number' ? seq : 0;
  }
}
