import {
  SendMessageBatchCommand,
  SendMessageCommand,
  type MessageAttributeValue,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import {
  QueueSendError,
  type Queue,
  type QueueEntry,
  type QueueMessage,
  type QueueSendFailure,
} from '../../core/ports/queue.js';
import { encodeEntries, encodeMessage, type EncodedMessage } from '../queue-message.js';

/** SendMessageBatch takes at most 10 entries. */
const BATCH_LIMIT = 10;

/** Options of {@link SqsQueue}. */
export interface SqsQueueOptions {
  /**
   * Attempts at sending a message of a `sendMany` call that the queue failed to take (the first
   * attempt included). Messages the queue blames on the sender are not retried.
   * @default 3
   */
  maxAttempts?: number;
  /**
   * Milliseconds before the first retry of failed messages; doubled for each further retry.
   * @default 200
   */
  retryDelayMs?: number;
}

type Encoded = EncodedMessage & { id: string };

/**
 * A standard SQS queue. Bodies are sent as their JSON text and attributes as `String` message
 * attributes. The SDK client retries whole requests on its own (throttling, network); this
 * adapter also retries the entries a SendMessageBatch reports as failed.
 */
export class SqsQueue implements Queue {
  readonly #client: SQSClient;
  readonly #queueUrl: string;
  readonly #maxAttempts: number;
  readonly #retryDelayMs: number;

  /**
   * @param queueUrl `https://sqs.<region>.amazonaws.com/<account>/<name>` (any http(s) URL).
   * @throws {Error} when `queueUrl` is not an http(s) URL or `maxAttempts` is below 1.
   */
  constructor(client: SQSClient, queueUrl: string, options: SqsQueueOptions = {}) {
    if (!/^https?:\/\/[^/\s]+\/\S+$/.test(queueUrl)) {
      throw new Error(`not a queue URL: ${queueUrl}`);
    }
    const maxAttempts = options.maxAttempts ?? 3;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new Error(`maxAttempts must be a positive integer; got ${maxAttempts}`);
    }
    this.#client = client;
    this.#queueUrl = queueUrl;
    this.#maxAttempts = maxAttempts;
    this.#retryDelayMs = options.retryDelayMs ?? 200;
  }

  /** {@inheritDoc Queue.send} */
  async send(message: QueueMessage): Promise<void> {
    const encoded = encodeMessage(message);
    try {
      await this.#client.send(
        new SendMessageCommand({
          QueueUrl: this.#queueUrl,
          MessageBody: encoded.body,
          ...wireAttributes(encoded),
          ...(encoded.delaySeconds > 0 ? { DelaySeconds: encoded.delaySeconds } : {}),
        }),
      );
    } catch (error) {
      throw new QueueSendError(
        `the queue ${this.#queueUrl} did not take the message: ${describe(error)}`,
        [],
        { cause: error },
      );
    }
  }

  /** {@inheritDoc Queue.sendMany} */
  async sendMany(entries: readonly QueueEntry[]): Promise<void> {
    const encoded = encodeEntries(entries);
    const failures: QueueSendFailure[] = [];
    for (let start = 0; start < encoded.length; start += BATCH_LIMIT) {
      failures.push(...(await this.#sendGroup(encoded.slice(start, start + BATCH_LIMIT))));
    }
    if (failures.length === 0) return;
    const order = new Map(encoded.map((e, i) => [e.id, i]));
    failures.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    throw new QueueSendError(
      `the queue ${this.#queueUrl} did not take ${failures.length} of ${encoded.length} messages: ${failures
        .map((f) => `${f.id} (${f.code})`)
        .join(', ')}`,
      failures,
    );
  }

  /** Sends one group, retrying its failed entries; returns the entries still not sent. */
  async #sendGroup(group: readonly Encoded[]): Promise<QueueSendFailure[]> {
    const final: QueueSendFailure[] = [];
    let pending = group;
    for (let attempt = 1; pending.length > 0; attempt++) {
      const failed = await this.#sendBatch(pending);
      const retry = failed.filter((f) => !f.senderFault);
      final.push(...failed.filter((f) => f.senderFault));
      if (attempt >= this.#maxAttempts) {
        final.push(...retry);
        break;
      }
      const retryIds = new Set(retry.map((f) => f.id));
      pending = pending.filter((e) => retryIds.has(e.id));
      if (pending.length > 0) await sleep(this.#retryDelayMs * 2 ** (attempt - 1));
    }
    return final;
  }

  /** One SendMessageBatch call; every entry not reported successful is a failure. */
  async #sendBatch(group: readonly Encoded[]): Promise<QueueSendFailure[]> {
    let output;
    try {
      output = await this.#client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.#queueUrl,
          Entries: group.map((e): SendMessageBatchRequestEntry => ({
            Id: e.id,
            MessageBody: e.body,
            ...wireAttributes(e),
            ...(e.delaySeconds > 0 ? { DelaySeconds: e.delaySeconds } : {}),
          })),
        }),
      );
    } catch (error) {
      // The whole request failed, after the client's own retries.
      const { code, message, senderFault } = requestFailure(error);
      return group.map((e) => ({ id: e.id, code, message, senderFault }));
    }
    const failed = new Map<string | undefined, Omit<QueueSendFailure, 'id'>>(
      (output.Failed ?? []).map((f) => [
        f.Id,
        {
          code: f.Code ?? 'Unknown',
          message: f.Message ?? f.Code ?? 'no reason given',
          senderFault: f.SenderFault === true,
        },
      ]),
    );
    const succeeded = new Set((output.Successful ?? []).map((s) => s.Id));
    return group.flatMap((e) => {
      const failure = failed.get(e.id);
      if (failure) return [{ id: e.id, ...failure }];
      if (succeeded.has(e.id)) return [];
      return [
        {
          id: e.id,
          code: 'MissingResult',
          message: 'the queue reported neither success nor failure',
          senderFault: false,
        },
      ];
    });
  }
}

/** The `MessageAttributes` field for `encoded`, omitted when there are none. */
function wireAttributes(encoded: EncodedMessage): {
  MessageAttributes?: Record<string, MessageAttributeValue>;
} {
  const entries = Object.entries(encoded.attributes);
  if (entries.length === 0) return {};
  return {
    MessageAttributes: Object.fromEntries(
      entries.map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
    ),
  };
}

/** Code, message and fault side of a failed request. */
function requestFailure(error: unknown): Omit<QueueSendFailure, 'id'> {
  const { name, message, $fault, $retryable } = error as {
    name?: string;
    message?: string;
    $fault?: string;
    $retryable?: unknown;
  };
  return {
    code: name ?? 'Error',
    message: message ?? String(error),
    // The service blames the request (invalid, too long, no such queue) and not a passing
    // condition such as throttling: resending it cannot help.
    senderFault: $fault === 'client' && $retryable === undefined,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((wake) => setTimeout(wake, ms));
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
