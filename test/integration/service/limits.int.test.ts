import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../../../functions/local-server.js';
import { loadConfig } from '../../../functions/config.js';
import { utcDay } from '../../../functions/core/domain/page-quota.js';

/**
 * The plans' limits on the running local service (spec §8): per-key requests per minute (429
 * with `Retry-After`) and per-tenant pages per UTC day (402 naming the limit), with the
 * `PLAN_LIMITS` overrides. One server at a time: the handler modules share the process's deps.
 */

const FREE = 'key-free-rate-0001';
const FREE_PAGES = 'key-free-pages-0002';
const PRO = 'key-pro-rate-0003';
const SCALE = 'key-scale-rate-0004';

/** A PDF of `pages` pages, each with one line of text (read from its text layer). */
async function pdfOf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Quarterly figures, page ${n} of ${pages}.`, { x: 72, y: 700, size: 14, font });
  }
  return doc.save();
}

async function startService(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'docparse-limits-'));
  const config = loadConfig({ RUNTIME_MODE: 'local', DATA_DIR: dataDir, PORT: '0', ...env });
  if (config.RUNTIME_MODE !== 'local') throw new Error('local config expected');
  const server = await startLocalServer(config);
  return {
    server,
    close: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function get(server: LocalServer, path: string, key: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': key } });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as unknown,
  };
}

async function upload(server: LocalServer, key: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('file', new Blob([Uint8Array.from(bytes)]), 'figures.pdf');
  const res = await fetch(`${server.url}/v1/parse/upload`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** `n` sequential GET /v1/providers with `key`; the statuses and the last response. */
async function requests(server: LocalServer, key: string, n: number) {
  const statuses: number[] = [];
  let last: Awaited<ReturnType<typeof get>> | undefined;
  for (let i = 0; i < n; i++) {
    last = await get(server, '/v1/providers', key);
    statuses.push(last.status);
  }
  return { statuses, last };
}

/** Waits for the next minute when fewer than 10 s are left of this one (windows are minutes). */
async function awayFromMinuteEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

describe('limits of the default plans', () => {
  let service: Awaited<ReturnType<typeof startService>>;

  beforeAll(async () => {
    service = await startService({
      API_KEYS: `${FREE}=free-rate:free,${FREE_PAGES}=free-pages:free,${PRO}=pro-rate:pro,${SCALE}=scale-rate:scale`,
    });
  });
  afterAll(() => service.close());

  it('answers the 11th request of a free key within a minute with 429 and a numeric Retry-After', async () => {
    // Arrange
    await awayFromMinuteEnd();
    // Act
    const { statuses, last } = await requests(service.server, FREE, 11);
    // Assert
    expect(statuses.slice(0, 10)).toEqual(Array<number>(10).fill(200));
    expect(last?.status).toBe(429);
    const retryAfter = Number(last?.retryAfter);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(last?.body).toEqual({
      detail: expect.stringMatching(
        /^rate limit exceeded: the free plan allows 10 requests per minute per API key; retry in \d+ seconds?$/,
      ) as string,
    });
  });

  it('does not limit a pro key at 11 requests', async () => {
    // Arrange
    await awayFromMinuteEnd();
    // Act
    const { statuses } = await requests(service.server, PRO, 11);
    // Assert
    expect(statuses).toEqual(Array<number>(11).fill(200));
  });

  it('lets a scale key past the pro rate by default (its limit is 600 a minute)', async () => {
    // Act
    const { statuses } = await requests(service.server, SCALE, 75);
    // Assert
    expect(statuses).toEqual(Array<number>(75).fill(200));
  });

  it('answers the 26th free page of a day with 402 naming the limit and its reset', async () => {
    // Arrange
    const first = await upload(service.server, FREE_PAGES, await pdfOf(20));
    // Act
    const second = await upload(service.server, FREE_PAGES, await pdfOf(6));
    // Assert
    expect(first.status).toBe(200);
    expect(second.status).toBe(402);
    const midnight = new Date(Date.parse(`${utcDay(new Date())}T00:00:00Z`) + 86_400_000)
      .toISOString()
      .replace('.000Z', 'Z');
    expect(second.body.detail).toBe(
      `the free plan allows 25 pages per day; 20 are used today and this document has 6; the count resets at ${midnight} (UTC midnight); set max_pages to 5 or less to parse the first pages now`,
    );
    expect(await service.server.deps.usage?.pagesUsed('free-pages', utcDay(new Date()))).toBe(20);
  });
});

describe('limits from PLAN_LIMITS, and pages given back by a failed parse', () => {
  let service: Awaited<ReturnType<typeof startService>>;

  beforeAll(async () => {
    // Every tier's only provider is a model nobody answers for: parses fail after Ingest.
    const dead = {
      kind: 'openai-compatible',
      model: 'unreachable-vlm',
      base_url: 'http://127.0.0.1:9/v1',
      max_retries: 0,
      timeout_ms: 2_000,
      price: { per_input_token_usd: 0.000001, per_output_token_usd: 0.00001 },
    };
    const only = { providers: ['dead'], price_per_page_usd: 0.01 };
    service = await startService({
      // One page at a time: the first failure ends the parse before another page is charged. (A
      // page already in flight when another page's failure ends the request stays counted: the
      // record is final once failed.)
      PAGE_CONCURRENCY: '1',
      API_KEYS: `${FREE}=free-rate:free,${FREE_PAGES}=free-pages:free,${SCALE}=scale-rate:scale`,
      PLAN_LIMITS: JSON.stringify({
        free: { requests_per_minute: 3, pages_per_day: 8 },
        scale: { requests_per_minute: 2 },
      }),
      PROVIDERS_JSON: JSON.stringify({
        providers: { dead },
        tiers: { fast: only, pro: only, premium: only },
        breaker: { failure_threshold: 1, cooldown_ms: 600_000 },
      }),
    });
  });
  afterAll(() => service.close());

  it('applies the configured requests per minute to free and scale keys', async () => {
    // Arrange
    await awayFromMinuteEnd();
    // Act
    const free = await requests(service.server, FREE, 4);
    const scale = await requests(service.server, SCALE, 3);
    // Assert
    expect(free.statuses).toEqual([200, 200, 200, 429]);
    expect(scale.statuses).toEqual([200, 200, 429]);
    expect(scale.last?.body).toMatchObject({
      detail: expect.stringContaining('the scale plan allows 2 requests per minute') as string,
    });
  });

  it('gives the pages of a failed parse back, and refuses above the configured daily pages', async () => {
    // Arrange
    const day = utcDay(new Date());
    const five = await pdfOf(5);
    // Act
    const failed = await upload(service.server, FREE_PAGES, five);
    const usedAfterFailure = await service.server.deps.usage?.pagesUsed('free-pages', day);
    const tooMany = await upload(service.server, FREE_PAGES, await pdfOf(9));
    // Assert
    expect(failed.status).toBe(503);
    expect(usedAfterFailure).toBe(0);
    expect(tooMany.status).toBe(402);
    expect(tooMany.body.detail).toMatch(
      /^the free plan allows 8 pages per day; 0 are used today and this document has 9;/,
    );
  });
});
