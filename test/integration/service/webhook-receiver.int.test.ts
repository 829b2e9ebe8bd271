import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Agent, interceptors } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { UrlGuard } from '../../../functions/adapters/http/safe-fetcher.js';
import { HttpWebhookSender } from '../../../functions/adapters/http/webhook-http-sender.js';
import {
  StandardWebhookSigner,
  newWebhookSecret,
} from '../../../functions/adapters/http/webhook-signer.js';
import {
  deliverWebhook,
  type DeliverWebhookDeps,
  type WebhookAttemptResult,
} from '../../../functions/core/app/deliver-webhook.js';
import {
  WebhookDelivery,
  parseFinishedEvent,
  parseResultUrl,
  queueDelaySeconds,
  webhookEventId,
} from '../../../functions/core/domain/webhooks.js';
import { WebhookSendError } from '../../../functions/core/ports/webhook-sender.js';

/**
 * Webhook deliveries against a real receiver: a node:http server that checks every request's
 * signature with the `standardwebhooks` package, as a customer's endpoint would, and answers
 * from a per-path script. Deliveries are driven attempt by attempt the way the queue consumer
 * will: between attempts the clock jumps to the message's `notBefore` in hops of at most
 * 15 minutes (SQS's longest delay), so the test waits for nothing.
 *
 * Only `Date` is faked: the deliverer's clock and the receiver's signature-age check both read
 * it, so a retry "hours later" is signed and checked hours later, while sockets and the
 * sender's time limit run on real timers.
 */

const SECRET = newWebhookSecret();

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The event as the package's `verify` returned it, or why it refused. */
  verified: { event: unknown } | { error: string };
}

type Answer = { status: number; headers?: Record<string, string> } | 'hang';

/** What each path answers to its n-th request (1-based); the last answer repeats. */
const SCRIPTS: Record<string, Answer[]> = {
  '/flaky': [{ status: 503 }, { status: 503, headers: { 'retry-after': '1' } }, { status: 200 }],
  '/busy': [{ status: 429, headers: { 'retry-after': '60' } }, { status: 202 }],
  '/gone': [{ status: 410 }],
  '/moved': [{ status: 302, headers: { location: '/target' } }],
  '/target': [{ status: 200 }],
  '/slow': ['hang'],
};

const received: Received[] = [];
let server: Server;
let base: string;
let agent: Agent;

function verify(headers: IncomingHttpHeaders, body: string): Received['verified'] {
  try {
    return { event: new Webhook(SECRET).verify(body, headers as Record<string, string>) };
  } catch (error) {
    return { error: String(error) };
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ path, headers: req.headers, body, verified: verify(req.headers, body) });
      const script = SCRIPTS[path] ?? [{ status: 404 }];
      const n = received.filter((r) => r.path === path).length;
      const answer = script[Math.min(n, script.length) - 1]!;
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers).end('ok');
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  agent = new Agent();
});

afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
});

beforeEach(() => {
  received.length = 0;
  vi.useFakeTimers({ toFake: ['Date'], now: new Date('2025-03-04T05:06:07.000Z') });
});

afterEach(() => {
  vi.useRealTimers();
});

/** The fake `Date`, as the `Clock` port, moved by hand. */
const clock = {
  now: () => new Date(),
  advance: (ms: number) => {
    vi.setSystemTime(Date.now() + ms);
  },
};

const deps = (sender = new HttpWebhookSender({ dispatcher: agent })): DeliverWebhookDeps => ({
  sender,
  signer: new StandardWebhookSigner(),
  secrets: {
    get: (ref) => Promise.resolve(ref === 'acme' ? SECRET : ''),
    getOrCreate: (ref) => Promise.resolve(ref === 'acme' ? SECRET : ''),
  },
  clock,
});

function firstMessage(requestId: string, path: string): WebhookDelivery {
  const payload = parseFinishedEvent(
    requestId,
    { status: 'completed', resultUrl: parseResultUrl('https://api.example.com', requestId) },
    clock.now(),
  );
  return {
    eventId: webhookEventId(requestId, payload.type),
    url: `${base}${path}`,
    secretRef: 'acme',
    payload,
    attempt: 1,
  };
}

/**
 * Delivers one event as the queue consumer will: attempt, then (on retry) the next message
 * goes through JSON as an SQS body would and waits out its `notBefore` in hops of at most 900 s.
 */
