import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aRequestRecord } from '../../support/builders.js';
import { startTestService, type TestService } from '../../support/local-service.js';

const KEY = 'key-large-0001';
const TENANT = 'large';
const SEVEN_MB = 7 * 1024 * 1024;

let service: TestService;

beforeAll(async () => {
  service = await startTestService('large-result', { API_KEYS: `${KEY}=${TENANT}:pro` });
});

afterAll(() => service.close());

/** A completed request whose stored ParseResponse is `pages` pages of `bytesPerPage` each. */
async function aCompletedRequest(id: string, pages: number, bytesPerPage: number) {
  const { deps } = service.server;
  const resultKey = `results/${TENANT}/${id}.json`;
  const page = (n: number) => ({
    page_number: n,
    content_markdown: `# Page ${String(n)}\n\n${'lorem ipsum '.repeat(bytesPerPage / 12)}`,
    content_json: null,
    confidence: 0.9,
    tier_used: 'fast',
    provider: 'pdf-text',
    grounding: [],
  });
  const response = {
    id,
    status: 'completed',
    pages: Array.from({ length: pages }, (_, i) => page(i + 1)),
  };
  await deps.objects.put(
    resultKey,
    new TextEncoder().encode(JSON.stringify(response)),
    'application/json',
  );
  await deps.requests.create(
    aRequestRecord({ id, tenant: TENANT, status: 'completed', resultKey }),
  );
  return response;
}

describe('GET /v1/parse/{request_id} on the local server', () => {
  it('answers a 7 MB result whole, as the ParseResponse itself', async () => {
    // Arrange: 350 pages of about 21 KB, past the 6 MB a buffered Lambda response may hold.
    const stored = await aCompletedRequest('req_large7mb', 350, 21_000);
    // Act
    const res = await fetch(`${service.url}/v1/parse/req_large7mb`, {
      headers: { 'x-api-key': KEY },
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    // Assert
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(bytes.byteLength).toBeGreaterThan(SEVEN_MB);
    const body = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    expect(body.id).toBe('req_large7mb');
    expect((body.pages as unknown[]).length).toBe(350);
    expect(body.pages).toEqual(stored.pages);
  });

  it('answers a small result the same way', async () => {
    // Arrange
    await aCompletedRequest('req_small', 1, 100);
    // Act
    const res = await fetch(`${service.url}/v1/parse/req_small`, { headers: { 'x-api-key': KEY } });
    // Assert
    expect(res.status).toBe(200);
    expect(((await res.json()) as { pages: unknown[] }).pages).toHaveLength(1);
  });

  it('fails with 404 for an unknown id as before', async () => {
    // Act
    const res = await fetch(`${service.url}/v1/parse/req_unknown`, {
      headers: { 'x-api-key': KEY },
    });
    // Assert
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ detail: expect.any(String) as string });
  });
});
