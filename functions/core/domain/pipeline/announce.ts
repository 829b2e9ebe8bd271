import type { Queue } from '../../ports/queue.js';
import type { RequestRecord } from '../request.js';
import type { RequestStore } from '../../ports/request-store.js';
import {
  parseFinishedEvent,
  parseResultUrl,
  webhookEventId,
  type ParseOutcome,
  type WebhookDelivery,
} from '../webhooks.js';

/**
 * Queues the first delivery attempt of the event "this request finished" when the request has a
 * webhook, and records the event id on the request. Called by Deliver (completed) and
 * RecordFailure (failed), after the request's status is written.
 *
 * Safe to repeat: a request whose event id is already recorded is not announced again, and the
 * event id derives from the request and outcome, so a retried stage that announces before
 * recording sends the same `webhook-id`, which receivers deduplicate.
 * @throws {QueueSendError} when the queue does not take the message (the stage is retried).
 */
export async function announceFinished(
  ports: { requests: RequestStore; webhooks?: Queue; clock: { now(): Date } },
  record: RequestRecord,
  outcome: { status: 'completed' } | { status: 'failed'; error: { kind: string; detail: string } },
): Promise<void> {
  const webhook = record.webhook;
  if (!webhook || !ports.webhooks) return;
  const type = outcome.status === 'completed' ? 'parse.completed' : 'parse.failed';
  const eventId = webhookEventId(record.id, type);
  if (record.webhookEventId === eventId) return;
  const parseOutcome: ParseOutcome =
    outcome.status === 'completed'
      ? { status: 'completed', resultUrl: parseResultUrl(webhook.apiBaseUrl, record.id) }
      : outcome;
  const message: WebhookDelivery = {
    eventId,
    url: webhook.url,
    secretRef: record.tenant,
    payload: parseFinishedEvent(record.id, parseOutcome, ports.clock.now()),
    attempt: 1,
  };
  await ports.webhooks.send({ body: message });
  await ports.requests.update(record.id, { webhookEventId: eventId });
}
