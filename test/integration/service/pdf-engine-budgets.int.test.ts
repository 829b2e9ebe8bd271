import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/local-service.js';
import { corpusDir } from '../../support/corpus.js';

const SHARED = corpusDir();
const BOMB = `${SHARED}/hostile/rt-pdf-flate-bomb-1GB.pdf`;
const NESTED_Q = `${SHARED}/hostile/rt-pdf-1M-nested-q.pdf`;
const PAPER = `${SHARED}/papers/files/readoc-arxiv-2206.11906.pdf`;
const KEY = 'key-budgets-0001';

let service: TestService;

beforeAll(async () => {
  service = await startTestService('pdf-budgets', {
    API_KEYS: `${KEY}=budgets:scale`,
    PLAN_LIMITS: '{"scale":{"requests_per_minute":null,"pages_per_day":null}}',
    // PDFium may hold 256 MB; a page may take 5 s: short budgets keep the test quick.
    PDF_WORKER_MEMORY_MB: '512',
    PDF_PAGE_TIMEOUT_MS: '5000',
  });
});

afterAll(async () => {
  await service.close();
});

/** POST /v1/parse/upload of one file: its status and JSON body. */
async function upload(
  file: string,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([readFileSync(file)]), basename(file));
  const res = await fetch(`${service.url}/v1/parse/upload`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
  return { status: res.status, body: JSON.parse(await res.text()) as Record<string, unknown> };
}

describe('PDF engine budgets', () => {
  it('refuses the 1 GB flate bomb with 422 naming the budget, then parses a 3 MB paper', async () => {
    // Act
    const started = Date.now();
    const bomb = await upload(BOMB);
    const seconds = (Date.now() - started) / 1000;
    // The whole 3.7 MB file goes to the reader; its first 4 pages keep the test short.
    const paper = await upload(PAPER, { max_pages: '4' });
    // Assert
    expect(bomb.status).toBe(422);
    expect(bomb.body['detail']).toMatch(
      /^page 1's content inflates past the 256 MB memory budget of the PDF reader/,
    );
    expect(seconds).toBeLessThan(20);
    expect(paper.status).toBe(200);
    expect(paper.body['pages']).toHaveLength(4);
  });

  it('answers the page of 1,000,000 nested q operators with 200, or 422 naming the page and the budget', async () => {
    // Act
    const { status, body } = await upload(NESTED_Q);
    // Assert
    expect([200, 422]).toContain(status);
    expect(JSON.stringify(body)).not.toMatch(/internal error/);
    if (status === 422) {
      expect(body['detail']).toMatch(/^page 1 took longer than the 5 s per-page budget/);
    }
  });
});
