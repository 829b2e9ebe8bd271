import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { sqsConsumer } from '../../../functions/pipeline/sqs-consumer.js';
import { lambdaContext } from '../../support/builders.js';

/** An SQS record as the event source mapping delivers it. */
function anSqsRecord(messageId: string, body: unknown): SQSRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body: JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1741064767000',
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: '1741064767000',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:batch-items',
    awsRegion: 'eu-west-1',
  };
}

const anSqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

const silent = () => ({ error: vi.fn() });

describe('sqsConsumer', () => {
  it('reports exactly the failing record among three in batchItemFailures', async () => {
    // Arrange
    const handled: string[] = [];
    const logger = silent();
    const handler = sqsConsumer(
      () => Promise.resolve({ prefix: 'seen:' }),
      (record, deps) => {
        const { n } = JSON.parse(record.body) as { n: number };
        if (n === 2) return Promise.reject(new Error('cannot handle 2'));
        handled.push(`${deps.prefix}${n}`);
        return Promise.resolve();
      },
      { logger },
    );
    const event = anSqsEvent(
      anSqsRecord('msg-1', { n: 1 }),
      anSqsRecord('msg-2', { n: 2 }),
      anSqsRecord('msg-3', { n: 3 }),
    );
    // Act
    const response = await handler(event, lambdaContext('consumer'));
    // Assert
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-2' }] });
    expect(handled.sort()).toEqual(['seen:1', 'seen:3']);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith(
      'queue message failed; it will be delivered again',
      expect.objectContaining({ messageId: 'msg-2', receiveCount: '1' }),
    );
  });

  it('answers an empty failure list when every record succeeds', async () => {
    // Arrange
    const handler = sqsConsumer(
      () => Promise.resolve({}),
      () => Promise.resolve(),
    );
    // Act
    const response = await handler(
      anSqsEvent(anSqsRecord('msg-1', {}), anSqsRecord('msg-2', {})),
      lambdaContext('consumer'),
    );
    // Assert
    expect(response).toEqual({ batchItemFailures: [] });
  });

  it('lists every record when all fail, instead of throwing', async () => {
    // Arrange
    const handler = sqsConsumer(
      () => Promise.resolve({}),
      () => Promise.reject(new Error('store down')),
      { logger: silent() },
    );
    // Act
    const response = await handler(
      anSqsEvent(anSqsRecord('msg-1', {}), anSqsRecord('msg-2', {})),
      lambdaContext('consumer'),
    );
    // Assert
    expect(response).toEqual({
      batchItemFailures: [{ itemIdentifier: 'msg-1' }, { itemIdentifier: 'msg-2' }],
    });
  });

  it('handles records one after the other when parallel is false', async () => {
    // Arrange
    const order: string[] = [];
    const handler = sqsConsumer(
      () => Promise.resolve({}),
      async (record) => {
        order.push(`start ${record.messageId}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`end ${record.messageId}`);
      },
      { parallel: false },
    );
    // Act
    await handler(
      anSqsEvent(anSqsRecord('msg-1', {}), anSqsRecord('msg-2', {})),
      lambdaContext('consumer'),
    );
    // Assert
    expect(order).toEqual(['start msg-1', 'end msg-1', 'start msg-2', 'end msg-2']);
  });

  it('hands the Lambda context to the record handler', async () => {
    // Arrange
    const context = lambdaContext('consumer');
    const seen: unknown[] = [];
    const handler = sqsConsumer(
      () => Promise.resolve({}),
      (_record, _deps, ctx) => {
        seen.push(ctx);
        return Promise.resolve();
      },
    );
    // Act
    await handler(anSqsEvent(anSqsRecord('msg-1', {})), context);
    // Assert
    expect(seen).toEqual([context]);
  });
});
