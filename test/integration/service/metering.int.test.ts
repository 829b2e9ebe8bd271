import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { utcDay } from '../../../functions/core/domain/page-quota.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * Pages are counted when their parse begins, on the running local service: a 25-page paper from
 * the corpus is parsed one page at a time by a vision model (a fake OpenAI-compatible server the
 * test drives), for free keys (25 pages a day). A cancel after some pages leaves those pages
 * counted, the page with the model at the time of the cancel included; a failure after some
 * pages leaves them counted too and gives back the rest.
 */

const PAPER = corpusPath('papers/files/readoc-arxiv-1506.06975.pdf');
const PAGES = 25;
const CANCELLER = 'key-metering-cancel-01';
const FAILING = 'key-metering-fail-0002';

/** What the fake model does with the n-th page it is asked for (1-based). */
let onRequest: (n: number) => Promise<'answer' | 'fail'> = () => Promise.resolve('answer');
let asked = 0;
let model: Server;
let service: TestService;

const drain = (req: IncomingMessage) =>
  new Promise<void>((done) => {
    req.resume();
    req.on('end', done);
  });

beforeAll(async () => {
  model = createServer((req, res) => {
    void drain(req)
      .then(() => onRequest(++asked))
      .then((what) => {
        if (what === 'fail') {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"error":{"message":"the model server went away"}}');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            choices: [{ message: { content: `# Page\n\nText ${asked}.` }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 100, completion_tokens: 20 },
          }),
        );
      });
  });
  await new Promise<void>((done) => model.listen(0, '127.0.0.1', done));
  const port = (model.address() as AddressInfo).port;
  const vision = {
    kind: 'openai-compatible',
    model: 'fake-vision-1',
    base_url: `http://127.0.0.1:${String(port)}/v1`,
    timeout_ms: 30_000,
    max_retries: 0,
  };
  const only = (price: number) => ({ providers: ['vision'], price_per_page_usd: price });
  service = await startTestService('metering', {
    API_KEYS: `${CANCELLER}=cancelling-tenant:free,${FAILING}=failing-tenant:free`,
    PLAN_LIMITS: '{"free":{"requests_per_minute":null}}',
    PAGE_CONCURRENCY: '1',
    PROVIDERS_JSON: JSON.stringify({
      providers: { vision },
      tiers: { fast: only(0.001), pro: only(0.01), premium: only(0.03) },
      // One failure opens the circuit, so the failed page is not retried for seconds.
      breaker: { failure_threshold: 1, cooldown_ms: 600_000 },
    }),
  });
}, 60_000);

afterAll(async () => {
  await service.close();
  await new Promise((done) => model.close(done));
});

/**
 * Streams a parse of the paper (POST /v1/parse/stream) with `key`, calls `onEvent` with each
 * event, and reads the stream to its end. @returns the request id and the events.
 */
async function streamParse(
  key: string,
  onEvent: (event: Record<string, unknown>, requestId: string) => Promise<void> = () =>
    Promise.resolve(),
): Promise<{ status: number; requestId: string; events: Record<string, unknown>[] }> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(PAPER)]), basename(PAPER));
  const res = await fetch(`${service.url}/v1/parse/stream?enable_verification=false`, {
    method: 'POST',
    headers: { 'x-api-key': key, accept: 'text/event-stream' },
    body: form,
  });
  const requestId = res.headers.get('x-request-id') ?? '';
  const events: Record<string, unknown>[] = [];
  const pending: Promise<void>[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const event = JSON.parse(message.data) as Record<string, unknown>;
      events.push(event);
      pending.push(onEvent(event, requestId));
    },
  });
  if (!res.body) throw new Error('no body');
  const decoder = new TextDecoder();
  for await (const chunk of res.body) parser.feed(decoder.decode(chunk, { stream: true }));
  await Promise.all(pending);
  return { status: res.status, requestId, events };
}

/** POST /v1/parse/upload of the paper with `key`: the status and the `detail` of an error. */
async function upload(key: string): Promise<{ status: number; detail: unknown }> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(PAPER)]), basename(PAPER));
  const res = await fetch(`${service.url}/v1/parse/upload`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  const body = (await res.json()) as { detail?: unknown };
  return { status: res.status, detail: body.detail };
}

const pagesUsed = (tenant: string) =>
  service.server.deps.usage?.pagesUsed(tenant, utcDay(new Date()));

describe('daily pages on the local service', () => {
  it('keeps the pages parsed before a cancel counted, the one with the model included', async () => {
    // Arrange: the model holds its 3rd page until the parse is cancelled.
    asked = 0;
    let cancelled!: () => void;
    const cancelDone = new Promise<void>((done) => (cancelled = done));
    onRequest = async (n) => {
      if (n === 3) await cancelDone;
      return 'answer';
    };
    let cancelStatus = 0;
    let pagesDone = 0;
    // Act: cancel once two pages are done.
    const parsed = await streamParse(CANCELLER, async (event, requestId) => {
      if (event.event !== 'vlm.page.done' || ++pagesDone !== 2) return;
      const res = await fetch(`${service.url}/v1/parse/${requestId}/cancel`, {
        method: 'POST',
        headers: { 'x-api-key': CANCELLER },
      });
      cancelStatus = res.status;
      cancelled();
    });
    // The page held by the model ends after the cancel: give it time to finish.
    await new Promise((done) => setTimeout(done, 500));
    const record = await service.server.deps.requests.get(parsed.requestId);
    const used = await pagesUsed('cancelling-tenant');
    const again = await upload(CANCELLER);
    // Assert
    expect(cancelStatus).toBe(202);
    expect(record?.status).toBe('cancelled');
    expect(record?.chargedPages).toEqual([1, 2, 3]);
    expect(asked).toBe(3);
    expect(used).toBe(3);
    // The next parse of the same 25 pages no longer fits in the day.
    expect(again.status).toBe(402);
    expect(again.detail).toContain(
      `the free plan allows 25 pages per day; 3 are used today and this document has ${PAGES};`,
    );
    expect(await pagesUsed('cancelling-tenant')).toBe(3);
  }, 120_000);

  it('keeps the pages parsed before a failure counted and gives back the rest', async () => {
    // Arrange: the model answers two pages, then fails.
    asked = 0;
    onRequest = (n) => Promise.resolve(n <= 2 ? 'answer' : 'fail');
    // Act
    const parsed = await streamParse(FAILING);
    // Assert
    const failure = parsed.events.find((e) => e.event === 'error');
    expect(failure).toBeDefined();
    const record = await service.server.deps.requests.get(parsed.requestId);
    expect(record?.status).toBe('failed');
    expect(record?.chargedPages).toEqual([1, 2]);
    // The refund is written just after the failed status a client may see first, and the
    // execution goes on recording the failure after that: both are waited for.
    await vi.waitFor(
      async () => {
        expect(await pagesUsed('failing-tenant')).toBe(2);
        const { workflow } = service.server.deps;
        expect(await workflow.running(record?.executionId ?? '')).toBe(false);
      },
      { timeout: 10_000 },
    );
  }, 120_000);
});
