import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { Queue, QueueEntry, QueueMessage } from '../../core/ports/queue.js';
import { encodeEntries, encodeMessage, type EncodedMessage } from '../queue-message.js';
import { logger } from '../../observability/logger.js';

/** A message as the consumer receives it. */
export interface InProcessMessage {
  /** A new UUID per message, the same on every delivery of it. */
  readonly messageId: string;
  /** The body's JSON text, as SQS delivers it. */
  readonly body: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** Deliveries of this message so far, this one included (1 on the first). */
  readonly receiveCount: number;
  readonly sentAt: Date;
}

/** Handles one message; a rejection is a failed delivery. */
export type InProcessConsumer = (message: InProcessMessage) => Promise<void>;

/** A message given up on after `maxReceiveCount` failed deliveries, with the last error. */
export interface DeadLetter {
  readonly message: InProcessMessage;
  readonly error: unknown;
}

/** Options of {@link InProcessQueue}. */
export interface InProcessQueueOptions {
  /**
   * Handles one message; a rejection is a failed delivery.
   * @default - none until {@link InProcessQueue.subscribe}: messages wait for it
   */
  consumer?: InProcessConsumer;
  /**
   * Deliveries running at once.
   * @default 1
   */
  concurrency?: number;
  /**
   * Deliveries of a message before it is dead-lettered (SQS's redrive `maxReceiveCount`).
   * @default 3
   */
  maxReceiveCount?: number;
  /**
   * Milliseconds before a failed message is delivered again; doubled after each further failure.
   * @default 1000
   */
  backoffMs?: number;
  /**
   * Longest wait between two deliveries of a message, in milliseconds.
   * @default 30000
   */
  maxBackoffMs?: number;
  /**
   * Called with each dead-lettered message (an error it throws is logged and ignored).
   * @default - none; dead letters are only kept in {@link InProcessQueue.deadLetters}
   */
  onDeadLetter?: (dead: DeadLetter) => void;
  /**
   * A JSON-lines file where every accepted message is recorded until it is handled or
   * dead-lettered, so that messages still waiting when the process ends (delayed, backing off,
   * running) are delivered again by the next queue on the same file: each after what was left of
   * its delay, and at least {@link RECOVERY_DELAY_MS} after the queue is created (its consumer's
   * dependencies are then ready). At-least-once, as SQS: a message being delivered when the
   * process died comes again.
   * @default - none; nothing survives the process
   */
  journal?: string;
}

/** The least wait before a message recovered from the journal is delivered. */
export const RECOVERY_DELAY_MS = 1000;

/** A line of the journal: a message accepted, or a message done with. */
type JournalLine =
  | {
      op: 'put';
      id: string;
      body: string;
      attributes: Record<string, string>;
      sentAt: string;
      /** When the message is due, ISO 8601. */
      dueAt: string;
    }
  | { op: 'done'; id: string };

/** Dead letters kept for inspection, the most recent ones. */
const MAX_DEAD_LETTERS = 1000;

interface Pending {
  messageId: string;
  encoded: EncodedMessage;
  sentAt: Date;
  receiveCount: number;
}

/**
 * The local-mode stand-in for an SQS queue with a dead-letter queue: messages are handed to one
 * consumer function in the same process, at most `concurrency` at a time, in the order they
 * become due. A delivery that fails is retried after a backoff, up to `maxReceiveCount`
 * deliveries in all; then the message is dead-lettered. Without a `journal`, nothing survives
 * the process: call {@link close} before exiting.
 */
export class InProcessQueue implements Queue {
  #consumer: InProcessConsumer | undefined;
  readonly #concurrency: number;
  readonly #maxReceiveCount: number;
  readonly #backoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #onDeadLetter: ((dead: DeadLetter) => void) | undefined;
  readonly #ready: Pending[] = [];
  readonly #deadLetters: DeadLetter[] = [];
  #idleWaiters: (() => void)[] = [];
  /** Timers of delayed messages and backoffs, cleared by {@link stop}. */
  readonly #timers = new Set<NodeJS.Timeout>();
  /** Deliveries under way, awaited by {@link stop}. */
  readonly #deliveries = new Set<Promise<void>>();
  /** Messages accepted and not yet handled or dead-lettered (due, delayed, backing off, running). */
  #outstanding = 0;
  #running = 0;
  #closed = false;
  readonly #journal: string | undefined;
  #recovered = 0;

