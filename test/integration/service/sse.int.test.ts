import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * Server-Sent Events as a client reads them: fetch, then an SSE parser over the body. A real
 * 18-page parse through POST /v1/parse/stream and through the upload with
 * `Accept: text/event-stream`.
 */

const DEV = corpusPath('dev');
const KEY = 'key-sse-00000001';
const DOCUMENT = join(DEV, 'files/docling-redp5110_sampled.pdf');
const PAGES = 18;

let running: TestService;
let server: LocalServer;

beforeAll(async () => {
  running = await startTestService('sse', {
    API_KEYS: `${KEY}=sse:pro`,
    // Many requests in a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
  });
  server = running.server;
});

afterAll(async () => {
  await running.close();
});

interface Received {
  status: number;
  contentType: string | null;
  events: Record<string, unknown>[];
  /** Each `data:` line as sent, to check the wire format. */
  raw: string;
}

/** POSTs the document and reads the SSE stream to its end (or `stopAfter` events). */
async function stream(
  path: string,
  options: { query?: string; accept?: string; stopAfter?: number } = {},
): Promise<Received & { requestId: string | null }> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(DOCUMENT)]), basename(DOCUMENT));
  const abort = new AbortController();
  const res = await fetch(`${server.url}${path}${options.query ?? ''}`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, accept: options.accept ?? 'text/event-stream' },
    body: form,
    signal: abort.signal,
  });
  const events: Record<string, unknown>[] = [];
  const parser = createParser({
    onEvent: (message) => events.push(JSON.parse(message.data) as Record<string, unknown>),
  });
  let raw = '';
  const decoder = new TextDecoder();
  if (!res.body) throw new Error('no body');
  try {
    for await (const chunk of res.body) {
      const text = decoder.decode(chunk, { stream: true });
      raw += text;
      parser.feed(text);
      if (options.stopAfter !== undefined && events.length >= options.stopAfter) {
        abort.abort();
        break;
      }
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    requestId: res.headers.get('x-request-id'),
    events,
    raw,
  };
}

const named = (events: Record<string, unknown>[], name: string) =>
  events.filter((e) => e.event === name);
const firstIndex = (events: Record<string, unknown>[], name: string) =>
  events.findIndex((e) => e.event === name);
const lastIndex = (events: Record<string, unknown>[], name: string) =>
  events.map((e) => e.event).lastIndexOf(name);

describe('SSE on POST /v1/parse/stream', () => {
  it('sends every progress event in order, then result.final with the full ParseResponse', async () => {
    // Act
    const received = await stream('/v1/parse/stream');
    // Assert: the wire format.
    expect(received.status).toBe(200);
    expect(received.contentType).toMatch(/^text\/event-stream/);
    for (const block of received.raw.split('\n\n').filter((b) => b.trim() !== '')) {
      expect(block).toMatch(/^(data: \{.*\}|: keepalive)$/);
    }
    // Every event, each with its fields.
    const { events } = received;
    expect(named(events, 'ingest.start')).toEqual([{ event: 'ingest.start', page_count: PAGES }]);
    for (const name of ['classify.page', 'route.page', 'vlm.page.done']) {
      const pages = named(events, name).map((e) => e.page);
      expect(new Set(pages).size, name).toBe(PAGES);
    }
    for (const e of named(events, 'classify.page')) expect(typeof e.complexity).toBe('number');
    for (const e of named(events, 'route.page')) {
      expect(typeof e.tier).toBe('string');
      expect(typeof e.provider).toBe('string');
    }
    for (const e of named(events, 'vlm.page.done')) expect(typeof e.confidence).toBe('number');
    expect(named(events, 'node.started').length).toBeGreaterThanOrEqual(6);
    expect(named(events, 'node.completed').length).toBe(named(events, 'node.started').length);
    // In pipeline order, with result.final once and last.
    expect(firstIndex(events, 'ingest.start')).toBeLessThan(firstIndex(events, 'classify.page'));
    expect(lastIndex(events, 'classify.page')).toBeLessThan(firstIndex(events, 'route.page'));
    expect(lastIndex(events, 'route.page')).toBeLessThan(firstIndex(events, 'vlm.page.done'));
    expect(named(events, 'result.final')).toHaveLength(1);
    const final = events.at(-1);
    expect(final?.event).toBe('result.final');
    const response = ParseResponse.parse(final?.payload);
    expect(response.id).toBe(received.requestId);
    expect(response.pages).toHaveLength(PAGES);
  }, 120_000);

  it('drops the node events with legacy_events=true and keeps the rest', async () => {
    // Act
    const { events } = await stream('/v1/parse/stream', { query: '?legacy_events=true' });
    // Assert
    expect(named(events, 'node.started')).toEqual([]);
    expect(named(events, 'node.completed')).toEqual([]);
    expect(named(events, 'route.page')).toHaveLength(PAGES);
    expect(ParseResponse.parse(events.at(-1)?.payload).pages).toHaveLength(PAGES);
  }, 120_000);

  it('streams the upload too when the client accepts text/event-stream', async () => {
    // Act
    const received = await stream('/v1/parse/upload', { query: '?include_warnings=true' });
    // Assert
    expect(received.contentType).toMatch(/^text\/event-stream/);
    const final = received.events.at(-1);
    expect(final?.event).toBe('result.final');
    const response = ParseResponse.parse(final?.payload);
    expect(response.pages.every((p) => Array.isArray(p.warnings))).toBe(true);
  }, 120_000);

  it('loses nothing when the client disconnects: the parse finishes and can be fetched', async () => {
    // Act: read three events, then hang up.
    const received = await stream('/v1/parse/stream', { stopAfter: 3 });
    const id = String(received.requestId);
    let result: Record<string, unknown> = {};
    for (let i = 0; i < 120 && result.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const res = await fetch(`${server.url}/v1/parse/${id}`, { headers: { 'x-api-key': KEY } });
      result = (await res.json()) as Record<string, unknown>;
    }
    // Assert
    expect(received.events.length).toBeGreaterThanOrEqual(3);
    expect(result.status).toBe('completed');
    expect(ParseResponse.parse(result).pages).toHaveLength(PAGES);
  }, 120_000);

  it('refuses a broken extraction_schema before streaming, with 422', async () => {
    // Arrange
    const form = new FormData();
    form.append('file', new Blob([readFileSync(DOCUMENT)]), 'doc.pdf');
    form.append('extraction_schema', '{not json');
    // Act
    const res = await fetch(`${server.url}/v1/parse/stream`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
      body: form,
    });
    // Assert
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[] }[] };
    expect(body.detail[0]?.loc).toContain('extraction_schema');
  });
});