async function deliverUntilSettled(first: WebhookDelivery, dependencies = deps()) {
  const results: WebhookAttemptResult[] = [];
  let hops = 0;
  let message = first;
  for (;;) {
    const result = await deliverWebhook(dependencies, message);
    results.push(result);
    if (!result.next) return { results, hops };
    message = WebhookDelivery.parse(JSON.parse(JSON.stringify(result.next)));
    for (
      let delay = queueDelaySeconds(message.notBefore, clock.now());
      delay > 0;
      delay = queueDelaySeconds(message.notBefore, clock.now())
    ) {
      expect(delay).toBeLessThanOrEqual(900);
      hops += 1;
      clock.advance(delay * 1000);
    }
  }
}

describe('webhook deliveries to a receiver that verifies Standard Webhooks signatures', () => {
  it('retries through two 503s and is delivered on the third attempt, under one webhook-id', async () => {
    // Arrange
    const first = firstMessage('req_flaky1', '/flaky');
    // Act
    const { results, hops } = await deliverUntilSettled(first);
    // Assert
    expect(results.map((r) => r.decision)).toEqual([
      { action: 'retry', delayMs: 5_000, reason: 'HTTP 503' },
      // Retry-After: 1 asks for less than the schedule's 5 minutes, so the schedule wins.
      { action: 'retry', delayMs: 300_000, reason: 'HTTP 503' },
      { action: 'delivered' },
    ]);
    expect(results.map((r) => [r.record.attempt, r.record.status, r.record.error])).toEqual([
      [1, 503, null],
      [2, 503, null],
      [3, 200, null],
    ]);
    expect(hops).toBe(2);

    expect(received.map((r) => r.path)).toEqual(['/flaky', '/flaky', '/flaky']);
    expect(received.map((r) => r.verified)).toEqual(received.map(() => ({ event: first.payload })));
    expect(new Set(received.map((r) => r.headers['webhook-id']))).toEqual(
      new Set(['msg_req_flaky1_completed']),
    );
    const times = received.map((r) => Number(r.headers['webhook-timestamp']));
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([5, 300]);
    expect(new Set(received.map((r) => r.headers['webhook-signature'])).size).toBe(3);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    expect(received[0]!.headers['content-type']).toBe('application/json');
  });

  it('waits as long as a Retry-After longer than the schedule asks', async () => {
    // Act
    const { results } = await deliverUntilSettled(firstMessage('req_busy1', '/busy'));
    // Assert
    expect(results.map((r) => r.decision)).toEqual([
      { action: 'retry', delayMs: 60_000, reason: 'HTTP 429' },
      { action: 'delivered' },
    ]);
    expect(received.every((r) => 'event' in r.verified)).toBe(true);
  });

  it('stops at a 410: the endpoint is to be disabled and nothing is attempted again', async () => {
    // Act
    const { results } = await deliverUntilSettled(firstMessage('req_gone1', '/gone'));
    clock.advance(24 * 3_600_000);
    // Assert
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      decision: { action: 'disabled' },
      record: { attempt: 1, status: 410 },
      next: null,
    });
    expect(received.map((r) => r.path)).toEqual(['/gone']);
    expect(received[0]!.verified).toEqual({ event: expect.anything() as unknown });
  });

  it('dead-letters after 8 attempts spread over about 28 hours', async () => {
    // Act
    const { results, hops } = await deliverUntilSettled(firstMessage('req_lost1', '/missing'));
    // Assert
    expect(results.map((r) => r.decision.action)).toEqual([
      ...Array<string>(7).fill('retry'),
      'dead_letter',
    ]);
    expect(results.map((r) => r.record.status)).toEqual(Array<number>(8).fill(404));
    expect(hops).toBe(1 + 1 + 2 + 8 + 20 + 40 + 40);
    expect(received).toHaveLength(8);
    expect(received.every((r) => 'event' in r.verified)).toBe(true);
  });
});

