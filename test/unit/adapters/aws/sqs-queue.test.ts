import {
  QueueDoesNotExist,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  type SendMessageBatchCommandInput,
  type SendMessageBatchCommandOutput,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqsQueue } from '../../../../functions/adapters/aws/sqs-queue.js';
import { QueueSendError, type QueueEntry } from '../../../../functions/core/ports/queue.js';
import { describeQueueContract, type ReceivedMessage } from '../../../contract/queue.contract.js';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/batch-items';

const sqs = mockClient(SQSClient);
const queue = (options?: ConstructorParameters<typeof SqsQueue>[2]) =>
  new SqsQueue(new SQSClient({}), QUEUE_URL, { retryDelayMs: 0, ...options });

/** A SendMessageBatch answer: every entry successful except those in `failed`. */
function batchResult(
  input: SendMessageBatchCommandInput,
  failed: Record<string, { code?: string; senderFault?: boolean }> = {},
): SendMessageBatchCommandOutput {
  const entries = input.Entries ?? [];
  return {
    Successful: entries
      .filter((e) => !(e.Id! in failed))
      .map((e) => ({ Id: e.Id, MessageId: `msg-${e.Id!}`, MD5OfMessageBody: '' })),
    Failed: entries
      .filter((e) => e.Id! in failed)
      .map((e) => ({
        Id: e.Id,
        Code: failed[e.Id!]?.code ?? 'InternalError',
        Message: 'try again',
        SenderFault: failed[e.Id!]?.senderFault ?? false,
      })),
    $metadata: {},
  };
}

const entries = (count: number): QueueEntry[] =>
  [...Array(count).keys()].map((i) => ({
    id: `m${String(i).padStart(2, '0')}`,
    body: { i },
  }));

/** The entry ids of each SendMessageBatch call, in call order. */
const batchIds = () =>
  sqs
    .commandCalls(SendMessageBatchCommand)
    .map((c) => (c.args[0].input.Entries ?? []).map((e) => e.Id));

beforeEach(() => {
  sqs.reset();
});

afterEach(() => {
  vi.useRealTimers();
});

/** What SQS received, read back from the commands sent. */
function receivedOnTheWire(): ReceivedMessage[] {
  const attributes = (wire: Record<string, { StringValue?: string }> | undefined) =>
    Object.fromEntries(Object.entries(wire ?? {}).map(([k, v]) => [k, v.StringValue ?? '']));
  return [
    ...sqs.commandCalls(SendMessageCommand).map((c) => ({
      body: c.args[0].input.MessageBody ?? '',
      attributes: attributes(c.args[0].input.MessageAttributes),
    })),
    ...sqs.commandCalls(SendMessageBatchCommand).flatMap((c) =>
      (c.args[0].input.Entries ?? []).map((e) => ({
        body: e.MessageBody ?? '',
        attributes: attributes(e.MessageAttributes),
      })),
    ),
  ];
}

describeQueueContract('SqsQueue', () => {
  sqs.reset();
  sqs.on(SendMessageCommand).resolves({ MessageId: 'msg-1' });
  sqs
    .on(SendMessageBatchCommand)
    .callsFake((input: SendMessageBatchCommandInput) => batchResult(input));
  return { queue: queue(), received: () => Promise.resolve(receivedOnTheWire()) };
});

