import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/local-service.js';
import { corpusPath } from '../../support/corpus.js';

const HOSTILE = corpusPath('hostile');
const KEY = 'key-hostile-img-01';

interface HostileFile {
  file: string;
  expect: 'ok' | 'error' | 'either';
}

const manifest = (
  JSON.parse(readFileSync(join(HOSTILE, 'manifest.json'), 'utf8')) as { files: HostileFile[] }
).files;

let running: TestService;

beforeAll(async () => {
  running = await startTestService('hostile-office-images', {
    API_KEYS: `${KEY}=hostile:pro`,
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null,"pages_per_day":null}}',
  });
});

afterAll(async () => {
  await running.close();
});

async function upload(file: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(join(HOSTILE, file))]), file);
  const res = await fetch(`${running.url}/v1/parse/upload`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function live(): Promise<number> {
  const res = await fetch(`${running.url}/v1/live`, { signal: AbortSignal.timeout(5000) });
  return res.status;
}

describe('local service: hostile images and office documents', () => {
  it.each([
    [
      'rt-png-1x10000000.png',
      /1 × 10000000 pixels: its height is above the limit of 30000 pixels per side/,
    ],
    ['rt-tiff-5000-pages.tif', /the TIFF image has 5000 pages; at most 1000 are accepted/],
    ['rt-xlsx-190-sheets.xlsx', /the xlsx package inflates to more than 40 MB of XML/],
    ['rt-pptx-billion-laughs.pptx', /3 of them are missing from the package/],
    ['rt-docx-nested-tables-3000.docx', /tables nested deeper than 50 levels/],
  ])(
    'answers %s with 422 and the cause, then keeps serving',
    async (file, detail) => {
      // Act
      const rssBefore = process.memoryUsage().rss;
      const res = await upload(file);
      const rssAfter = process.memoryUsage().rss;
      // Assert
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect(res.body.detail).toMatch(detail);
      expect(await live()).toBe(200);
      // The server runs in this process: a document refused before decoding costs no GBs
      expect(rssAfter - rssBefore).toBeLessThan(500 * 1024 * 1024);
    },
    60_000,
  );

  const others = manifest.filter(
    (f) => /\.(png|jpe?g|tiff?|docx|pptx|xlsx)$/i.test(f.file) && !f.file.startsWith('rt-'),
  );

  it.each(others.map((f) => [f.file, f.expect] as const))(
    'answers %s as its manifest expects (%s), never with a 5xx',
    async (file, expected) => {
      // Act
      const res = await upload(file);
      // Assert
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeLessThan(500);
      if (expected === 'ok') expect(res.status).toBe(200);
      if (expected === 'error') {
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(typeof res.body.detail).toBe('string');
      }
      expect(await live()).toBe(200);
    },
    120_000,
  );
});
