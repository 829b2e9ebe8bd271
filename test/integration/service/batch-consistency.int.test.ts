import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/local-service.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * GET /v1/batch/{id} is one consistent view of a running batch: a 20-document batch is polled
 * back to back while the local service parses it, and every answer is checked against itself
 * and against the answer before it.
 */

const CORPUS = corpusPath('dev');
const KEY = 'key-batch-view-001';
const STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
type Status = (typeof STATUSES)[number];
/** How far along a status is: a later answer never shows a smaller rank. */
const RANK: Record<Status, number> = { queued: 0, in_progress: 1, completed: 2, failed: 2 };

/** The 20 smallest documents of the dev corpus (PDF, Office, images; one to three pages). */
const DOCUMENTS = (
  JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as {
    documents: { file: string; bytes: number }[];
  }
).documents
  .toSorted((a, b) => a.bytes - b.bytes)
  .slice(0, 20)
  .map((d) => d.file);

interface BatchView {
  status: Status;
  item_count: number;
  totals: Record<Status, number>;
  completed_documents: number;
  items: { request_id: string | null; status: Status; error?: unknown }[];
}

/** What is wrong with `view`, alone and after `previous`; empty when nothing is. */
function problemsOf(view: BatchView, previous: BatchView | undefined): string[] {
  const problems: string[] = [];
  for (const status of STATUSES) {
    const counted = view.items.filter((i) => i.status === status).length;
    if (view.totals[status] !== counted) {
      problems.push(`totals.${status} is ${view.totals[status]}, ${counted} items are ${status}`);
    }
  }
  const sum = STATUSES.reduce((n, s) => n + view.totals[s], 0);
  if (sum !== view.item_count) problems.push(`totals add up to ${sum}, not ${view.item_count}`);
  if (view.completed_documents !== view.totals.completed + view.totals.failed) {
    problems.push(`completed_documents is ${view.completed_documents}`);
  }
  view.items.forEach((item, i) => {
    if ((item.status === 'in_progress' || item.status === 'completed') && !item.request_id) {
      problems.push(`item ${i + 1} is ${item.status} without a request_id`);
    }
    const before = previous?.items[i];
    if (before && RANK[item.status] < RANK[before.status]) {
      problems.push(`item ${i + 1} went from ${before.status} back to ${item.status}`);
    }
    if (before && RANK[before.status] === 2 && item.status !== before.status) {
      problems.push(`item ${i + 1} ended ${before.status}, then showed ${item.status}`);
    }
  });
  if (previous && RANK[view.status] < RANK[previous.status]) {
    problems.push(`the batch went from ${previous.status} back to ${view.status}`);
  }
  if (view.status === 'queued' && view.items.some((i) => i.status !== 'queued')) {
    problems.push('the batch is queued while an item has started');
  }
  if (RANK[view.status] === 2 && view.totals.completed + view.totals.failed !== view.item_count) {
    problems.push(`the batch is ${view.status} while items are still open`);
  }
  return problems;
}

let running: TestService;
/** Serves the corpus documents under /files/. */
let origin: Server;

beforeAll(async () => {
  origin = createServer((req, res) => {
    const file = DOCUMENTS.find((name) => req.url === `/${name}`);
    if (!file) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(readFileSync(join(CORPUS, file)));
  });
  await new Promise<void>((ready) => origin.listen(0, '127.0.0.1', ready));
  const port = (origin.address() as AddressInfo).port;
  running = await startTestService('batch-view', {
    API_KEYS: `${KEY}=batch-view:pro`,
    // Polled back to back: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    URL_FETCH_ALLOWLIST: `127.0.0.1:${port}`,
  });
});

afterAll(async () => {
  await running.close();
  origin.close();
});

describe('GET /v1/batch/{id} while the batch runs', () => {
  it('answers totals that count its items, request ids on started items, and never goes back', async () => {
    // Arrange
    const port = (origin.address() as AddressInfo).port;
    const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
    const submitted = await fetch(`${running.url}/v1/parse/batch`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        documents: DOCUMENTS.map((file) => ({ file_url: `http://127.0.0.1:${port}/${file}` })),
        priority: 'high',
      }),
    });
    const { batch_id: id } = (await submitted.json()) as { batch_id: string };
    // Act: poll back to back until the batch ends.
    const violations: { poll: number; problems: string[] }[] = [];
    const seen = new Set<string>();
    let polls = 0;
    let previous: BatchView | undefined;
    const deadline = Date.now() + 240_000;
    for (;;) {
      const res = await fetch(`${running.url}/v1/batch/${id}`, { headers });
      expect(res.status).toBe(200);
      const view = (await res.json()) as BatchView;
      polls += 1;
      seen.add(view.items.map((i) => i.status[0]).join(''));
      const problems = problemsOf(view, previous);
      if (problems.length > 0) violations.push({ poll: polls, problems });
      previous = view;
      if (view.status === 'completed' || view.status === 'failed') break;
      if (Date.now() > deadline) throw new Error(`timed out; last ${JSON.stringify(view)}`);
    }
    const failures = previous.items.filter((item) => item.status === 'failed');
    console.info(
      `batch view: ${polls} polls, ${seen.size} distinct item states, ${violations.length} inconsistent answers, ${failures.length} documents failed`,
      violations.slice(0, 5),
      failures,
    );
    // Assert
    expect(submitted.status).toBe(200);
    expect(violations).toEqual([]);
    // Every document ended (a parse may fail on a loaded machine; its item then says why).
    expect(previous.completed_documents).toBe(DOCUMENTS.length);
    // The run was watched, not just its end: many answers, many distinct states between.
    expect(seen.size).toBeGreaterThan(DOCUMENTS.length);
  }, 300_000);
});
