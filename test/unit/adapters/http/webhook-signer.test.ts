import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  StandardWebhookSigner,
  newWebhookSecret,
  signWebhook,
  verifyWebhook,
} from '../../../../functions/adapters/http/webhook-signer.js';
import { parseFinishedEvent } from '../../../../functions/core/domain/webhooks.js';
import type { WebhookHeaders } from '../../../../functions/core/ports/webhook-sender.js';

const T0 = new Date('2025-03-04T05:06:07.000Z');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const EVENT = parseFinishedEvent(
  'req_abc',
  { status: 'completed', resultUrl: 'https://api.example.com/v1/parse/req_abc' },
  T0,
);
const BODY = JSON.stringify(EVENT);

const at = (ms: number) => new Date(T0.getTime() + ms);

describe('webhook signing', () => {
  beforeEach(() => {
    // The package's verify reads Date.now() for its five-minute tolerance.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('makes the three Standard Webhooks headers', () => {
    // Act
    const headers = signWebhook(SECRET, 'req_abc_completed', T0, BODY);
    // Assert
    expect(headers).toEqual({
      'webhook-id': 'msg_req_abc_completed',
      'webhook-timestamp': String(T0.getTime() / 1000),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/) as unknown,
    });
  });

  it('matches the published Standard Webhooks test vector', () => {
    // Arrange
    const payload = '{"test": 2432232314}';
    // Act
    const headers = signWebhook(
      SECRET,
      'p5jXN8AQM9LWM0D4loKWxJek',
      new Date(1614265330_000),
      payload,
    );
    // Assert
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('makes a signature that the standardwebhooks package verifies, giving back the event', () => {
    // Arrange
    const headers = signWebhook(SECRET, 'req_abc_completed', T0, BODY);
    // Act
    const verified = new Webhook(SECRET).verify(BODY, { ...headers });
    // Assert
    expect(verified).toEqual(EVENT);
  });

  it('fails verification when one byte of the body changed', () => {
    // Arrange
    const headers = signWebhook(SECRET, 'req_abc_completed', T0, BODY);
    const tampered = BODY.replace('req_abc', 'req_abd');
    // Act / Assert
    expect(() => new Webhook(SECRET).verify(tampered, { ...headers })).toThrow(
      new WebhookVerificationError('No matching signature found'),
    );
  });

  it('fails verification when the timestamp header changed', () => {
    // Arrange
    const headers = signWebhook(SECRET, 'req_abc_completed', T0, BODY);
    const moved = {
      ...headers,
      'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1),
    };
    // Act / Assert
    expect(() => new Webhook(SECRET).verify(BODY, moved)).toThrow(
      new WebhookVerificationError('No matching signature found'),
    );
  });

  it('fails verification when the id header changed', () => {
    // Arrange
    const headers = signWebhook(SECRET, 'req_abc_completed', T0, BODY);
    const renamed = { ...headers, 'webhook-id': 'msg_req_abc_failed' };
    // Act / Assert
    expect(() => new Webhook(SECRET).verify(BODY, renamed)).toThrow(WebhookVerificationError);
  });

  it('fails verification with another tenant’s secret', () => {
    // Arrange
    const headers = signWebhook(SECRET, 'req_abc_completed', T0, BODY);
    // Act / Assert
    expect(() => new Webhook(newWebhookSecret()).verify(BODY, { ...headers })).toThrow(
      WebhookVerificationError,
    );
  });

  it('fails verification of a correctly signed attempt received more than five minutes later', () => {
    // Arrange
    const headers = signWebhook(SECRET, 'req_abc_completed', T0, BODY);
    vi.setSystemTime(at(5 * 60_000 + 1_000));
    // Act / Assert
    expect(() => new Webhook(SECRET).verify(BODY, { ...headers })).toThrow(
      new WebhookVerificationError('Message timestamp too old'),
    );
  });

  it('keeps the webhook-id across retries while each attempt is signed at its own time', () => {
    // Arrange
    const attempts = [0, 5_000, 5 * 60_000, 35 * 60_000].map((offset) => at(offset));
    // Act
    const signed = attempts.map((when) => {
      vi.setSystemTime(when);
      const headers = signWebhook(SECRET, 'req_abc_completed', when, BODY);
      return { headers, verified: new Webhook(SECRET).verify(BODY, { ...headers }) };
    });
    // Assert
    expect(new Set(signed.map((s) => s.headers['webhook-id']))).toEqual(
      new Set(['msg_req_abc_completed']),
    );
    expect(new Set(signed.map((s) => s.headers['webhook-signature'])).size).toBe(4);
    expect(signed.map((s) => s.headers['webhook-timestamp'])).toEqual(
      attempts.map((when) => String(when.getTime() / 1000)),
    );
    expect(signed.every((s) => JSON.stringify(s.verified) === BODY)).toBe(true);
  });

  it('signs through the WebhookSigner port exactly as signWebhook does', () => {
    // Act
    const headers = new StandardWebhookSigner().sign(SECRET, 'req_abc_completed', T0, BODY);
    // Assert
    expect(headers).toEqual(signWebhook(SECRET, 'req_abc_completed', T0, BODY));
  });

  it.each([
    ['no whsec_ prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['fewer than 24 bytes', `whsec_${Buffer.alloc(16, 7).toString('base64')}`],
    ['more than 64 bytes', `whsec_${Buffer.alloc(65, 7).toString('base64')}`],
    ['characters outside base64', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La!aSw'],
  ])('throws RangeError for a secret with %s, without echoing it', (_, secret) => {
    // Act
    const sign = () => signWebhook(secret, 'req_abc_completed', T0, BODY);
    // Assert
    expect(sign).toThrow(RangeError);
    expect(sign).not.toThrow(secret.slice(6, 20));
  });

  it('throws RangeError for an event id that could not be a header or would blur the signed text', () => {
    // Act / Assert
    expect(() => signWebhook(SECRET, 'req.1', T0, BODY)).toThrow(RangeError);
    expect(() => signWebhook(SECRET, 'a\r\nx: y', T0, BODY)).toThrow(RangeError);
  });
});

describe('verifyWebhook', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('verifies a delivery as node:http hands it over (any header case, extra and absent headers, a Buffer body)', () => {
    // Arrange
    const signed = signWebhook(SECRET, 'req_abc_completed', T0, BODY);
    const incoming = {
      'Webhook-Id': signed['webhook-id'],
      'WEBHOOK-TIMESTAMP': signed['webhook-timestamp'],
      'webhook-signature': [
        `v1,${Buffer.alloc(32).toString('base64')}`,
        signed['webhook-signature'],
      ],
      'content-type': 'application/json',
      'x-absent': undefined,
    };
    // Act
    const verified = verifyWebhook(SECRET, incoming, Buffer.from(BODY));
    // Assert
    expect(verified).toEqual(EVENT);
  });

  it('throws WebhookVerificationError when the signature header is missing', () => {
    // Arrange
    const unsigned: Partial<WebhookHeaders> = signWebhook(SECRET, 'req_abc_completed', T0, BODY);
    delete unsigned['webhook-signature'];
    // Act / Assert
    expect(() => verifyWebhook(SECRET, unsigned, BODY)).toThrow(
      new WebhookVerificationError('Missing required headers'),
    );
  });
});

describe('newWebhookSecret', () => {
  it('makes whsec_ secrets of 32 random bytes that the package accepts', () => {
    // Act
    const secrets = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    // Assert
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
      expect(() => new Webhook(secret)).not.toThrow();
    }
    expect(new Set(secrets).size).toBe(3);
  });
});
