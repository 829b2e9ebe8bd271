import { mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
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

/**
 * A server killed with SIGKILL in the middle of a parse can be started again at once on the same
 * data directory (its lock names a dead pid, taken over without waiting for staleness), and the
 * parse it left `processing` does not stay so: the new server restarts its run, which parses the
 * pages without a checkpoint and completes it. If the server is killed again during that
 * restarted run, the next start marks the parse failed with a detail naming
 * `POST /v1/parse/{id}/resume`, which then completes it. The server runs in a child process
 * (`bin/local.ts`) with a fake vision model taking 150 ms a page.
 */

const KEY = 'key-restart-0001';
const PAGES = 24;

let dataDir: string;
let model: Server;
/** Pages the model was asked for, in order. */
const asked: string[] = [];
let server: ChildService | undefined;
let base = '';
let pdf: Uint8Array;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the server once on the data directory; resolves with how long it took to listen, or
 * rejects with its output when it exits first (a refused data directory).
 */
async function startServer(): Promise<number> {
  const began = Date.now();
  server = await startChildService({
    DATA_DIR: dataDir,
    API_KEYS: `${KEY}=restarters:pro`,
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    PROVIDERS_JSON: fakeVisionProvidersJson((model.address() as AddressInfo).port),
    PAGE_CONCURRENCY: '2',
  });
  base = server.url;
  return Date.now() - began;
}

/**
 * Starts the server while the lock the killed server left cannot look stale: its mtime is set an
 * hour ahead once, before the start, so that a slow start on a loaded machine cannot outlast
 * proper-lockfile's 10 s staleness and only the dead holder's pid lets the new server in. (The
 * lock is never touched after the start: the new server's own lock would then look compromised
 * to proper-lockfile, and the server stops.)
 */
async function restartOnFreshLock(deadPid: number): Promise<number> {
  const holder = JSON.parse(readFileSync(join(dataDir, 'server.lock.owner.json'), 'utf8')) as {
    pid: number;
  };
  expect(holder.pid).toBe(deadPid);
  const ahead = new Date(Date.now() + 3_600_000);
  utimesSync(join(dataDir, 'server.lock'), ahead, ahead);
  return startServer();
}

function kill(): Promise<void> {
  const child = server;
  server = undefined;
  return child ? child.stop('SIGKILL') : Promise.resolve();
}

async function aPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= PAGES; n++) {
    doc.addPage([612, 792]).drawText(`Page ${String(n)}`, { x: 72, y: 700, size: 24, font });
  }
  return doc.save();
}

/** Starts a parse and returns its id as soon as the server names it (SSE, X-Request-Id). */
async function submit(): Promise<{ id: string; abort: () => void }> {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(pdf)], { type: 'application/pdf' }), 'pages.pdf');
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
  void res.body?.pipeTo(new WritableStream()).catch(() => undefined);
  return {
    id: res.headers.get('x-request-id') ?? '',
    abort: () => {
      controller.abort();
    },
  };
}

/** The request's status view. */
async function statusOf(
  id: string,
): Promise<{ status: string; detail?: string; pages: unknown[] }> {
  const res = await fetch(`${base}/v1/parse/${id}`, { headers: { 'x-api-key': KEY } });
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string; detail?: string; pages: unknown[] };
}

/** Polls until the request leaves `queued` and `processing`, for at most `ms`. */
async function settled(id: string, ms = 60_000): Promise<{ status: string; detail?: string }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const view = await statusOf(id);
    if (!['queued', 'processing'].includes(view.status) || Date.now() > deadline) return view;
    await sleep(200);
  }
}

/** Kills the server once the model has been asked for `more` pages beyond now. */
async function killAfter(more: number): Promise<number> {
  const target = asked.length + more;
  while (asked.length < target) await sleep(20);
  const pid = server?.child.pid ?? 0;
  await kill();
  return pid;
}

beforeAll(async () => {
  pdf = await aPdf();
  model = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      asked.push(String(asked.length));
      const reply = JSON.stringify({
        choices: [{ message: { content: '# A page\n\nSome text.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      });
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(reply);
      }, 150);
    });
  });
  await new Promise<void>((ready) => model.listen(0, '127.0.0.1', ready));
  dataDir = mkdtempSync(join(tmpdir(), 'docparse-restart-'));
  await startServer();
});

afterAll(async () => {
  await kill();
  model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a restart after SIGKILL', () => {
  it('starts at once on the same data directory and completes the interrupted parse', async () => {
    // Arrange: the server is killed a quarter of the way through a parse.
    const { id, abort } = await submit();
    const dead = await killAfter(6);
    abort();
    const askedBeforeRestart = asked.length;
    // Act: started again at once, its lock never stale (set ahead): only the dead pid lets it in.
    const startMs = await restartOnFreshLock(dead);
    const final = await settled(id);
    // Assert
    expect(final.status).toBe('completed');
    const result = await statusOf(id);
    expect(result.pages).toHaveLength(PAGES);
    // The restarted run asked only for the pages without a checkpoint (pages in flight at the
    // kill, at most PAGE_CONCURRENCY of them, are asked again).
    const askedByRestart = asked.length - askedBeforeRestart;
    expect(askedByRestart).toBeGreaterThan(0);
    expect(askedByRestart).toBeLessThanOrEqual(PAGES - 6 + 2);
    console.log(`restart after SIGKILL listened after ${String(startMs)} ms`);
  });

  it('fails a parse whose restarted run was interrupted too, resumable by POST .../resume', async () => {
    // Arrange: killed mid-parse, restarted (the run starts again), killed again in that run.
    const { id, abort } = await submit();
    const first = await killAfter(4);
    abort();
    await restartOnFreshLock(first);
    const dead = await killAfter(3);
    // Act
    await restartOnFreshLock(dead);
    const final = await settled(id);
    const resumed = await fetch(`${base}/v1/parse/${id}/resume`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
    });
    // Assert
    expect(final.status).toBe('failed');
    expect(final.detail).toContain(`POST /v1/parse/${id}/resume`);
    expect(resumed.status).toBe(200);
    expect(((await resumed.json()) as { status: string; pages: unknown[] }).pages).toHaveLength(
      PAGES,
    );
    expect((await statusOf(id)).status).toBe('completed');
  });
});
