import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/local-service.js';
import { docxOf, para } from '../../support/office-fixtures.js';

const KEY = 'key-office-worker-0001';

let running: TestService;

beforeAll(async () => {
  running = await startTestService('office-worker', {
    API_KEYS: `${KEY}=office:pro`,
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
  });
});

afterAll(async () => {
  await running.close();
});

/** Eight hexadecimal digits that do not repeat from one paragraph to the next. */
const rsid = (n: number): string =>
  (Math.imul(n + 1, 2_654_435_761) >>> 0).toString(16).padStart(8, '0');

/**
 * A 1.2 MB Word file of 100,000 paragraphs, all empty (with distinct revision ids, so that the
 * package compresses as an ordinary one does) but one in a hundred: mammoth takes about 2 s on
 * it, and held the event loop for 1.9 s at once when the conversion ran on the server's thread,
 * while what it produces (1,000 short paragraphs) is quick for the rest of the pipeline.
 */
const largeDocx = (): Uint8Array =>
  docxOf(
    Array.from({ length: 100_000 }, (_, i) =>
      i % 100 === 0
        ? para(`Paragraph ${i}`)
        : `<w:p w:rsidR="${rsid(i)}" w:rsidRDefault="${rsid(i + 100_000)}"/>`,
    ).join(''),
  );

describe('local service: office conversion off the main thread', () => {
  it('keeps the event loop (and GET /v1/live) answering throughout the parse of a large Word file', async () => {
    // Arrange: the server runs in this thread, so a 10 ms timer here measures its event loop
    const url = running.server.url;
    const form = new FormData();
    form.append('file', new Blob([Uint8Array.from(largeDocx())]), 'large.docx');
    const state = { parsing: true, lastTick: performance.now(), longestGap: 0, lives: 0 };
    const ticker = setInterval(() => {
      const now = performance.now();
      state.longestGap = Math.max(state.longestGap, now - state.lastTick);
      state.lastTick = now;
    }, 10);
    // Act
    const upload = fetch(`${url}/v1/parse/upload`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
      body: form,
    }).finally(() => {
      state.parsing = false;
    });
    try {
      while (state.parsing) {
        const live = await fetch(`${url}/v1/live`);
        if (live.status === 200) state.lives++;
        await live.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      clearInterval(ticker);
    }
    const res = await upload;
    const body = (await res.json()) as { pages?: { content_markdown: string }[] };
    // Assert
    expect(res.status).toBe(200);
    expect(body.pages?.[0]?.content_markdown).toContain('Paragraph 99900');
    expect(state.lives).toBeGreaterThan(5);
    expect(state.longestGap).toBeLessThan(500);
  });
});