describe('SqsQueue', () => {
  it('sends the body as JSON and the attributes as String message attributes', async () => {
    // Arrange
    sqs.on(SendMessageCommand).resolves({ MessageId: 'msg-1' });
    // Act
    await queue().send({
      body: { requestId: 'req_1', pages: [1, 2] },
      attributes: { tenant: 'tenant-a', kind: 'webhook' },
      delaySeconds: 30,
    });
    // Assert
    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input).toEqual({
      QueueUrl: QUEUE_URL,
      MessageBody: '{"requestId":"req_1","pages":[1,2]}',
      MessageAttributes: {
        tenant: { DataType: 'String', StringValue: 'tenant-a' },
        kind: { DataType: 'String', StringValue: 'webhook' },
      },
      DelaySeconds: 30,
    });
  });

  it('leaves out attributes and delay when the message has none', async () => {
    // Arrange
    sqs.on(SendMessageCommand).resolves({ MessageId: 'msg-1' });
    // Act
    await queue().send({ body: 'ping' });
    // Assert
    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input).toEqual({
      QueueUrl: QUEUE_URL,
      MessageBody: '"ping"',
    });
  });

  it('throws QueueSendError with the service error as cause when a message is refused', async () => {
    // Arrange
    const refusal = new QueueDoesNotExist({ message: 'no such queue', $metadata: {} });
    sqs.on(SendMessageCommand).rejects(refusal);
    // Act
    const sent = queue().send({ body: 1 });
    // Assert
    await expect(sent).rejects.toBeInstanceOf(QueueSendError);
    await expect(sent).rejects.toMatchObject({ failures: [], cause: refusal });
  });

  it('sends many messages in batches of ten, each entry with its id, body and attributes', async () => {
    // Arrange
    sqs
      .on(SendMessageBatchCommand)
      .callsFake((input: SendMessageBatchCommandInput) => batchResult(input));
    const messages = entries(25).map((e) => ({
      ...e,
      attributes: { tenant: 't' },
      delaySeconds: 5,
    }));
    // Act
    await queue().sendMany(messages);
    // Assert
    expect(batchIds().map((ids) => ids.length)).toEqual([10, 10, 5]);
    expect(batchIds().flat()).toEqual(messages.map((m) => m.id));
    expect(sqs.commandCalls(SendMessageBatchCommand)[2]?.args[0].input.Entries?.[4]).toEqual({
      Id: 'm24',
      MessageBody: '{"i":24}',
      MessageAttributes: { tenant: { DataType: 'String', StringValue: 't' } },
      DelaySeconds: 5,
    });
    expect(sqs.commandCalls(SendMessageBatchCommand)[0]?.args[0].input.QueueUrl).toBe(QUEUE_URL);
  });

  it('retries only the entries a batch reports as failed, then resolves', async () => {
    // Arrange
    sqs
      .on(SendMessageBatchCommand)
      .callsFakeOnce((input: SendMessageBatchCommandInput) =>
        batchResult(input, { m03: {}, m07: {} }),
      )
      .callsFake((input: SendMessageBatchCommandInput) => batchResult(input));
    // Act
    await queue().sendMany(entries(10));
    // Assert
    expect(batchIds()).toEqual([entries(10).map((e) => e.id), ['m03', 'm07']]);
  });

  it('throws QueueSendError naming the entries still failing after the last attempt', async () => {
    // Arrange
    sqs
      .on(SendMessageBatchCommand)
      .callsFake((input: SendMessageBatchCommandInput) =>
        batchResult(input, { m17: {}, m03: { code: 'KmsThrottled' } }),
      );
    // Act
    const sent = queue({ maxAttempts: 3 }).sendMany(entries(20));
    // Assert
    const error = await sent.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueSendError);
    expect((error as QueueSendError).failedIds).toEqual(['m03', 'm17']);
    expect((error as QueueSendError).failures[0]).toEqual({
      id: 'm03',
      code: 'KmsThrottled',
      message: 'try again',
      senderFault: false,
    });
    expect((error as QueueSendError).message).toMatch(
      /did not take 2 of 20 messages: m03 \(KmsThrottled\), m17/,
    );
    // Each group: one full send, then two retries of its failed entry.
    expect(batchIds()).toEqual([
      entries(10).map((e) => e.id),
      ['m03'],
      ['m03'],
      entries(20)
        .slice(10)
        .map((e) => e.id),
      ['m17'],
      ['m17'],
    ]);
  });

  it('does not retry an entry the queue blames on the sender', async () => {
    // Arrange
    sqs
      .on(SendMessageBatchCommand)
      .callsFake((input: SendMessageBatchCommandInput) =>
        batchResult(input, { m01: { code: 'InvalidParameterValue', senderFault: true } }),
      );
    // Act
    const sent = queue().sendMany(entries(3));
    // Assert
    await expect(sent).rejects.toMatchObject({
      failures: [{ id: 'm01', code: 'InvalidParameterValue', senderFault: true }],
    });
    expect(batchIds()).toEqual([['m00', 'm01', 'm02']]);
  });

  it('counts an entry the answer does not mention as failed', async () => {
    // Arrange
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    // Act
    const sent = queue({ maxAttempts: 1 }).sendMany(entries(1));
    // Assert
    await expect(sent).rejects.toMatchObject({
      failures: [{ id: 'm00', code: 'MissingResult', senderFault: false }],
    });
  });

  it('retries a group whose whole request failed and still sends the other groups', async () => {
    // Arrange
    sqs
      .on(SendMessageBatchCommand)
      .rejectsOnce(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }))
      .rejectsOnce(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }))
      .callsFake((input: SendMessageBatchCommandInput) => batchResult(input));
    // Act
    await queue({ maxAttempts: 3 }).sendMany(entries(12));
    // Assert
    expect(batchIds().map((ids) => ids.length)).toEqual([10, 10, 10, 2]);
  });

  it('reports every entry of a request the queue refuses, without retrying it', async () => {
    // Arrange
    sqs
      .on(SendMessageBatchCommand)
      .rejects(new QueueDoesNotExist({ message: 'no such queue', $metadata: {} }));
    // Act
    const sent = queue().sendMany(entries(2));
    // Assert
    await expect(sent).rejects.toMatchObject({
      failedIds: ['m00', 'm01'],
      failures: [
        { id: 'm00', code: 'QueueDoesNotExist', senderFault: true },
        { id: 'm01', code: 'QueueDoesNotExist', senderFault: true },
      ],
    });
    expect(batchIds()).toHaveLength(1);
  });

  it('waits before each retry, twice as long as before', async () => {
    // Arrange
    vi.useFakeTimers();
    sqs
      .on(SendMessageBatchCommand)
      .callsFake((input: SendMessageBatchCommandInput) => batchResult(input, { m00: {} }));
    const sent = queue({ retryDelayMs: 100, maxAttempts: 3 }).sendMany(entries(1));
    const outcome = sent.catch((e: unknown) => e);
    // Act / Assert
    await vi.advanceTimersByTimeAsync(99);
    expect(batchIds()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(batchIds()).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(199);
    expect(batchIds()).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(batchIds()).toHaveLength(3);
    expect(await outcome).toBeInstanceOf(QueueSendError);
  });

  it('refuses a queue URL that is not one, and fewer than one attempt', () => {
    // Act / Assert
    expect(() => new SqsQueue(new SQSClient({}), 'batch-items')).toThrow(/not a queue URL/);
    expect(() => new SqsQueue(new SQSClient({}), QUEUE_URL, { maxAttempts: 0 })).toThrow(
      /maxAttempts must be a positive integer/,
    );
  });
});
