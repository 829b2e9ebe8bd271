import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { verifyWebhook } from '../../../functions/adapters/http/webhook-signer.js';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { WebhookEvent } from '../../../functions/core/domain/webhooks.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * Webhooks end to end on the local service: POST /v1/parse with a `webhook_url` answers with the
 * ParseResponse as without one (or 202 at once with `Prefer: respond-async`); when the parse ends
 * the deliverer (the queue consumer's Lambda handler, run in process) POSTs the signed event to
 * a receiver that verifies it, as a customer's endpoint would. A receiver that fails the first
 * attempt gets the event again after the schedule's first delay (5 s), under the same
 * `webhook-id`.
 */

const DEV = corpusPath('dev');
const KEY = 'key-webhooks-001';
const OTHER_KEY = 'key-webhooks-002';
const PDF = readFileSync(join(DEV, 'files/docling-2305.03393v1-pg9.pdf'));

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let running: TestService;
let service: LocalServer;
/** Serves the corpus PDF and receives webhooks; allowlisted. */
let peer: Server;
const received: Received[] = [];
/** Requests per receiver path so far. */
const hits = new Map<string, number>();

/**
 * The corpus PDF, or with `?v=<name>` the same PDF with a comment after its end: other bytes,
 * the same document, so that no test is answered with another's result.
 */
const variantOf = (path: string): Buffer => {
  const variant = new URL(path, 'http://peer').searchParams.get('v');
  return variant === null ? PDF : Buffer.concat([PDF, Buffer.from(`\n% ${variant}\n`)]);
};

const portOf = (server: Server) => (server.address() as AddressInfo).port;
const peerUrl = (path: string) => `http://127.0.0.1:${portOf(peer)}${path}`;

beforeAll(async () => {
  peer = createServer((req, res) => {
    const path = req.url ?? '/';
    if (req.method === 'GET' && path.startsWith('/doc.pdf')) {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(variantOf(path));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const n = (hits.get(path) ?? 0) + 1;
      hits.set(path, n);
      // `/hooks/flaky` fails its first request; the others accept everything.
      res.writeHead(path === '/hooks/flaky' && n === 1 ? 503 : 204);
      res.end();
    });
  });
  await new Promise<void>((ready) => peer.listen(0, '127.0.0.1', ready));
  running = await startTestService('webhooks', {
    API_KEYS: `${KEY}=hooks:pro,${OTHER_KEY}=others:pro`,
    // Many requests in a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    URL_FETCH_ALLOWLIST: `127.0.0.1:${portOf(peer)}`,
  });
  service = running.server;
});

afterAll(async () => {
  await running.close();
  peer.close();
});

async function call(
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown>,
  };
}

