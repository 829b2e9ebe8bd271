import { describe, expect, it } from 'vitest';
import {
  MAX_QUEUE_DELAY_SECONDS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_MAX_RETRY_AFTER_MS,
  WEBHOOK_RETRY_SCHEDULE_MS,
  WebhookDelivery,
  WebhookEvent,
  nextAttempt,
  parseFinishedEvent,
  parseResultUrl,
  parseRetryAfter,
  queueDelaySeconds,
  webhookEventId,
  webhookId,
  type AttemptOutcome,
} from '../../../../functions/core/domain/webhooks.js';

const NOW = new Date('2025-03-04T05:06:07.000Z');
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const response = (status: number, retryAfter: string | null = null): AttemptOutcome => ({
  kind: 'response',
  status,
  retryAfter,
});
const noResponse = (error = 'network error: ECONNREFUSED'): AttemptOutcome => ({
  kind: 'no_response',
  error,
});
/** `NOW + ms` as an HTTP-date (IMF-fixdate). */
const httpDate = (ms: number) => new Date(NOW.getTime() + ms).toUTCString();

describe('the webhook retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h: 8 attempts in all', () => {
    // Assert
    expect(WEBHOOK_RETRY_SCHEDULE_MS).toEqual([
      5 * SECOND,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      10 * HOUR,
    ]);
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(8);
    expect(Object.isFrozen(WEBHOOK_RETRY_SCHEDULE_MS)).toBe(true);
  });
});

