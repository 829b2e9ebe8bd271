import { describe, expect, it } from 'vitest';
import { deliverWebhook } from '../../../../functions/core/app/deliver-webhook.js';
import { NotFoundError } from '../../../../functions/core/domain/errors.js';
import {
  parseFinishedEvent,
  type WebhookDelivery,
} from '../../../../functions/core/domain/webhooks.js';
import {
  WebhookSendError,
  type WebhookHeaders,
  type WebhookResponse,
  type WebhookSecretStore,
  type WebhookSender,
  type WebhookSigner,
} from '../../../../functions/core/ports/webhook-sender.js';
import { ManualClock, T0 } from '../../../support/builders.js';
import { InMemoryWebhookSecretStore } from '../../../support/fakes.js';

const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0';

/** Signs as `v1,<secret>|<id>|<seconds>|<body length>`: enough to see what was signed. */
const fakeSigner: WebhookSigner = {
  sign(secret, eventId, at, body): WebhookHeaders {
    const seconds = String(Math.floor(at.getTime() / 1000));
    return {
      'webhook-id': `msg_${eventId}`,
      'webhook-timestamp': seconds,
      'webhook-signature': `v1,${secret}|${eventId}|${seconds}|${body.length}`,
    };
  },
};

/** Acme's secret; for any other tenant the store fails. */
const secrets: WebhookSecretStore = {
  get: (ref) =>
    ref === 'acme'
      ? Promise.resolve(SECRET)
      : Promise.reject(new NotFoundError(`no webhook secret for ${ref}`)),
  getOrCreate: (ref) =>
    ref === 'acme' ? Promise.resolve(SECRET) : Promise.reject(new Error('the table is down')),
};

/** Answers from a script, one answer (or failure) per call, taking `tookMs` of clock time. */
class ScriptedSender implements WebhookSender {
  readonly calls: { url: string; headers: Readonly<Record<string, string>>; body: string }[] = [];
  readonly #answers: (WebhookResponse | Error | string)[];
  readonly #clock: ManualClock;
  readonly #tookMs: number;

  constructor(clock: ManualClock, answers: (WebhookResponse | Error | string)[], tookMs = 120) {
    this.#clock = clock;
    this.#answers = answers;
    this.#tookMs = tookMs;
  }

  send(url: string, headers: Readonly<Record<string, string>>, body: string) {
    this.calls.push({ url, headers, body });
    this.#clock.advance(this.#tookMs);
    const answer = this.#answers.shift();
    if (answer === undefined) return Promise.reject(new Error('no answer scripted'));
    // A thrown string stands for a sender that throws something other than an Error.
    if (answer instanceof Error) return Promise.reject(answer);
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a sender breaking its contract
    if (typeof answer === 'string') return Promise.reject(answer);
    return Promise.resolve(answer);
  }
}

const message = (overrides: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  eventId: 'req_abc_completed',
  url: 'https://hooks.example.com/docparse',
  secretRef: 'acme',
  payload: parseFinishedEvent(
    'req_abc',
    { status: 'completed', resultUrl: 'https://api.example.com/v1/parse/req_abc' },
    new Date('2025-03-04T05:00:00.000Z'),
  ),
  attempt: 1,
  ...overrides,
});

function setup(answers: (WebhookResponse | Error | string)[]) {
  const clock = new ManualClock(T0);
  const sender = new ScriptedSender(clock, answers);
  return { clock, sender, deps: { sender, signer: fakeSigner, secrets, clock } };
}

