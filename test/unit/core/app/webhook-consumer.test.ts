import { describe, expect, it } from 'vitest';
import { StandardWebhookSigner } from '../../../../functions/adapters/http/webhook-signer.js';
import { handleWebhookMessage } from '../../../../functions/core/app/webhook-consumer.js';
import { announceFinished } from '../../../../functions/core/domain/pipeline/announce.js';
import {
  parseFinishedEvent,
  WEBHOOK_MAX_ATTEMPTS,
  type WebhookDelivery,
} from '../../../../functions/core/domain/webhooks.js';
import type { Queue, QueueEntry, QueueMessage } from '../../../../functions/core/ports/queue.js';
import type {
  WebhookResponse,
  WebhookSender,
} from '../../../../functions/core/ports/webhook-sender.js';
import { ManualClock, T0, aRequestRecord } from '../../../support/builders.js';
import { InMemoryRequestStore, InMemoryWebhookSecretStore } from '../../../support/fakes.js';

/** A queue that keeps what it is sent. */
class RecordingQueue implements Queue {
  readonly sent: QueueMessage[] = [];
  send(message: QueueMessage): Promise<void> {
    this.sent.push(message);
    return Promise.resolve();
  }
  sendMany(entries: readonly QueueEntry[]): Promise<void> {
    this.sent.push(...entries);
    return Promise.resolve();
  }
}

/** Answers each call with the next status of its script (the last one repeats). */
class ScriptedSender implements WebhookSender {
  readonly urls: string[] = [];
  readonly #statuses: number[];
  constructor(statuses: number[]) {
    this.#statuses = statuses;
  }
  send(url: string): Promise<WebhookResponse> {
    this.urls.push(url);
    const status = this.#statuses.length > 1 ? this.#statuses.shift()! : this.#statuses[0]!;
    return Promise.resolve({ status, retryAfter: null });
  }
}

const HOOK = 'https://hooks.example.com/docparse';

async function world(statuses: number[]) {
  const clock = new ManualClock(T0);
  const requests = new InMemoryRequestStore();
  const secrets = new InMemoryWebhookSecretStore();
  await secrets.getOrCreate('tenant-a');
  const record = aRequestRecord({
    id: 'req_abc',
    tenant: 'tenant-a',
    status: 'completed',
    webhook: { url: HOOK, apiBaseUrl: 'https://api.example.com', status: 'pending', attempts: [] },
  });
  await requests.create(record);
  const webhooks = new RecordingQueue();
  const deadLetters = new RecordingQueue();
  const sender = new ScriptedSender(statuses);
  const deps = {
    sender,
    signer: new StandardWebhookSigner(),
    secrets,
    clock,
    requests,
    webhooks,
    deadLetters,
  };
  return { deps, record, requests, webhooks, deadLetters, sender, clock };
}

const message = (overrides: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  eventId: 'req_abc_completed',
  url: HOOK,
  secretRef: 'tenant-a',
  payload: parseFinishedEvent(
    'req_abc',
    { status: 'completed', resultUrl: 'https://api.example.com/v1/parse/req_abc' },
    T0,
  ),
  attempt: 1,
  ...overrides,
});