describe('nextAttempt', () => {
  it.each([200, 201, 202, 204, 299])('counts HTTP %i as delivered', (status) => {
    // Act
    const decision = nextAttempt(1, response(status), NOW);
    // Assert
    expect(decision).toEqual({ action: 'delivered' });
  });

  it('counts a 2xx on the last attempt as delivered', () => {
    // Act
    const decision = nextAttempt(WEBHOOK_MAX_ATTEMPTS, response(200), NOW);
    // Assert
    expect(decision).toEqual({ action: 'delivered' });
  });

  it.each([1, 4, WEBHOOK_MAX_ATTEMPTS])('disables the endpoint on HTTP 410 (attempt %i)', (n) => {
    // Act
    const decision = nextAttempt(n, response(410, '5'), NOW);
    // Assert
    expect(decision).toEqual({ action: 'disabled', reason: 'HTTP 410: the receiver is gone' });
  });

  it.each([429, 500, 502, 503, 504, 599])(
    'retries HTTP %i after each step of the schedule in turn',
    (status) => {
      // Act
      const delays = WEBHOOK_RETRY_SCHEDULE_MS.map((_, i) =>
        nextAttempt(i + 1, response(status), NOW),
      );
      // Assert
      expect(delays).toEqual(
        WEBHOOK_RETRY_SCHEDULE_MS.map((delayMs) => ({
          action: 'retry',
          delayMs,
          reason: `HTTP ${status}`,
        })),
      );
    },
  );

  it('retries a network error or timeout on the schedule, giving its reason', () => {
    // Act
    const first = nextAttempt(1, noResponse('no answer within 15000 ms'), NOW);
    const third = nextAttempt(3, noResponse(), NOW);
    // Assert
    expect(first).toEqual({
      action: 'retry',
      delayMs: 5 * SECOND,
      reason: 'no answer within 15000 ms',
    });
    expect(third).toEqual({
      action: 'retry',
      delayMs: 30 * MINUTE,
      reason: 'network error: ECONNREFUSED',
    });
  });

  it.each([301, 302, 303, 307, 308])(
    'treats HTTP %i as a failure retried on the schedule, ignoring Retry-After',
    (status) => {
      // Act
      const decision = nextAttempt(2, response(status, '3600'), NOW);
      // Assert
      expect(decision).toEqual({ action: 'retry', delayMs: 5 * MINUTE, reason: `HTTP ${status}` });
    },
  );

  it.each([400, 401, 403, 404, 405, 408, 413, 422, 451])(
    'retries HTTP %i on the schedule (a misconfigured receiver may be fixed), ignoring Retry-After',
    (status) => {
      // Act
      const decision = nextAttempt(1, response(status, '3600'), NOW);
      // Assert
      expect(decision).toEqual({ action: 'retry', delayMs: 5 * SECOND, reason: `HTTP ${status}` });
    },
  );

  it.each([101, 199, 600])('retries the unexpected status %i on the schedule', (status) => {
    // Act
    const decision = nextAttempt(1, response(status), NOW);
    // Assert
    expect(decision).toEqual({ action: 'retry', delayMs: 5 * SECOND, reason: `HTTP ${status}` });
  });

  it.each([
    ['HTTP 503', response(503, '60')],
    ['HTTP 429', response(429)],
    ['HTTP 404', response(404)],
    ['HTTP 302', response(302)],
    ['network error: ECONNRESET', noResponse('network error: ECONNRESET')],
  ])('dead-letters a failure (%s) on the last attempt', (reason, outcome) => {
    // Act
    const decision = nextAttempt(WEBHOOK_MAX_ATTEMPTS, outcome, NOW);
    // Assert
    expect(decision).toEqual({ action: 'dead_letter', reason: `${reason} after 8 attempts` });
  });

  it('still retries on the seventh attempt, after the last 10 h step', () => {
    // Act
    const decision = nextAttempt(WEBHOOK_MAX_ATTEMPTS - 1, response(500), NOW);
    // Assert
    expect(decision).toEqual({ action: 'retry', delayMs: 10 * HOUR, reason: 'HTTP 500' });
  });

  it('waits as long as Retry-After (seconds) asks when that is longer than the schedule', () => {
    // Act
    const decision = nextAttempt(1, response(503, '120'), NOW);
    // Assert
    expect(decision).toEqual({ action: 'retry', delayMs: 120 * SECOND, reason: 'HTTP 503' });
  });

  it('waits until a Retry-After HTTP-date when that is later than the schedule', () => {
    // Act
    const decision = nextAttempt(2, response(429, httpDate(45 * MINUTE)), NOW);
    // Assert
    expect(decision).toEqual({ action: 'retry', delayMs: 45 * MINUTE, reason: 'HTTP 429' });
  });

  it('keeps the schedule when Retry-After asks for less', () => {
    // Act
    const bySeconds = nextAttempt(2, response(503, '1'), NOW);
    const byDate = nextAttempt(2, response(503, httpDate(10 * SECOND)), NOW);
    // Assert
    expect(bySeconds).toEqual({ action: 'retry', delayMs: 5 * MINUTE, reason: 'HTTP 503' });
    expect(byDate).toEqual({ action: 'retry', delayMs: 5 * MINUTE, reason: 'HTTP 503' });
  });

  it('caps a Retry-After longer than 10 h at 10 h', () => {
    // Act
    const bySeconds = nextAttempt(1, response(503, String(3 * 24 * 3600)), NOW);
    const byDate = nextAttempt(1, response(429, httpDate(30 * HOUR)), NOW);
    // Assert
    expect(bySeconds).toEqual({ action: 'retry', delayMs: 10 * HOUR, reason: 'HTTP 503' });
    expect(byDate).toEqual({ action: 'retry', delayMs: 10 * HOUR, reason: 'HTTP 429' });
  });

  it('ignores an unreadable Retry-After', () => {
    // Act
    const decision = nextAttempt(1, response(503, 'soon'), NOW);
    // Assert
    expect(decision).toEqual({ action: 'retry', delayMs: 5 * SECOND, reason: 'HTTP 503' });
  });

  it.each([0, -1, 1.5, Number.NaN])('throws RangeError for attemptsMade %s', (n) => {
    // Act / Assert
    expect(() => nextAttempt(n, response(200), NOW)).toThrow(RangeError);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['1', SECOND],
    [' 120 ', 120 * SECOND],
    ['36000', 10 * HOUR],
    ['36001', WEBHOOK_MAX_RETRY_AFTER_MS],
    ['99999999999999999999999', WEBHOOK_MAX_RETRY_AFTER_MS],
  ])('reads delay-seconds %j as %i ms, at most 10 h', (value, ms) => {
    // Act / Assert
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it('reads an IMF-fixdate as the time left until it', () => {
    // Act / Assert
    expect(parseRetryAfter('Tue, 04 Mar 2025 05:16:07 GMT', NOW)).toBe(10 * MINUTE);
  });

  it('reads the obsolete RFC 850 and asctime date forms', () => {
    // Act / Assert
    expect(parseRetryAfter('Tuesday, 04-Mar-25 05:16:07 GMT', NOW)).toBe(10 * MINUTE);
    expect(parseRetryAfter('Tue Mar  4 05:16:07 2025', NOW)).toBe(10 * MINUTE);
  });

  it('reads a date in the past as no wait', () => {
    // Act / Assert
    expect(parseRetryAfter(httpDate(-HOUR), NOW)).toBe(0);
  });

  it.each([null, '', '   ', '-5', '1.5', '+3', '2025-03-04', 'soon', 'Mon, 99 Foo 2025'])(
    'answers null for %j',
    (value) => {
      // Act / Assert
      expect(parseRetryAfter(value, NOW)).toBeNull();
    },
  );
});

describe('parseFinishedEvent', () => {
  it('announces a completed parse with where to fetch its result, not the result itself', () => {
    // Act
    const event = parseFinishedEvent(
      'req_abc',
      { status: 'completed', resultUrl: 'https://api.example.com/v1/parse/req_abc' },
      NOW,
    );
    // Assert
    expect(event).toEqual({
      type: 'parse.completed',
      timestamp: '2025-03-04T05:06:07.000Z',
      data: {
        request_id: 'req_abc',
        status: 'completed',
        result_url: 'https://api.example.com/v1/parse/req_abc',
      },
    });
    expect(WebhookEvent.parse(event)).toEqual(event);
  });

  it('announces a failed parse with its error kind and detail', () => {
    // Arrange
    const error = { kind: 'unprocessable', detail: 'the PDF is encrypted' };
    // Act
    const event = parseFinishedEvent('req_abc', { status: 'failed', error }, NOW);
    // Assert
    expect(event).toEqual({
      type: 'parse.failed',
      timestamp: '2025-03-04T05:06:07.000Z',
      data: { request_id: 'req_abc', status: 'failed', error },
    });
    expect(event.data.error).not.toBe(error);
    expect(WebhookEvent.parse(event)).toEqual(event);
  });
});

describe('parseResultUrl', () => {
  it('joins the base URL and the request path, with or without a trailing slash', () => {
    // Act / Assert
    expect(parseResultUrl('https://api.example.com', 'req_1')).toBe(
      'https://api.example.com/v1/parse/req_1',
    );
    expect(parseResultUrl('https://api.example.com/prod//', 'req_1')).toBe(
      'https://api.example.com/prod/v1/parse/req_1',
    );
  });
});

describe('webhook ids', () => {
  it('derives the event id from the request and the event type', () => {
    // Act / Assert
    expect(webhookEventId('req_abc', 'parse.completed')).toBe('req_abc_completed');
    expect(webhookEventId('req_abc', 'parse.failed')).toBe('req_abc_failed');
  });

  it('prefixes the webhook-id with msg_', () => {
    // Act / Assert
    expect(webhookId('req_abc_completed')).toBe('msg_req_abc_completed');
  });

  it.each(['', 'a.b', 'a b', 'a\r\nx-injected: 1', 'x'.repeat(201)])(
    'throws RangeError for the event id %j',
    (eventId) => {
      // Act / Assert
      expect(() => webhookId(eventId)).toThrow(RangeError);
    },
  );

  it('throws RangeError for a request id that cannot make an event id', () => {
    // Act / Assert
    expect(() => webhookEventId('req.1', 'parse.failed')).toThrow(RangeError);
  });
});

describe('queueDelaySeconds', () => {
  it('is 0 without notBefore, at it, after it, or for an unreadable one', () => {
    // Act / Assert
    expect(queueDelaySeconds(undefined, NOW)).toBe(0);
    expect(queueDelaySeconds(NOW.toISOString(), NOW)).toBe(0);
    expect(queueDelaySeconds(new Date(NOW.getTime() - MINUTE).toISOString(), NOW)).toBe(0);
    expect(queueDelaySeconds('not a date', NOW)).toBe(0);
  });

  it('rounds the time left up to whole seconds, so a message is never early', () => {
    // Act / Assert
    expect(queueDelaySeconds(new Date(NOW.getTime() + 30_200).toISOString(), NOW)).toBe(31);
    expect(queueDelaySeconds(new Date(NOW.getTime() + 1).toISOString(), NOW)).toBe(1);
  });

  it('caps the delay at SQS’s 15 minutes, so long waits are made of hops', () => {
    // Arrange
    let now = NOW;
    const notBefore = new Date(NOW.getTime() + 10 * HOUR).toISOString();
    let hops = 0;
    // Act
    for (let delay = queueDelaySeconds(notBefore, now); delay > 0;) {
      expect(delay).toBeLessThanOrEqual(MAX_QUEUE_DELAY_SECONDS);
      hops += 1;
      now = new Date(now.getTime() + delay * 1000);
      delay = queueDelaySeconds(notBefore, now);
    }
    // Assert
    expect(hops).toBe(40);
    expect(now.toISOString()).toBe(notBefore);
  });
});

describe('WebhookDelivery', () => {
  const valid = {
    eventId: 'req_abc_completed',
    url: 'https://hooks.example.com/docparse',
    secretRef: 'acme',
    payload: parseFinishedEvent(
      'req_abc',
      { status: 'completed', resultUrl: 'https://api.example.com/v1/parse/req_abc' },
      NOW,
    ),
    attempt: 1,
  };

  it('accepts a first attempt and a later one with notBefore', () => {
    // Act / Assert
    expect(WebhookDelivery.parse(valid)).toEqual(valid);
    const later = { ...valid, attempt: 8, notBefore: NOW.toISOString() };
    expect(WebhookDelivery.parse(later)).toEqual(later);
  });

  it.each([
    ['attempt 0', { attempt: 0 }],
    ['attempt 9', { attempt: 9 }],
    ['an ftp URL', { url: 'ftp://hooks.example.com/' }],
    ['an event id with a dot', { eventId: 'a.b' }],
    ['an empty secret reference', { secretRef: '' }],
  ])('rejects %s', (_, change) => {
    // Act / Assert
    expect(WebhookDelivery.safeParse({ ...valid, ...change }).success).toBe(false);
  });
});
