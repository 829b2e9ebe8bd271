import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { createHandler } from '../../../functions/pipeline/incoming-object.handler.js';
import { TENANT, TINY_PDF, fakeDeps, lambdaContext } from '../../support/builders.js';
import { anS3EventRecord, anS3Notification, anS3TestEvent } from '../../support/s3-events.js';

/** An SQS event of the ingestion queue with one record per body. */
function anIngestionEvent(...bodies: string[]): SQSEvent {
  return {
    Records: bodies.map((body, i) => ({
      messageId: `msg-${i + 1}`,
      receiptHandle: `handle-${i + 1}`,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '1741064767000',
        SenderId: 'AROAEXAMPLE:S3-PROD-END',
        ApproximateFirstReceiveTimestamp: '1741064767000',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:incoming',
      awsRegion: 'eu-west-1',
    })),
  };
}

const aLog = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() });

describe('incoming-object handler', () => {
  it('starts valid objects, drops bad ones with a warning, and returns only failures to retry', async () => {
    // Arrange
    const deps = await fakeDeps();
    const good = `incoming/${TENANT}/report.pdf`;
    const unreadable = `incoming/${TENANT}/unreadable.pdf`;
    await deps.objects.put(good, TINY_PDF, 'application/pdf');
    const get = deps.objects.get.bind(deps.objects);
    vi.spyOn(deps.objects, 'get').mockImplementation((key) =>
      key === unreadable ? Promise.reject(new Error('SlowDown')) : get(key),
    );
    const log = aLog();
    const handler = createHandler(() => Promise.resolve(deps), log);
    const event = anIngestionEvent(
      anS3Notification(anS3EventRecord({ key: good })),
      anS3Notification(anS3EventRecord({ key: 'incoming/report.pdf' })),
      anS3Notification(anS3EventRecord({ key: unreadable })),
      anS3TestEvent(),
    );
    // Act
    const response = await handler(event, lambdaContext('IngestObject'));
    // Assert
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-3' }] });
    expect(deps.workflow.inputs).toHaveLength(1);
    expect(log.info).toHaveBeenCalledWith(
      'parse started for an incoming object',
      expect.objectContaining({ messageId: 'msg-1', status: 'started', tenant: TENANT, key: good }),
    );
    expect(log.warn).toHaveBeenCalledWith(
      'incoming object dropped; it will not be parsed',
      expect.objectContaining({
        messageId: 'msg-2',
        status: 'dropped',
        reason: expect.stringMatching(/^object keys must be incoming\/<tenant>\/<name>/) as unknown,
      }),
    );
    expect(log.error).toHaveBeenCalledWith(
      'queue message failed; it will be delivered again',
      expect.objectContaining({ messageId: 'msg-3' }),
    );
    expect(log.info).toHaveBeenCalledWith(
      'queue message ignored',
      expect.objectContaining({ messageId: 'msg-4', status: 'ignored' }),
    );
  });

  it('drops an object of an unknown tenant with a warning naming it, and does not retry it', async () => {
    // Arrange
    const deps = await fakeDeps();
    const key = 'incoming/nobody/report.pdf';
    await deps.objects.put(key, TINY_PDF, 'application/pdf');
    const log = aLog();
    const handler = createHandler(() => Promise.resolve(deps), log);
    // Act
    const response = await handler(
      anIngestionEvent(anS3Notification(anS3EventRecord({ key }))),
      lambdaContext('IngestObject'),
    );
    // Assert
    expect(response).toEqual({ batchItemFailures: [] });
    expect(deps.workflow.inputs).toEqual([]);
    expect(log.warn).toHaveBeenCalledWith('incoming object dropped; it will not be parsed', {
      messageId: 'msg-1',
      status: 'dropped',
      reason: expect.stringMatching(/^no tenant "nobody" exists/) as unknown,
      key,
    });
  });

  it('logs a redelivered event as a duplicate and starts nothing new', async () => {
    // Arrange
    const deps = await fakeDeps();
    const key = `incoming/${TENANT}/report.pdf`;
    await deps.objects.put(key, TINY_PDF, 'application/pdf');
    const log = aLog();
    const handler = createHandler(() => Promise.resolve(deps), log);
    const body = anS3Notification(anS3EventRecord({ key }));
    await handler(anIngestionEvent(body), lambdaContext('IngestObject'));
    const { requestId } = deps.workflow.inputs[0] as { requestId: string };
    await deps.workflow.wait(deps.workflow.executionIdFor(requestId));
    // Act
    const response = await handler(anIngestionEvent(body), lambdaContext('IngestObject'));
    // Assert
    expect(response).toEqual({ batchItemFailures: [] });
    expect(deps.workflow.inputs).toHaveLength(1);
    expect(deps.workflow.ran.filter((s) => s === 'Ingest')).toHaveLength(1);
    expect(log.info).toHaveBeenCalledWith(
      'incoming object already submitted; no new parse',
      expect.objectContaining({ status: 'duplicate', key }),
    );
  });
});
