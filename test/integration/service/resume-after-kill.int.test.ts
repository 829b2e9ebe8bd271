import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeVisionProvidersJson,
  startChildService,
  type ChildService,
} from '../../support/child-service.js';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';

/**
 * A parse survives the death of its server: the local server (`bin/local.ts`, a child process)
 * parses a 40-page document with a vision model (a fake OpenAI-compatible server that takes
 * 150 ms a page and answers each page image with a text derived from its bytes), is killed with
 * SIGKILL midway, started again on the same data directory, and 20 concurrent
 * `POST /v1/parse/{id}/resume` finish the parse in one run, asking the model only for the pages
 * that had no checkpoint, and all get the same body. The result
 * equals the one of an uninterrupted parse of the same document.
 */

const KEY = 'key-resume-0001';
const PAGES = 40;

let dataDir: string;
let model: Server;
/** Page images the model was asked to transcribe, by hash, in order. */
const asked: string[] = [];
let server: ChildService | undefined;
let base = '';
let pdf: Uint8Array;

const portOf = (s: Server) => (s.address() as AddressInfo).port;

/** A chat completion whose text depends only on the image it was sent. */
function answer(body: string): string {
  const image = /data:image\/png;base64,([A-Za-z0-9+/=]+)/.exec(body)?.[1] ?? '';
  const digest = createHash('sha256').update(image).digest('hex');
  asked.push(digest);
  return JSON.stringify({
    choices: [
      {
        message: {
          content: `# Section ${digest.slice(0, 8)}\n\nText of page ${digest.slice(8, 16)}.`,
        },
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 20 },
  });
}

async function startServer(): Promise<void> {
  server = await startChildService({
    DATA_DIR: dataDir,
    API_KEYS: `${KEY}=resumers:pro`,
    // Many requests in a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    PROVIDERS_JSON: fakeVisionProvidersJson(portOf(model)),
    PAGE_CONCURRENCY: '2',
  });
  base = server.url;
}

function kill(): Promise<void> {
  const child = server;
  server = undefined;
  return child ? child.stop('SIGKILL') : Promise.resolve();
}

async function fortyPagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= PAGES; n++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Chapter ${n}`, { x: 72, y: 700, size: 24, font });
    page.drawText(`This page carries the number ${n} and nothing else.`, {
      x: 72,
      y: 650,
      size: 12,
      font,
    });
  }
  return doc.save();
}

/** Starts a parse and returns its id as soon as the server names it (SSE, X-Request-Id). */
async function submit(): Promise<{ id: string; abort: () => void }> {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(pdf)], { type: 'application/pdf' }), 'forty.pdf');
  form.append('enable_verification', 'false');
  // Every submission parses: a result cached by an earlier test would answer at once.
  form.append('invalidate_cache', 'true');
  const controller = new AbortController();
  const res = await fetch(`${base}/v1/parse/upload`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, accept: 'text/event-stream' },
    body: form,
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const id = res.headers.get('x-request-id') ?? '';
  // Keep reading so that the server is not held up by a full socket.
  void res.body?.pipeTo(new WritableStream()).catch(() => undefined);
  return {
    id,
    abort: () => {
      controller.abort();
    },
  };
}

async function post(path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'x-api-key': KEY } });
  return { status: res.status, body: await res.json() };
}

/** The pages of a result with what depends on the run (latency, cost timing) left out. */
const content = (result: ParseResponse) =>
  result.pages.map((p) => ({
    page: p.page_number,
    markdown: p.content_markdown,
    provider: p.provider,
    tier: p.tier_used,
  }));

beforeAll(async () => {
  pdf = await fortyPagePdf();
  model = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = answer(Buffer.concat(chunks).toString('utf8'));
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(reply);
      }, 150);
    });
  });
  await new Promise<void>((ready) => model.listen(0, '127.0.0.1', ready));
  dataDir = mkdtempSync(join(tmpdir(), 'docparse-resume-'));
  await startServer();
});

afterAll(async () => {
  await kill();
  model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('resume after the server was killed', () => {
  it('finishes a 40-page parse from its checkpoints, equal to an uninterrupted parse', async () => {
    // Arrange: kill the server once the model has answered about a third of the pages.
    const { id, abort } = await submit();
    while (asked.length < 12) await new Promise((r) => setTimeout(r, 50));
    await kill();
    abort();
    const askedBeforeKill = asked.length;
    await startServer();
    // Act: 20 clients resume at once.
    const resumes = await Promise.all(
      Array.from({ length: 20 }, () => post(`/v1/parse/${id}/resume`)),
    );
    const resumed = resumes[0]!;
    const resumeAsks = asked.slice(askedBeforeKill);
    const askedByResume = resumeAsks.length;
    // An uninterrupted parse of the same document, for comparison.
    const whole = await fetch(`${base}/v1/parse/upload`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
      body: (() => {
        const form = new FormData();
        form.append('file', new Blob([Buffer.from(pdf)], { type: 'application/pdf' }), 'forty.pdf');
        form.append('enable_verification', 'false');
        form.append('invalidate_cache', 'true');
        return form;
      })(),
    });
    // Assert
    expect(resumes.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
    // One run served them all: identical bodies, and no page asked twice by the resume.
    expect(new Set(resumes.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(new Set(resumeAsks).size).toBe(askedByResume);
    const result = ParseResponse.parse(resumed.body);
    expect(result.id).toBe(id);
    expect(result.status).toBe('completed');
    expect(result.pages).toHaveLength(PAGES);
    // Only the pages without a checkpoint went to the model again (a page in flight at the kill
    // is asked twice, at most PAGE_CONCURRENCY of them).
    expect(askedByResume).toBeLessThan(PAGES - 12 + 3);
    expect(askedByResume).toBeGreaterThan(0);
    const uninterrupted = ParseResponse.parse(await whole.json());
    expect(content(result)).toEqual(content(uninterrupted));
    // The result is saved again: GET returns it.
    const stored = await fetch(`${base}/v1/parse/${id}`, { headers: { 'x-api-key': KEY } });
    expect(content(ParseResponse.parse(await stored.json()))).toEqual(content(result));
  });

  it('cancels an in-flight parse: 202, no further model call, then 404 to resume and cancel', async () => {
    // Arrange
    const { id, abort } = await submit();
    const before = asked.length;
    while (asked.length < before + 3) await new Promise((r) => setTimeout(r, 20));
    // Act
    const cancelled = await post(`/v1/parse/${id}/cancel`);
    const atCancel = asked.length;
    await new Promise((r) => setTimeout(r, 1500));
    abort();
    // Assert
    expect(cancelled).toEqual({
      status: 202,
      body: { request_id: id, status: 'cancelled', detail: expect.any(String) as unknown },
    });
    // Pages already sent to the model may come back (PAGE_CONCURRENCY 2); nothing more is sent.
    expect(asked.length - atCancel).toBeLessThanOrEqual(2);
    const status = await fetch(`${base}/v1/parse/${id}`, { headers: { 'x-api-key': KEY } });
    expect(((await status.json()) as { status: string }).status).toBe('cancelled');
    expect((await post(`/v1/parse/${id}/resume`)).status).toBe(404);
    expect((await post(`/v1/parse/${id}/cancel`)).status).toBe(404);
  });

  it('answers 404 to resume and cancel of a parse that is gone or finished', async () => {
    // Act
    const unknown = await post('/v1/parse/req_doesnotexist/resume');
    const cancelUnknown = await post('/v1/parse/req_doesnotexist/cancel');
    // Assert
    expect(unknown.status).toBe(404);
    expect(cancelUnknown.status).toBe(404);
  });
});
