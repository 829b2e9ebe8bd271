import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/local-service.js';

/*
 * GET /v1/batch/{batch_id}/items end to end on the local server: a batch of five documents whose
 * URLs answer 404 (the items fail without parsing anything), listed two at a time.
 */

const KEY = 'key-batch-items-001';
const OTHER_KEY = 'key-batch-items-002';

let running: TestService;
/** Answers 404 to everything: the batch's documents cannot be downloaded. */
let peer: Server;

interface ItemsPage {
  batch_id: string;
  items: { index: number; status: string; file_url: string }[];
  next_cursor: string | null;
}

beforeAll(async () => {
  peer = createServer((_, res) => {
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((ready) => peer.listen(0, '127.0.0.1', ready));
  running = await startTestService('batch-items', {
    API_KEYS: `${KEY}=items:pro,${OTHER_KEY}=others:pro`,
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    URL_FETCH_ALLOWLIST: `127.0.0.1:${(peer.address() as AddressInfo).port}`,
  });
});

afterAll(async () => {
  await running.close();
  peer.close();
});

async function call(method: string, path: string, key: string | null, body?: unknown) {
  const res = await fetch(`${running.url}${path}`, {
    method,
    headers: {
      ...(key === null ? {} : { 'x-api-key': key }),
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function submitBatch(count: number): Promise<{ id: string; urls: string[] }> {
  const port = (peer.address() as AddressInfo).port;
  const urls = Array.from({ length: count }, (_, n) => `http://127.0.0.1:${port}/files/${n}.pdf`);
  const accepted = await call('POST', '/v1/parse/batch', KEY, {
    documents: urls.map((file_url) => ({ file_url })),
  });
  expect(accepted.status).toBe(200);
  return { id: accepted.body.batch_id as string, urls };
}

describe('GET /v1/batch/{batch_id}/items on the local server', () => {
  it('pages through every item of a batch in submission order', async () => {
    // Arrange
    const { id, urls } = await submitBatch(5);
    // Act
    const pages: ItemsPage[] = [];
    let cursor: string | null = '0';
    while (cursor !== null) {
      const page = await call('GET', `/v1/batch/${id}/items?limit=2&cursor=${cursor}`, KEY);
      expect(page.status).toBe(200);
      pages.push(page.body as unknown as ItemsPage);
      cursor = (page.body as unknown as ItemsPage).next_cursor;
    }
    // Assert
    expect(pages.map((page) => page.items.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((page) => page.items.map((item) => [item.index, item.file_url]))).toEqual(
      urls.map((url, index) => [index, url]),
    );
    expect(pages.every((page) => page.batch_id === id)).toBe(true);
  });

  it('requires an API key', async () => {
    // Arrange
    const { id } = await submitBatch(1);
    // Act
    const result = await call('GET', `/v1/batch/${id}/items`, null);
    // Assert
    expect(result.status).toBe(401);
  });

  it("answers 404 for another tenant's batch, as for an unknown one", async () => {
    // Arrange
    const { id } = await submitBatch(1);
    // Act
    const theirs = await call('GET', `/v1/batch/${id}/items`, OTHER_KEY);
    const unknown = await call('GET', '/v1/batch/batch_unknown/items', OTHER_KEY);
    // Assert
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(Object.keys(theirs.body)).toEqual(['detail']);
  });

  it('is described in the OpenAPI document', async () => {
    // Act
    const document = await call('GET', '/v1/openapi.json', null);
    // Assert
    const paths = document.body.paths as Record<string, Record<string, { operationId: string }>>;
    expect(paths['/v1/batch/{batch_id}/items']?.get?.operationId).toBe('listBatchItems');
  });
});
