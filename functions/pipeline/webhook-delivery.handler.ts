import { handleWebhookMessage } from '../core/app/webhook-consumer.js';
import { logger as sharedLogger } from '../observability/logger.js';
import { ConfigError } from '../config.js';
import { deps, type Deps } from '../container.js';
import { sqsConsumer } from './sqs-consumer.js';
import { webhookHttpOf } from '../webhook-http.js';

type Log = Pick<typeof sharedLogger, 'info' | 'warn' | 'error'>;

/**
 * Consumer of the webhook queue: one delivery attempt per due message (see
 * `handleWebhookMessage`), signed with the tenant's secret, sent only to a public https address
 * checked before each attempt (hosts of `URL_FETCH_ALLOWLIST` exempt, for tests). Malformed
 * messages are logged and dropped; a failure to queue the next attempt rejects, so SQS delivers
 * the message again.
 */
export const createHandler = (getDeps: () => Promise<Deps>, log: Log = sharedLogger) =>
  sqsConsumer(
    getDeps,
    async (record, d) => {
      if (!d.webhooks || !d.webhookDeadLetters) {
        throw new ConfigError('the webhook queue and its dead-letter queue are not configured');
      }
      const outcome = await handleWebhookMessage(
        {
          sender: webhookHttpOf(d).webhooks,
          signer: webhookHttpOf(d).webhookSigner,
          secrets: d.webhookSecrets,
          clock: d.clock,
          requests: d.requests,
          batches: d.batches,
          webhooks: d.webhooks,
          deadLetters: d.webhookDeadLetters,
        },
        record.body,
      );
      const fields = { messageId: record.messageId };
      switch (outcome.kind) {
        case 'malformed':
          log.warn('webhook message dropped: malformed', { ...fields, problem: outcome.problem });
          return;
        case 'not_due':
          log.info('webhook attempt not due; message sent on', { ...fields, ...outcome });
          return;
        case 'attempted':
          if (outcome.decision.action === 'delivered') log.info('webhook delivered', fields);
          else log.warn('webhook attempt failed', { ...fields, ...outcome.decision });
          return;
      }
    },
    { logger: log },
  );

export const handler = createHandler(deps);