  /** @throws {RangeError} when `concurrency` or `maxReceiveCount` is not a positive integer. */
  constructor(options: InProcessQueueOptions) {
    const concurrency = options.concurrency ?? 1;
    const maxReceiveCount = options.maxReceiveCount ?? 3;
    for (const [name, value] of [
      ['concurrency', concurrency],
      ['maxReceiveCount', maxReceiveCount],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) {
        throw new RangeError(`${name} must be a positive integer; got ${value}`);
      }
    }
    this.#consumer = options.consumer;
    this.#concurrency = concurrency;
    this.#maxReceiveCount = maxReceiveCount;
    this.#backoffMs = options.backoffMs ?? 1000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.#onDeadLetter = options.onDeadLetter;
    this.#journal = options.journal;
    if (this.#journal !== undefined) this.#recover(this.#journal);
  }

  /**
   * Sets the queue's consumer, when it was created without one (its dependencies did not exist
   * yet): messages accepted or recovered meanwhile are delivered from now on.
   * @throws {Error} when the queue has a consumer already.
   */
  subscribe(consumer: InProcessConsumer): void {
    if (this.#consumer !== undefined) throw new Error('the queue has a consumer already');
    this.#consumer = consumer;
    this.#pump();
  }

  /** Number of messages recovered from the journal when the queue was created. */
  get recovered(): number {
    return this.#recovered;
  }

  /** Rewrites the journal with its outstanding messages and schedules them again. */
  #recover(journal: string): void {
    mkdirSync(dirname(journal), { recursive: true });
    const outstanding = new Map<string, Extract<JournalLine, { op: 'put' }>>();
    if (existsSync(journal)) {
      for (const text of readFileSync(journal, 'utf8').split('\n')) {
        let line: JournalLine;
        try {
          line = JSON.parse(text) as JournalLine;
        } catch {
          // A line cut short by a crash: its message was never acknowledged as accepted.
          continue;
        }
        if (line.op === 'put') outstanding.set(line.id, line);
        else outstanding.delete(line.id);
      }
    }
    writeFileSync(journal, [...outstanding.values()].map((l) => JSON.stringify(l) + '\n').join(''));
    const now = Date.now();
    for (const line of outstanding.values()) {
      const pending: Pending = {
        messageId: line.id,
        encoded: { body: line.body, attributes: line.attributes, delaySeconds: 0 },
        sentAt: new Date(line.sentAt),
        receiveCount: 0,
      };
      this.#outstanding += 1;
      this.#recovered += 1;
      const wait = Math.max(RECOVERY_DELAY_MS, Date.parse(line.dueAt) - now);
      this.#later(() => {
        this.#enqueue(pending);
      }, wait);
    }
  }

  #record(line: JournalLine): void {
    if (this.#journal !== undefined) appendFileSync(this.#journal, JSON.stringify(line) + '\n');
  }

  /**
   * {@inheritDoc Queue.send}
   * @throws {Error} once the queue is closed.
   */
  send(message: QueueMessage): Promise<void> {
    return new Promise((resolve) => {
      this.#checkOpen();
      this.#accept(encodeMessage(message));
      resolve();
    });
  }

  /**
   * {@inheritDoc Queue.sendMany} In process every message is taken, so it never rejects with
   * `QueueSendError`.
   * @throws {Error} once the queue is closed.
   */
  sendMany(entries: readonly QueueEntry[]): Promise<void> {
    return new Promise((resolve) => {
      this.#checkOpen();
      for (const entry of encodeEntries(entries)) this.#accept(entry);
      resolve();
    });
  }

  /**
   * Resolves once every message accepted so far has been handled or dead-lettered, waiting for
   * delayed messages and backoffs too (messages sent meanwhile are waited for as well).
   */
  drain(): Promise<void> {
    if (this.#outstanding === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Waits as {@link drain} does (consumers may still send while it waits), then refuses further
   * messages.
   */
  async close(): Promise<void> {
    await this.drain();
    this.#closed = true;
  }

  /**
   * Refuses further messages, forgets the ones not yet due (delayed, backing off, waiting) and
   * resolves once the deliveries under way have ended. For queues whose messages may wait for
   * hours (webhook retries), where {@link close} would wait for them all.
   * @returns the number of messages forgotten.
   */
  async stop(): Promise<number> {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#ready.length = 0;
    const forgotten = this.#outstanding - this.#running;
    await Promise.all(this.#deliveries);
    return forgotten;
  }

  /** The dead-lettered messages, oldest first (the most recent 1000). */
  get deadLetters(): readonly DeadLetter[] {
    return [...this.#deadLetters];
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error('the queue is closed');
  }

  #accept(encoded: EncodedMessage): void {
    const pending: Pending = {
      messageId: randomUUID(),
      encoded,
      sentAt: new Date(),
      receiveCount: 0,
    };
    this.#record({
      op: 'put',
      id: pending.messageId,
      body: encoded.body,
      attributes: encoded.attributes,
      sentAt: pending.sentAt.toISOString(),
      dueAt: new Date(pending.sentAt.getTime() + encoded.delaySeconds * 1000).toISOString(),
    });
    this.#outstanding += 1;
    if (encoded.delaySeconds > 0) {
      this.#later(() => {
        this.#enqueue(pending);
      }, encoded.delaySeconds * 1000);
    } else {
      this.#enqueue(pending);
    }
  }

  #later(run: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    this.#timers.add(timer);
  }

  #enqueue(pending: Pending): void {
    this.#ready.push(pending);
    this.#pump();
  }

  #pump(): void {
    const consumer = this.#consumer;
    if (consumer === undefined) return;
    while (this.#running < this.#concurrency) {
      const next = this.#ready.shift();
      if (!next) return;
      this.#running += 1;
      const delivery = this.#deliver(consumer, next);
      this.#deliveries.add(delivery);
      void delivery.finally(() => this.#deliveries.delete(delivery));
    }
  }

  async #deliver(consumer: InProcessConsumer, pending: Pending): Promise<void> {
    pending.receiveCount += 1;
    const message: InProcessMessage = {
      messageId: pending.messageId,
      body: pending.encoded.body,
      attributes: { ...pending.encoded.attributes },
      receiveCount: pending.receiveCount,
      sentAt: pending.sentAt,
    };
    try {
      await consumer(message);
      this.#settle(pending);
    } catch (error) {
      if (pending.receiveCount >= this.#maxReceiveCount) {
        this.#deadLetter({ message, error });
        this.#settle(pending);
      } else {
        const wait = Math.min(
          this.#backoffMs * 2 ** (pending.receiveCount - 1),
          this.#maxBackoffMs,
        );
        this.#later(() => {
          this.#enqueue(pending);
        }, wait);
      }
    } finally {
      this.#running -= 1;
      this.#pump();
    }
  }

  #deadLetter(dead: DeadLetter): void {
    this.#deadLetters.push(dead);
    if (this.#deadLetters.length > MAX_DEAD_LETTERS) this.#deadLetters.shift();
    try {
      this.#onDeadLetter?.(dead);
    } catch (error) {
      logger.error('the dead-letter callback failed', { error });
    }
  }

  /** One message is done with; wakes `drain` callers when none is left. */
  #settle(pending: Pending): void {
    this.#record({ op: 'done', id: pending.messageId });
    this.#outstanding -= 1;
    if (this.#outstanding > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * An SQS event of one in-process message, for invoking an SQS consumer's Lambda handler in process
 * (`functions/pipeline/sqs-consumer.ts`).
 *
 * @example
 * const queue = new InProcessQueue({
 *   consumer: async (message) => {
 *     const { batchItemFailures } = await handler(toSqsEvent(message), lambdaContext('Consumer'));
 *     if (batchItemFailures.length > 0) throw new Error(`message ${message.messageId} failed`);
 *   },
 * });
 */
export function toSqsEvent(message: InProcessMessage, queueName = 'local-queue'): SQSEvent {
  const record: SQSRecord = {
    messageId: message.messageId,
    receiptHandle: message.messageId,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt.getTime()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(message.sentAt.getTime()),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.attributes).map(([name, value]) => [
        name,
        { dataType: 'String', stringValue: value },
      ]),
    ),
    md5OfBody: createHash('md5').update(message.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:local:000000000000:${queueName}`,
    awsRegion: 'local',
  };
  return { Records: [record] };
}