describe('handleWebhookMessage', () => {
  it('records a delivered attempt with the request and queues nothing more', async () => {
    // Arrange
    const { deps, requests, webhooks, deadLetters } = await world([200]);
    // Act
    const outcome = await handleWebhookMessage(deps, JSON.stringify(message()));
    // Assert
    expect(outcome).toEqual({ kind: 'attempted', decision: { action: 'delivered' } });
    const webhook = (await requests.get('req_abc'))?.webhook;
    expect(webhook?.status).toBe('delivered');
    expect(webhook?.attempts).toEqual([
      { attempt: 1, at: T0.toISOString(), status: 200, error: null, duration_ms: 0 },
    ]);
    expect(webhooks.sent).toEqual([]);
    expect(deadLetters.sent).toEqual([]);
  });

  it('queues attempt 2 with a 5 s delay after a 503, and keeps the request pending', async () => {
    // Arrange
    const { deps, requests, webhooks } = await world([503]);
    // Act
    await handleWebhookMessage(deps, JSON.stringify(message()));
    // Assert
    expect(webhooks.sent).toHaveLength(1);
    const next = webhooks.sent[0]!;
    expect(next.delaySeconds).toBe(5);
    expect(next.body).toMatchObject({
      eventId: 'req_abc_completed',
      attempt: 2,
      notBefore: new Date(T0.getTime() + 5000).toISOString(),
    });
    expect((await requests.get('req_abc'))?.webhook?.status).toBe('pending');
  });

  it('sends a message received before its notBefore on, without attempting', async () => {
    // Arrange
    const { deps, sender, webhooks } = await world([200]);
    const notBefore = new Date(T0.getTime() + 2 * 3_600_000).toISOString();
    // Act
    const outcome = await handleWebhookMessage(
      deps,
      JSON.stringify(message({ attempt: 5, notBefore })),
    );
    // Assert
    expect(outcome).toEqual({ kind: 'not_due', delaySeconds: 900 });
    expect(sender.urls).toEqual([]);
    expect(webhooks.sent).toEqual([
      { body: message({ attempt: 5, notBefore }), delaySeconds: 900 },
    ]);
  });

  it('records a redelivered attempt once, under its own number', async () => {
    // Arrange
    const { deps, requests } = await world([503]);
    const body = JSON.stringify(message());
    // Act
    await handleWebhookMessage(deps, body);
    await handleWebhookMessage(deps, body);
    // Assert
    const attempts = (await requests.get('req_abc'))?.webhook?.attempts ?? [];
    expect(attempts.map((a) => a.attempt)).toEqual([1]);
  });

  it(`dead-letters the event when attempt ${WEBHOOK_MAX_ATTEMPTS} fails`, async () => {
    // Arrange
    const { deps, requests, webhooks, deadLetters } = await world([500]);
    const last = message({ attempt: WEBHOOK_MAX_ATTEMPTS });
    // Act
    const outcome = await handleWebhookMessage(deps, JSON.stringify(last));
    // Assert
    expect(outcome).toMatchObject({ kind: 'attempted', decision: { action: 'dead_letter' } });
    expect(webhooks.sent).toEqual([]);
    expect(deadLetters.sent).toEqual([
      { body: last, attributes: { reason: `HTTP 500 after ${WEBHOOK_MAX_ATTEMPTS} attempts` } },
    ]);
    expect((await requests.get('req_abc'))?.webhook?.status).toBe('dead_letter');
  });

  it('stops at a 410 and marks the webhook disabled', async () => {
    // Arrange
    const { deps, requests, webhooks, deadLetters } = await world([410]);
    // Act
    await handleWebhookMessage(deps, JSON.stringify(message()));
    // Assert
    expect((await requests.get('req_abc'))?.webhook?.status).toBe('disabled');
    expect(webhooks.sent).toEqual([]);
    expect(deadLetters.sent).toEqual([]);
  });

  it.each([
    ['not JSON', '{"eventId":'],
    ['a message without a URL', JSON.stringify({ ...message(), url: undefined })],
    ['attempt 0', JSON.stringify(message({ attempt: 0 }))],
  ])('drops %s as malformed without sending anything', async (_, body) => {
    // Arrange
    const { deps, sender, webhooks } = await world([200]);
    // Act
    const outcome = await handleWebhookMessage(deps, body);
    // Assert
    expect(outcome.kind).toBe('malformed');
    expect(sender.urls).toEqual([]);
    expect(webhooks.sent).toEqual([]);
  });
});

describe('announceFinished', () => {
  it('queues attempt 1 of parse.completed with the result URL, once', async () => {
    // Arrange
    const { record, requests, webhooks, clock } = await world([200]);
    const ports = { requests, webhooks, clock };
    // Act
    await announceFinished(ports, record, { status: 'completed' });
    const announced = (await requests.get('req_abc'))!;
    await announceFinished(ports, announced, { status: 'completed' });
    // Assert
    expect(webhooks.sent).toEqual([{ body: message() }]);
    expect(announced.webhookEventId).toBe('req_abc_completed');
  });

  it('announces a failure with its kind and detail', async () => {
    // Arrange
    const { record, requests, webhooks, clock } = await world([200]);
    // Act
    await announceFinished({ requests, webhooks, clock }, record, {
      status: 'failed',
      error: { kind: 'unprocessable', detail: 'the document has no pages' },
    });
    // Assert
    expect(webhooks.sent[0]?.body).toMatchObject({
      eventId: 'req_abc_failed',
      payload: {
        type: 'parse.failed',
        data: {
          request_id: 'req_abc',
          status: 'failed',
          error: { kind: 'unprocessable', detail: 'the document has no pages' },
        },
      },
    });
  });

  it('announces nothing for a request without a webhook', async () => {
    // Arrange
    const { requests, webhooks, clock } = await world([200]);
    const plain = aRequestRecord({ id: 'req_plain' });
    // Act
    await announceFinished({ requests, webhooks, clock }, plain, { status: 'completed' });
    // Assert
    expect(webhooks.sent).toEqual([]);
  });
});