/** Polls GET /v1/parse/{id} until `done` holds for its body. */
async function pollUntil(
  id: string,
  done: (body: Record<string, unknown>) => boolean,
  timeoutMs = 60_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await call('GET', `/v1/parse/${id}`, KEY);
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`timed out; last body ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Delivery {
  status: string;
  attempts: { attempt: number; status: number | null; at: string }[];
}

describe('webhooks of URL parses', () => {
  it('answers 200 with the full ParseResponse, as without a webhook, and delivers one signed parse.completed event', async () => {
    // Arrange
    const { body: secretBody } = await call('GET', '/v1/webhooks/secret', KEY);
    const secret = secretBody.secret as string;
    // Act
    const parsed = await call('POST', '/v1/parse', KEY, {
      file_url: peerUrl('/doc.pdf?v=sync'),
      webhook_url: peerUrl('/hooks/sync'),
    });
    const result = ParseResponse.parse(parsed.body);
    const final = await pollUntil(
      result.id,
      (b) => (b.webhook as Delivery | undefined)?.status === 'delivered',
    );
    // A second delivery would come within the consumer's next turns: give it time to show.
    await new Promise((r) => setTimeout(r, 2000));
    // Assert: the answer is the parse itself, not a status view.
    expect(parsed.status).toBe(200);
    expect(parsed.headers.get('preference-applied')).toBeNull();
    expect(result.status).toBe('completed');
    expect(result.pages).toHaveLength(1);
    expect(result.pages[0]?.content_markdown).toMatch(/TableFormer/i);
    // Exactly one request reached the receiver, signed with the tenant's secret.
    const deliveries = received.filter((r) => r.path === '/hooks/sync');
    expect(deliveries).toHaveLength(1);
    const event = WebhookEvent.parse(
      verifyWebhook(secret, deliveries[0]!.headers, deliveries[0]!.body),
    );
    expect(event).toMatchObject({
      type: 'parse.completed',
      data: {
        request_id: result.id,
        status: 'completed',
        result_url: `${service.url}/v1/parse/${result.id}`,
      },
    });
    expect(deliveries[0]!.headers['webhook-id']).toBe(`msg_${result.id}_completed`);
    expect((final.webhook as Delivery).attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, 204],
    ]);
  });

  it('delivers one signed event to the webhook of a URL parse answered from the result cache', async () => {
    // Arrange: the same bytes parsed once before.
    const { body: secretBody } = await call('GET', '/v1/webhooks/secret', KEY);
    const first = await call('POST', '/v1/parse', KEY, { file_url: peerUrl('/doc.pdf?v=cached') });
    // Act
    const again = await call('POST', '/v1/parse', KEY, {
      file_url: peerUrl('/doc.pdf?v=cached'),
      webhook_url: peerUrl('/hooks/cached'),
    });
    const result = ParseResponse.parse(again.body);
    await pollUntil(result.id, (b) => (b.webhook as Delivery | undefined)?.status === 'delivered');
    await new Promise((r) => setTimeout(r, 2000));
    // Assert: the cached answer, and its own event, once.
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(result.id).not.toBe(first.body.id);
    expect(result.document.cached).toBe(true);
    const deliveries = received.filter((r) => r.path === '/hooks/cached');
    expect(deliveries).toHaveLength(1);
    const event = WebhookEvent.parse(
      verifyWebhook(secretBody.secret as string, deliveries[0]!.headers, deliveries[0]!.body),
    );
    expect(event).toMatchObject({
      type: 'parse.completed',
      data: { request_id: result.id, status: 'completed' },
    });
  });

  it('answers 202 at once on Prefer: respond-async, then delivers a signed parse.completed event, retried after a 503 under one webhook-id', async () => {
    // Arrange
    const { body: secretBody } = await call('GET', '/v1/webhooks/secret', KEY);
    const verifier = new Webhook(secretBody.secret as string);
    // Act
    const accepted = await call(
      'POST',
      '/v1/parse',
      KEY,
      { file_url: peerUrl('/doc.pdf?v=async'), webhook_url: peerUrl('/hooks/flaky') },
      { prefer: 'respond-async' },
    );
    const id = accepted.body.id as string;
    const final = await pollUntil(
      id,
      (b) => (b.webhook as Delivery | undefined)?.status === 'delivered',
    );
    // Assert: accepted at once, with the request's status.
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
    expect(accepted.headers.get('location')).toBe(`${service.url}/v1/parse/${id}`);
    expect(accepted.body).toMatchObject({
      id: expect.stringMatching(/^req_/) as unknown,
      status: 'queued',
    });
    // Two requests reached the receiver, the same event under the same webhook-id.
    const deliveries = received.filter((r) => r.path === '/hooks/flaky');
    expect(deliveries).toHaveLength(2);
    const ids = new Set(deliveries.map((d) => d.headers['webhook-id']));
    expect([...ids]).toEqual([`msg_${id}_completed`]);
    // Each verifies with the tenant's secret, and carries the event of the finished parse.
    for (const delivery of deliveries) {
      const headers = {
        'webhook-id': String(delivery.headers['webhook-id']),
        'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
        'webhook-signature': String(delivery.headers['webhook-signature']),
      };
      const event = WebhookEvent.parse(verifier.verify(delivery.body, headers));
      expect(event).toMatchObject({
        type: 'parse.completed',
        data: { request_id: id, status: 'completed', result_url: `${service.url}/v1/parse/${id}` },
      });
    }
    // The retry came after the schedule's first delay.
    const webhook = final.webhook as Delivery;
    expect(webhook.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, 503],
      [2, 204],
    ]);
    const gap = Date.parse(webhook.attempts[1]!.at) - Date.parse(webhook.attempts[0]!.at);
    expect(gap).toBeGreaterThanOrEqual(5000);
    // The result the event points to is the full ParseResponse.
    const result = ParseResponse.parse(final);
    expect(result.status).toBe('completed');
    expect(result.pages.length).toBe(1);
  });

  it('signs with a secret per tenant: another tenant has another secret', async () => {
    // Act
    const mine = await call('GET', '/v1/webhooks/secret', KEY);
    const theirs = await call('GET', '/v1/webhooks/secret', OTHER_KEY);
    // Assert
    expect(mine.status).toBe(200);
    expect(mine.body.secret).toMatch(/^whsec_/);
    expect(theirs.body.secret).toMatch(/^whsec_/);
    expect(theirs.body.secret).not.toBe(mine.body.secret);
  });

  it.each([
    ['a loopback address', 'https://127.0.0.1/hook', 'loopback'],
    ['the metadata service', 'https://169.254.169.254/latest', 'link-local'],
    ['plain http to a public host', 'http://example.com/hook', 'only https'],
    ['an IPv4-mapped private address', 'https://[::ffff:10.0.0.1]/hook', 'private'],
  ])('refuses a webhook_url at %s with 400 before downloading anything', async (_, url, why) => {
    // Arrange
    const before = received.length;
    // Act
    const refused = await call('POST', '/v1/parse', KEY, {
      file_url: peerUrl('/doc.pdf'),
      webhook_url: url,
    });
    // Assert
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/^webhook_url refused: /);
    expect(String(refused.body.detail)).toContain(why);
    expect(received.length).toBe(before);
  });
});