describe('deliverWebhook', () => {
  it('POSTs the event as JSON with signature headers and reports a 2xx as delivered', async () => {
    // Arrange
    const { deps, sender } = setup([{ status: 204, retryAfter: null }]);
    const delivery = message();
    // Act
    const result = await deliverWebhook(deps, delivery);
    // Assert
    expect(result).toEqual({
      decision: { action: 'delivered' },
      record: { attempt: 1, at: T0.toISOString(), status: 204, error: null, duration_ms: 120 },
      next: null,
    });
    const body = JSON.stringify(delivery.payload);
    expect(sender.calls).toEqual([
      {
        url: 'https://hooks.example.com/docparse',
        headers: {
          'webhook-id': 'msg_req_abc_completed',
          'webhook-timestamp': String(T0.getTime() / 1000),
          'webhook-signature': `v1,${SECRET}|req_abc_completed|${T0.getTime() / 1000}|${body.length}`,
        },
        body,
      },
    ]);
  });

  it('asks for the next attempt after the delay, with the same event and a notBefore', async () => {
    // Arrange
    const { deps } = setup([{ status: 503, retryAfter: '600' }]);
    const delivery = message();
    // Act
    const result = await deliverWebhook(deps, delivery);
    // Assert
    expect(result.decision).toEqual({ action: 'retry', delayMs: 600_000, reason: 'HTTP 503' });
    expect(result.record).toEqual({
      attempt: 1,
      at: T0.toISOString(),
      status: 503,
      error: null,
      duration_ms: 120,
    });
    expect(result.next).toEqual({
      ...delivery,
      attempt: 2,
      notBefore: new Date(T0.getTime() + 120 + 600_000).toISOString(),
    });
  });

  it('records a timeout as an attempt without a status and retries it on the schedule', async () => {
    // Arrange
    const { deps } = setup([new WebhookSendError('no answer within 15000 ms', 'timeout')]);
    // Act
    const result = await deliverWebhook(deps, message({ attempt: 3, notBefore: T0.toISOString() }));
    // Assert
    expect(result.decision).toEqual({
      action: 'retry',
      delayMs: 30 * 60_000,
      reason: 'no answer within 15000 ms',
    });
    expect(result.record).toEqual({
      attempt: 3,
      at: T0.toISOString(),
      status: null,
      error: 'no answer within 15000 ms',
      duration_ms: 120,
    });
    expect(result.next).toMatchObject({ attempt: 4 });
  });

  it('records anything else the sender throws as an attempt without a response', async () => {
    // Arrange
    const { deps } = setup(['socket hang up']);
    // Act
    const result = await deliverWebhook(deps, message());
    // Assert
    expect(result.record).toMatchObject({ status: null, error: 'socket hang up' });
    expect(result.decision).toMatchObject({ action: 'retry', delayMs: 5_000 });
  });

  it('signs every attempt at its own time under the same webhook-id', async () => {
    // Arrange
    const { deps, sender, clock } = setup([
      { status: 500, retryAfter: null },
      { status: 200, retryAfter: null },
    ]);
    // Act
    const first = await deliverWebhook(deps, message());
    clock.advance(5_000);
    await deliverWebhook(deps, first.next!);
    // Assert
    const [a, b] = sender.calls.map((call) => call.headers);
    expect(a!['webhook-id']).toBe(b!['webhook-id']);
    expect(Number(b!['webhook-timestamp']) - Number(a!['webhook-timestamp'])).toBe(5);
    expect(sender.calls[0]!.body).toBe(sender.calls[1]!.body);
  });

  it('dead-letters the event when the last attempt fails', async () => {
    // Arrange
    const { deps } = setup([{ status: 502, retryAfter: null }]);
    // Act
    const result = await deliverWebhook(deps, message({ attempt: 8 }));
    // Assert
    expect(result.decision).toEqual({ action: 'dead_letter', reason: 'HTTP 502 after 8 attempts' });
    expect(result.record).toMatchObject({ attempt: 8, status: 502 });
    expect(result.next).toBeNull();
  });

  it('stops at a 410 and asks for the endpoint to be disabled', async () => {
    // Arrange
    const { deps } = setup([{ status: 410, retryAfter: null }]);
    // Act
    const result = await deliverWebhook(deps, message({ attempt: 2 }));
    // Assert
    expect(result.decision).toEqual({
      action: 'disabled',
      reason: 'HTTP 410: the receiver is gone',
    });
    expect(result.next).toBeNull();
  });

  it('reports no negative duration when the clock steps back', async () => {
    // Arrange
    const clock = new ManualClock(T0);
    const sender = new ScriptedSender(clock, [{ status: 200, retryAfter: null }], -50);
    // Act
    const result = await deliverWebhook({ sender, signer: fakeSigner, secrets, clock }, message());
    // Assert
    expect(result.record.duration_ms).toBe(0);
  });

  it.each([0, 9, 1.5])('throws RangeError for attempt %s, sending nothing', async (attempt) => {
    // Arrange
    const { deps, sender } = setup([{ status: 200, retryAfter: null }]);
    // Act / Assert
    await expect(deliverWebhook(deps, message({ attempt }))).rejects.toBeInstanceOf(RangeError);
    expect(sender.calls).toHaveLength(0);
  });

  it('rejects with the secret store’s error when it cannot give the secret, sending nothing', async () => {
    // Arrange
    const { deps, sender } = setup([{ status: 200, retryAfter: null }]);
    // Act / Assert
    await expect(deliverWebhook(deps, message({ secretRef: 'broken' }))).rejects.toThrow(
      'the table is down',
    );
    expect(sender.calls).toHaveLength(0);
  });

  it("creates the tenant's secret on its first delivery and signs with it", async () => {
    // Arrange: submissions never create secrets (their functions may not read them).
    const { deps, sender } = setup([{ status: 200, retryAfter: null }]);
    const store = new InMemoryWebhookSecretStore();
    // Act
    await deliverWebhook({ ...deps, secrets: store }, message({ secretRef: 'newcomer' }));
    // Assert: the secret GET /v1/webhooks/secret will show is the one that signed.
    const created = await store.get('newcomer');
    expect(created).toMatch(/^whsec_/);
    expect(sender.calls[0]?.headers['webhook-signature']).toMatch(new RegExp(`^v1,${created}\\|`));
  });
});
