import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContextLogging, logger as sharedLogger } from '../observability/logger.js';

/** Options of {@link sqsConsumer}. */
export interface SqsConsumerOptions {
  /**
   * Handle the records of a batch at the same time (`true`) or one after the other (`false`, for
   * records that each hold much memory).
   * @default true
   */
  parallel?: boolean;
  /**
   * Where failed records are logged.
   * @default - the handlers' shared logger
   */
  logger?: Pick<typeof sharedLogger, 'error'>;
}

/**
 * The Lambda handler of an SQS queue's consumer (event source mapping with
 * `ReportBatchItemFailures`): each record is handled on its own by `handleRecord`, and the
 * records whose handling rejected are returned as `batchItemFailures`, so SQS delivers again
 * only those (and moves them to the dead-letter queue after the queue's `maxReceiveCount`).
 * Records that resolve are deleted from the queue, so `handleRecord` resolves for messages that
 * must not come back (malformed input) and rejects only for failures worth retrying.
 *
 * A batch whose every record fails is answered the same way (all ids listed) rather than by
 * throwing: the effect on SQS is the same and the response has one shape. Each failure is logged
 * with its message id. Only a failure to build the dependencies throws (the whole batch returns).
 *
 * @example
 * export const createHandler = (getDeps: () => Promise<Deps>) =>
 *   sqsConsumer(getDeps, async (record, deps) => {
 *     await deliverWebhook(deps, JSON.parse(record.body));
 *   });
 */
export function sqsConsumer<D>(
  getDeps: () => Promise<D>,
  handleRecord: (record: SQSRecord, deps: D, context: Context) => Promise<void>,
  options: SqsConsumerOptions = {},
) {
  const log = options.logger ?? sharedLogger;
  return middy<SQSEvent, SQSBatchResponse>()
    .use(lambdaContextLogging())
    .handler(async (event, context) => {
      const deps = await getDeps();
      // A processor holds one batch's state: one per invocation, so overlapping invocations in
      // one process (local mode) cannot mix their records.
      const processor = new BatchProcessor(EventType.SQS);
      return processPartialResponse(
        event,
        async (record: SQSRecord) => {
          try {
            await handleRecord(record, deps, context);
          } catch (error) {
            log.error('queue message failed; it will be delivered again', {
              messageId: record.messageId,
              receiveCount: record.attributes.ApproximateReceiveCount,
              error: error instanceof Error ? error : String(error),
            });
            throw error;
          }
        },
        processor,
        {
          context,
          throwOnFullBatchFailure: false,
          processInParallel: options.parallel ?? true,
        },
      );
    });
}
