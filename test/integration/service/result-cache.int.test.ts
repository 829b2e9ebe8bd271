import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { utcDay } from '../../../functions/core/domain/page-quota.js';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { startTestService, type TestService } from '../../support/local-service.js';

/**
 * The result cache on the running local service: a second parse of the same bytes with the same
 * options is answered from the first one's stored result (`document.cached`), free and without
 * taking pages from the daily quota; another option, another tenant, `Cache-Control: no-cache` or
 * `invalidate_cache` parse afresh. Every test parses a PDF of its own (a distinct `label`), so no
 * test sees another's entries.
 */

const KEY = 'key-cache-tenant-a01';
const OTHER_KEY = 'key-cache-tenant-b02';
const TENANT = 'cache-a';

let running: TestService;
let service: LocalServer;
/** Serves `/doc/<label>` as the PDF of that label, for POST /v1/parse. */
let origin: Server;

/** A PDF of `pages` pages whose text names `label`: equal labels give equal bytes. */
async function pdfOf(label: string, pages = 3): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setModificationDate(new Date('2026-01-01T00:00:00Z'));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Cache test ${label}: quarterly figures, page ${n} of ${pages}.`, {
      x: 72,
      y: 700,
      size: 14,
      font,
    });
  }
  return doc.save();
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  origin = createServer((req, res) => {
    void pdfOf(decodeURIComponent(req.url?.replace(/^\/doc\//, '') ?? '')).then((bytes) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(bytes);
    });
  });
  await new Promise<void>((ready) => origin.listen(0, '127.0.0.1', ready));
  running = await startTestService('cache', {
    API_KEYS: `${KEY}=${TENANT}:pro,${OTHER_KEY}=cache-b:pro`,
    // Many requests in a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    URL_FETCH_ALLOWLIST: `127.0.0.1:${portOf(origin)}`,
  });
  service = running.server;
});

afterAll(async () => {
  await running.close();
  origin.close();
});

interface UploadOptions {
  key?: string;
  fields?: Record<string, string>;
  headers?: Record<string, string>;
  path?: string;
}

async function upload(bytes: Uint8Array, options: UploadOptions = {}) {
  const form = new FormData();
  form.append('file', new Blob([Uint8Array.from(bytes)]), 'figures.pdf');
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  const started = performance.now();
  const res = await fetch(`${service.url}${options.path ?? '/v1/parse/upload'}`, {
    method: 'POST',
    headers: { 'x-api-key': options.key ?? KEY, ...options.headers },
    body: form,
  });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, ms: performance.now() - started };
}

const pagesUsedToday = () => service.deps.usage?.pagesUsed(TENANT, utcDay(new Date()));

describe('result cache', () => {
  it('answers a second upload of the same bytes from the cache: cached, free, no quota pages, a new request id', async () => {
    // Arrange
    const bytes = await pdfOf('second-upload');
    const first = await upload(bytes);
    const usedBefore = await pagesUsedToday();
    // Act
    const second = await upload(bytes);
    // Assert
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const [a, b] = [ParseResponse.parse(first.body), ParseResponse.parse(second.body)];
    expect(a.document.cached).toBe(false);
    expect(a.usage.estimated_cost_usd).toBeGreaterThan(0);
    expect(b.document).toEqual({ ...a.document, cached: true });
    expect(b.id).not.toBe(a.id);
    expect(b.pages.map((p) => p.content_markdown)).toEqual(a.pages.map((p) => p.content_markdown));
    expect(second.body.usage).toEqual({
      total_input_tokens: 0,
      total_output_tokens: 0,
      estimated_cost_usd: 0,
      pages_by_tier: { fast: 0, pro: 0, premium: 0 },
      cached: true,
      cached_from: a.id,
    });
    expect(second.body.timing).toMatchObject({
      classification_ms: 0,
      routing_ms: 0,
      vlm_processing_ms: 0,
      verification_ms: 0,
      cached: true,
    });
    expect(b.pages.every((p) => p.tokens.input_tokens === 0 && p.estimated_cost_usd === 0)).toBe(
      true,
    );
    expect(await pagesUsedToday()).toBe(usedBefore);
    // The hit is a request of its own: GET answers it as it was returned.
    const got = await fetch(`${service.url}/v1/parse/${b.id}`, { headers: { 'x-api-key': KEY } });
    expect(await got.json()).toEqual(second.body);
  });

  it('parses afresh when an option that changes the output differs, or for another tenant', async () => {
    // Arrange
    const bytes = await pdfOf('other-option');
    await upload(bytes);
    // Act
    const otherFormat = await upload(bytes, { fields: { maintain_format: 'false' } });
    const otherPages = await upload(bytes, { fields: { max_pages: '2' } });
    const otherTenant = await upload(bytes, { key: OTHER_KEY });
    // Assert
    for (const result of [otherFormat, otherPages, otherTenant]) {
      expect(result.status).toBe(200);
      expect(ParseResponse.parse(result.body).document.cached).toBe(false);
    }
    // Each of them is cached in its turn.
    const again = await upload(bytes, { fields: { max_pages: '2' } });
    expect(ParseResponse.parse(again.body).document.cached).toBe(true);
    expect(ParseResponse.parse(again.body).pages).toHaveLength(2);
  });

  it('parses afresh with Cache-Control: no-cache or invalidate_cache, and the fresh result replaces the entry', async () => {
    // Arrange
    const bytes = await pdfOf('no-cache');
    await upload(bytes);
    const usedBefore = await pagesUsedToday();
    // Act
    const noCache = await upload(bytes, { headers: { 'cache-control': 'max-age=0, no-cache' } });
    const invalidated = await upload(bytes, { fields: { invalidate_cache: 'true' } });
    const after = await upload(bytes);
    // Assert
    expect(ParseResponse.parse(noCache.body).document.cached).toBe(false);
    expect(ParseResponse.parse(invalidated.body).document.cached).toBe(false);
    expect(await pagesUsedToday()).toBe((usedBefore ?? 0) + 6);
    expect(ParseResponse.parse(after.body).document.cached).toBe(true);
    expect((after.body.usage as Record<string, unknown>).cached_from).toBe(invalidated.body.id);
  });

  it('replays ingest.start to result.final from the stored result for an SSE client', async () => {
    // Arrange
    const bytes = await pdfOf('sse', 2);
    const first = await upload(bytes);
    // Act
    const res = await fetch(`${service.url}/v1/parse/upload`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, accept: 'text/event-stream' },
      body: (() => {
        const form = new FormData();
        form.append('file', new Blob([Uint8Array.from(bytes)]), 'figures.pdf');
        return form;
      })(),
    });
    const events: Record<string, unknown>[] = [];
    const parser = createParser({
      onEvent: (message) => events.push(JSON.parse(message.data) as Record<string, unknown>),
    });
    parser.feed(await res.text());
    // Assert
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(events.map((e) => e.event)).toEqual([
      'ingest.start',
      'classify.page',
      'classify.page',
      'route.page',
      'route.page',
      'vlm.page.done',
      'vlm.page.done',
      'result.final',
    ]);
    expect(events[0]).toEqual({ event: 'ingest.start', page_count: 2, cached: true });
    expect(events[1]).toMatchObject({ page: 1, complexity: expect.any(Number) as number });
    const payload = ParseResponse.parse(events.at(-1)?.payload);
    expect(payload.document.cached).toBe(true);
    expect(payload.usage.estimated_cost_usd).toBe(0);
    expect(payload.id).toBe(res.headers.get('x-request-id'));
    expect(payload.pages.map((p) => p.content_markdown)).toEqual(
      ParseResponse.parse(first.body).pages.map((p) => p.content_markdown),
    );
  });

  it('answers a URL parse of bytes parsed before from the cache (the hash of the fetched bytes)', async () => {
    // Arrange
    await upload(await pdfOf('by-url'));
    // Act
    const res = await fetch(`${service.url}/v1/parse`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ file_url: `http://127.0.0.1:${portOf(origin)}/doc/by-url` }),
    });
    // Assert
    expect(res.status).toBe(200);
    const body = ParseResponse.parse(await res.json());
    expect(body.document).toMatchObject({ cached: true, filename: 'by-url' });
    expect(body.usage.estimated_cost_usd).toBe(0);
  });

  it('estimates a document that would be a cache hit at zero cost and says why', async () => {
    // Arrange
    const bytes = await pdfOf('estimate');
    const before = await upload(bytes, { path: '/v1/parse/estimate' });
    const parsed = await upload(bytes);
    // Act
    const after = await upload(bytes, { path: '/v1/parse/estimate' });
    // Assert
    expect(before.body.estimated_cost_usd).toBeGreaterThan(0);
    expect(before.body.cached).toBeUndefined();
    expect(after.body).toMatchObject({
      page_count: 3,
      estimated_cost_usd: 0,
      cached: true,
      cached_from: parsed.body.id,
      reason: expect.stringContaining('result cache') as string,
    });
  });
});