describe('HttpWebhookSender', () => {
  it('returns a 302 as it is and never follows it, even through a redirecting dispatcher', async () => {
    // Arrange
    const redirecting = new Agent().compose(interceptors.redirect({ maxRedirections: 3 }));
    const sender = new HttpWebhookSender({ dispatcher: redirecting });
    // Act
    const response = await sender.send(`${base}/moved`, {}, '{}');
    const result = await deliverWebhook(deps(sender), firstMessage('req_moved1', '/moved'));
    // Assert
    expect(response).toEqual({ status: 302, retryAfter: null });
    expect(result.decision).toEqual({ action: 'retry', delayMs: 5_000, reason: 'HTTP 302' });
    expect(received.map((r) => r.path)).toEqual(['/moved', '/moved']);
    await redirecting.close();
  });

  it('gives up on a receiver that does not answer within the time limit', async () => {
    // Arrange
    const sender = new HttpWebhookSender({ dispatcher: agent, timeoutMs: 200 });
    // Act
    const sent = sender.send(`${base}/slow`, {}, '{}');
    // Assert
    await expect(sent).rejects.toThrow(
      expect.objectContaining({
        name: 'WebhookSendError',
        reason: 'timeout',
        message: 'no answer within 200 ms',
      }) as Error,
    );
    await expect(sent).rejects.toBeInstanceOf(WebhookSendError);
  });

  it('records a timeout as an attempt without a status, to be retried', async () => {
    // Arrange
    const sender = new HttpWebhookSender({ dispatcher: agent, timeoutMs: 200 });
    // Act
    const result = await deliverWebhook(deps(sender), firstMessage('req_slow1', '/slow'));
    // Assert
    expect(result.record).toMatchObject({ status: null, error: 'no answer within 200 ms' });
    expect(result.decision).toMatchObject({ action: 'retry', delayMs: 5_000 });
  });

  it('throws WebhookSendError (network) when nothing listens', async () => {
    // Arrange
    const closed = createServer();
    await new Promise<void>((ready) => closed.listen(0, '127.0.0.1', ready));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));
    const sender = new HttpWebhookSender({ dispatcher: agent });
    // Act
    const sent = sender.send(`http://127.0.0.1:${port}/`, {}, '{}');
    // Assert
    await expect(sent).rejects.toThrow(
      expect.objectContaining({
        reason: 'network',
        message: 'network error: ECONNREFUSED',
      }) as Error,
    );
  });

  it('throws WebhookSendError (network) for a URL it cannot send to', async () => {
    // Act
    const sent = new HttpWebhookSender({ dispatcher: agent }).send('not a url', {}, '{}');
    // Assert
    await expect(sent).rejects.toThrow(
      expect.objectContaining({ name: 'WebhookSendError', reason: 'network' }) as Error,
    );
  });

  it('reads the first Retry-After when a receiver sends several', async () => {
    // Arrange
    const twice = createServer((_, res) => {
      res.setHeader('retry-after', ['30', '90']);
      res.writeHead(503).end();
    });
    await new Promise<void>((ready) => twice.listen(0, '127.0.0.1', ready));
    const { port } = twice.address() as AddressInfo;
    // Act
    const response = await new HttpWebhookSender({ dispatcher: agent }).send(
      `http://127.0.0.1:${port}/`,
      {},
      '{}',
    );
    // Assert
    expect(response).toEqual({ status: 503, retryAfter: '30' });
    twice.closeAllConnections();
    await new Promise((done) => twice.close(done));
  });

  it('throws RangeError for a time limit that is not a positive integer', () => {
    // Act / Assert
    expect(() => new HttpWebhookSender({ timeoutMs: 0 })).toThrow(RangeError);
  });
});

describe('HttpWebhookSender with a UrlGuard', () => {
  const port = () => Number(new URL(base).port);

  it.each([
    ['a loopback literal', () => `${base}/target`, undefined],
    ['a name resolving to loopback', () => `http://hooks.test:${port()}/target`, '127.0.0.1'],
    ['a name resolving to the metadata address', () => 'https://meta.test/x', '169.254.169.254'],
  ])('refuses %s before connecting', async (_, url, resolvedTo) => {
    // Arrange
    const guard = new UrlGuard({
      resolve: () => Promise.resolve([{ address: resolvedTo ?? '127.0.0.1', family: 4 }]),
      verb: 'called for webhooks',
    });
    const sender = new HttpWebhookSender({ guard });
    // Act
    const sent = sender.send(url(), {}, '{}');
    // Assert
    await expect(sent).rejects.toThrow(
      expect.objectContaining({ name: 'WebhookSendError', reason: 'refused' }) as Error,
    );
    expect(received).toEqual([]);
  });

  it('connects to the address it checked, not to a second answer of the resolver', async () => {
    // Arrange: an allowlisted name whose first lookup answers the receiver's address.
    let lookups = 0;
    const guard = new UrlGuard({
      allowlist: [{ host: 'hooks.test', port: port() }],
      resolve: () => {
        lookups += 1;
        return Promise.resolve([{ address: lookups === 1 ? '127.0.0.1' : '10.9.9.9', family: 4 }]);
      },
    });
    const sender = new HttpWebhookSender({ guard });
    // Act
    const response = await sender.send(`http://hooks.test:${port()}/target`, {}, '{}');
    // Assert
    expect(response.status).toBe(200);
    expect(lookups).toBe(1);
    expect(received.map((r) => r.path)).toEqual(['/target']);
  });
});
