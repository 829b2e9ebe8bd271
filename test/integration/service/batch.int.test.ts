import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { HTTPValidationError, ParseResponse } from '../../../functions/core/domain/schemas.js';
import { BatchWebhookEvent } from '../../../functions/core/domain/webhooks.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * Batches end to end on the local service: POST /v1/parse/batch answers at once; the documents
 * are downloaded from a local origin (allowlisted) and parsed through the in-process batch queue
 * by the consumer's own Lambda handler; GET /v1/batch/{id} shows the progress; the end is
 * POSTed once, signed, to the batch's webhook.
 */

const FILES = corpusPath('dev/files');
const KEY = 'key-batches-001';
const OTHER_KEY = 'key-batches-002';
const DOCUMENTS = [
  'pypdf-minimal-document.pdf',
  'docling-2305.03393v1-pg9.pdf',
  'olmocr-small_page_size.pdf',
  'zerox-0012.png',
];

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let running: TestService;
let service: LocalServer;
/** Serves corpus files under /files/ (anything else is 404) and receives webhooks. */
let peer: Server;
const received: Received[] = [];

const portOf = (server: Server) => (server.address() as AddressInfo).port;
const peerUrl = (path: string) => `http://127.0.0.1:${portOf(peer)}${path}`;

beforeAll(async () => {
  peer = createServer((req, res) => {
    const path = req.url ?? '/';
    if (req.method === 'GET') {
      const name = /^\/files\/([\w.-]+)$/.exec(path)?.[1];
      if (name && DOCUMENTS.includes(name)) {
        res.writeHead(200, {
          'content-type': name.endsWith('.png') ? 'image/png' : 'application/pdf',
        });
        res.end(readFileSync(join(FILES, name)));
      } else {
        res.writeHead(404);
        res.end();
      }
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((ready) => peer.listen(0, '127.0.0.1', ready));
  running = await startTestService('batches', {
    API_KEYS: `${KEY}=batches:pro,${OTHER_KEY}=others:pro`,
    // Polls many times a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    URL_FETCH_ALLOWLIST: `127.0.0.1:${portOf(peer)}`,
  });
  service = running.server;
});

afterAll(async () => {
  await running.close();
  peer.close();
});

async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface BatchView {
  batch_id: string;
  status: string;
  totals: Record<string, number>;
  completed_documents: number;
  total_documents: number;
  items: { request_id: string | null; status: string; file_url: string; error?: unknown }[];
  webhook?: { status: string; attempts: unknown[] };
}

/** Polls GET /v1/batch/{id} until `done` holds, checking the totals on every read. */
async function pollUntil(
  id: string,
  done: (batch: BatchView) => boolean,
  timeoutMs = 150_000,
): Promise<BatchView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await call('GET', `/v1/batch/${id}`, KEY);
    expect(status).toBe(200);
    const batch = body as unknown as BatchView;
    const sum = Object.values(batch.totals).reduce((a, n) => a + n, 0);
    expect(sum).toBe(batch.total_documents);
    if (done(batch)) return batch;
    if (Date.now() > deadline) throw new Error(`timed out; last body ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('batches', () => {
  it('parses every document, fails the one that is not there, and announces the end once, signed', async () => {
    // Arrange
    const { body: secretBody } = await call('GET', '/v1/webhooks/secret', KEY);
    const verifier = new Webhook(secretBody.secret as string);
    const urls = [
      ...DOCUMENTS.map((name) => peerUrl(`/files/${name}`)),
      peerUrl('/files/gone.pdf'),
    ];
    // Act
    const accepted = await call('POST', '/v1/parse/batch', KEY, {
      documents: urls.map((file_url) => ({ file_url })),
      webhook_url: peerUrl('/hooks/batch'),
      priority: 'high',
    });
    const id = accepted.body.batch_id as string;
    const ended = await pollUntil(id, (b) => b.webhook?.status === 'delivered');
    // Assert: accepted at once.
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({
      batch_id: expect.stringMatching(/^batch_[A-Za-z0-9]+$/) as unknown,
      status: 'queued',
      item_count: 5,
    });
    // Ended completed: four documents parsed, the missing one failed with the origin's status.
    expect(ended).toMatchObject({
      batch_id: id,
      status: 'completed',
      totals: { queued: 0, in_progress: 0, completed: 4, failed: 1 },
      completed_documents: 5,
      total_documents: 5,
    });
    expect(ended.items.map((i) => [i.file_url, i.status])).toEqual(
      urls.map((url, i) => [url, i < 4 ? 'completed' : 'failed']),
    );
    expect(ended.items[4]).toMatchObject({
      request_id: null,
      error: { kind: 'invalid', detail: expect.stringMatching(/404/) as unknown },
    });
    // Each completed item's request holds its ParseResponse.
    for (const item of ended.items.slice(0, 4)) {
      const result = await call('GET', `/v1/parse/${item.request_id ?? ''}`, KEY);
      expect(result.status).toBe(200);
      expect(ParseResponse.parse(result.body).status).toBe('completed');
    }
    const first = await call('GET', `/v1/parse/${ended.items[1]?.request_id ?? ''}`, KEY);
    expect(ParseResponse.parse(first.body).pages[0]?.content_markdown).toContain('TableFormer');
    // The webhook came once, verifies with the tenant's secret, and names the batch's end.
    await new Promise((r) => setTimeout(r, 1000));
    const hooks = received.filter((r) => r.path === '/hooks/batch');
    expect(hooks).toHaveLength(1);
    const hook = hooks[0]!;
    const event = BatchWebhookEvent.parse(
      verifier.verify(hook.body, {
        'webhook-id': String(hook.headers['webhook-id']),
        'webhook-timestamp': String(hook.headers['webhook-timestamp']),
        'webhook-signature': String(hook.headers['webhook-signature']),
      }),
    );
    expect(hook.headers['webhook-id']).toBe(`msg_${id}_completed`);
    expect(event).toMatchObject({
      type: 'batch.completed',
      data: {
        batch_id: id,
        status: 'completed',
        totals: { queued: 0, in_progress: 0, completed: 4, failed: 1 },
        result_url: `${service.url}/v1/batch/${id}`,
      },
    });
  });

  it.each([0, 101])('answers 422 with the validation body for %i documents', async (count) => {
    // Act
    const result = await call('POST', '/v1/parse/batch', KEY, {
      documents: Array.from({ length: count }, () => ({ file_url: peerUrl('/files/x.pdf') })),
    });
    // Assert
    expect(result.status).toBe(422);
    expect(HTTPValidationError.parse(result.body).detail[0]?.loc).toEqual(['body', 'documents']);
  });

  it("answers 404 for another tenant's batch, as for an unknown one", async () => {
    // Arrange
    const accepted = await call('POST', '/v1/parse/batch', KEY, {
      documents: [{ file_url: peerUrl('/files/pypdf-minimal-document.pdf') }],
    });
    const id = accepted.body.batch_id as string;
    // Act
    const theirs = await call('GET', `/v1/batch/${id}`, OTHER_KEY);
    const unknown = await call('GET', '/v1/batch/batch_unknown', OTHER_KEY);
    // Assert
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(Object.keys(theirs.body)).toEqual(['detail']);
    await pollUntil(id, (b) => b.status === 'completed');
  });
});
