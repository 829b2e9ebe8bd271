import { processBatchItem } from '../core/app/batch.js';
import { logger as sharedLogger } from '../observability/logger.js';
import { deps, type Deps } from '../container.js';
import { sqsConsumer } from './sqs-consumer.js';
import { outboundOf } from '../outbound-http.js';

type Log = Pick<typeof sharedLogger, 'info' | 'warn' | 'error'>;

/**
 * Consumer of the batch queue: one document of a batch per message (see `processBatchItem`),
 * downloaded with the SSRF-hardened fetcher (hosts of `URL_FETCH_ALLOWLIST` exempt, for tests)
 * and parsed like POST /v1/parse, waiting for the parse to end. Malformed messages and messages
 * naming no item are logged and dropped; other failures reject, so SQS delivers the message
 * again (the item is then resumed where it was, never parsed twice).
 */
export const createHandler = (getDeps: () => Promise<Deps>, log: Log = sharedLogger) =>
  sqsConsumer(
    getDeps,
    async (record, d) => {
      const receiveCount = Number(record.attributes.ApproximateReceiveCount) || 1;
      const outcome = await processBatchItem(d, outboundOf(d).documents, record.body, {
        receiveCount,
      });
      const fields = { messageId: record.messageId };
      switch (outcome.kind) {
        case 'malformed':
          log.warn('batch message dropped: malformed', { ...fields, problem: outcome.problem });
          return;
        case 'unknown':
          log.warn('batch message dropped: no such item', { ...fields, ...outcome });
          return;
        case 'ended':
          log.info('batch item had ended already', { ...fields, status: outcome.status });
          return;
        case 'processed':
          log.info('batch item ended', { ...fields, ...outcome });
          return;
      }
    },
    { logger: log },
  );

export const handler = createHandler(deps);
