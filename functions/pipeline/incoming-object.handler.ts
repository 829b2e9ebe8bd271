import { ingestObjects, type IngestOutcome } from '../core/app/ingest-object.js';
import { logger as sharedLogger } from '../observability/logger.js';
import { deps, type Deps } from '../container.js';
import { sqsConsumer } from './sqs-consumer.js';

type Log = Pick<typeof sharedLogger, 'info' | 'warn' | 'error'>;

/**
 * Consumer of the ingestion queue, fed by the bucket's `ObjectCreated` notifications for
 * `incoming/`: runs {@link ingestObjects} on each message and logs what became of every object.
 * Dropped objects are logged as warnings with their reason and are not retried; failures of the
 * stores or the workflow reject, so the message is delivered again (then dead-lettered).
 * Messages are handled one after the other: each may hold a document of up to the upload limit.
 */
export const createHandler = (getDeps: () => Promise<Deps>, log: Log = sharedLogger) =>
  sqsConsumer(
    getDeps,
    async (record, d) => {
      for (const outcome of await ingestObjects(d, record.body)) {
        logOutcome(log, record.messageId, outcome);
      }
    },
    { parallel: false, logger: log },
  );

export const handler = createHandler(deps);

function logOutcome(log: Log, messageId: string, outcome: IngestOutcome): void {
  switch (outcome.status) {
    case 'started':
      log.info('parse started for an incoming object', { messageId, ...outcome });
      return;
    case 'duplicate':
      log.info('incoming object already submitted; no new parse', { messageId, ...outcome });
      return;
    case 'ignored':
      log.info('queue message ignored', { messageId, ...outcome });
      return;
    case 'dropped':
      log.warn('incoming object dropped; it will not be parsed', { messageId, ...outcome });
      return;
  }
}
