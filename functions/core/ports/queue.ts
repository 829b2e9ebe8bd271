import { appError } from '../domain/errors.js';

/**
 * One message for a queue.
 *
 * Rules every adapter applies before sending anything (SQS's own limits, so that local mode
 * refuses what AWS would refuse):
 * - `body` must survive `JSON.stringify` (no `undefined`, functions, BigInt or cycles). Keep it
 *   small: carry ids and object keys, not document content (SQS caps a message, and a batch of
 *   ten together, at the queue's maximum message size).
 * - `attributes`: at most 10; names of 1-256 characters from `A-Z a-z 0-9 _ - .`, not starting
 *   with `AWS.` or `Amazon.` (any case), not starting or ending with `.`, without `..`; values
 *   non-empty.
 * - `delaySeconds`: an integer from 0 to 900.
 */
export interface QueueMessage {
  /** Any JSON-serialisable value; consumers receive its JSON text. */
  body: unknown;
  /** String attributes, delivered beside the body (SQS message attributes of type `String`). */
  attributes?: Readonly<Record<string, string>>;
  /** Seconds before the message can be received, 0-900. Default 0. */
  delaySeconds?: number;
}

/** A message of a {@link Queue.sendMany} call, named by the caller. */
export interface QueueEntry extends QueueMessage {
  /**
   * The caller's name for this message, unique within the call: 1-80 characters from
   * `A-Z a-z 0-9 _ -` (the SQS batch entry id rule). Failures are reported by it.
   */
  id: string;
}

/** A message the queue did not take. */
export interface QueueSendFailure {
  /** The {@link QueueEntry.id} of the message. */
  id: string;
  /** The queue's error code, e.g. `InternalError`, `InvalidParameterValue`. */
  code: string;
  message: string;
  /**
   * True when the queue blames the sender (the message, or the request as sent: invalid, too
   * large, no such queue): sending it again unchanged cannot succeed, so it is not retried.
   */
  senderFault: boolean;
}

/**
 * The queue did not take some messages, after retrying those worth retrying. For a
 * `sendMany` call, `failures` names each message not sent; every other message was sent. For a
 * `send` call, `failures` is empty and `cause` is the queue's error.
 */
export class QueueSendError extends appError('QueueSendError', 'transient') {
  readonly failures: readonly QueueSendFailure[];

  constructor(message: string, failures: readonly QueueSendFailure[], options?: ErrorOptions) {
    super(message, { ...options, details: { failedIds: failures.map((f) => f.id) } });
    this.failures = failures;
  }

  /** The ids of the messages not sent, in the order given to `sendMany`. */
  get failedIds(): string[] {
    return this.failures.map((f) => f.id);
  }
}

/**
 * A message queue (SQS on AWS, in process locally). Delivery is at least once and unordered:
 * consumers must be idempotent.
 */
export interface Queue {
  /**
   * Sends one message.
   * @throws {RangeError} when the message breaks the rules of {@link QueueMessage} (nothing sent).
   * @throws {QueueSendError} when the queue does not take it (after the client's own retries).
   */
  send(message: QueueMessage): Promise<void>;
  /**
   * Sends messages in groups of up to 10, retrying the messages the queue failed to take (a
   * bounded number of times, unless the message itself is at fault). Resolves when every
   * message was sent.
   * @throws {RangeError} when an entry breaks the rules of {@link QueueEntry} or two share an id
   *   (nothing sent).
   * @throws {QueueSendError} naming the messages still not sent; all others were sent.
   */
  sendMany(entries: readonly QueueEntry[]): Promise<void>;
}
