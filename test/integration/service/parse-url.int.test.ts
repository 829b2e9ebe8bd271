import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { HTTPValidationError, ParseResponse } from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';

/** POST /v1/parse on the running service: downloads through the SSRF-hardened fetcher. */

const DEV = corpusPath('dev');
const KEY = 'key-parse-url-001';
const PDF = readFileSync(join(DEV, 'files/docling-2305.03393v1-pg9.pdf'));

let running: TestService;
let service: LocalServer;
/** Serves the corpus PDF; allowlisted. */
let origin: Server;
/** Counts connections; never allowlisted, so nothing may reach it. */
let forbidden: Server;
let forbiddenConnections = 0;

const portOf = (server: Server) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  origin = createServer((req, res) => {
    if (req.url === '/papers/tableformer.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(PDF);
    } else if (req.url === '/papers/tableformer-async.pdf') {
      // Other bytes of the same document: not a result another test parsed before.
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(Buffer.concat([PDF, Buffer.from('\n% respond-async\n')]));
    } else if (req.url === '/redirect-to-forbidden') {
      res.writeHead(302, { location: `http://127.0.0.1:${portOf(forbidden)}/doc.pdf` });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  forbidden = createServer((_req, res) => res.end(PDF));
  forbidden.on('connection', () => (forbiddenConnections += 1));
  await new Promise<void>((ready) => origin.listen(0, '127.0.0.1', ready));
  await new Promise<void>((ready) => forbidden.listen(0, '127.0.0.1', ready));
  running = await startTestService('url', {
    API_KEYS: `${KEY}=urls:pro`,
    // Many requests in a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    URL_FETCH_ALLOWLIST: `127.0.0.1:${portOf(origin)}`,
  });
  service = running.server;
});

afterAll(async () => {
  await running.close();
  origin.close();
  forbidden.close();
});

async function parse(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${service.url}/v1/parse`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown>,
  };
}

describe('POST /v1/parse', () => {
  it('downloads the document from an allowlisted server and answers with its ParseResponse', async () => {
    // Act
    const result = await parse({
      file_url: `http://127.0.0.1:${portOf(origin)}/papers/tableformer.pdf`,
    });
    // Assert
    expect(result.status).toBe(200);
    const response = ParseResponse.parse(result.body);
    expect(response.document).toMatchObject({ filename: 'tableformer.pdf', format: 'pdf' });
    expect(response.pages[0]?.content_markdown).toContain('TableFormer');
  });

  it('answers 202 at once when Prefer holds respond-async among other preferences, and the result follows at GET /v1/parse/{id}', async () => {
    // Act: RFC 7240 syntax: comma-separated, case-insensitive, with parameters.
    const accepted = await parse(
      { file_url: `http://127.0.0.1:${portOf(origin)}/papers/tableformer-async.pdf` },
      { prefer: 'wait=5, Respond-Async; note="a, b"' },
    );
    const id = String(accepted.body.id);
    let result: Record<string, unknown> = {};
    for (let i = 0; i < 240 && result.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const res = await fetch(`${service.url}/v1/parse/${id}`, { headers: { 'x-api-key': KEY } });
      result = (await res.json()) as Record<string, unknown>;
    }
    // Assert
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
    expect(accepted.headers.get('location')).toBe(`${service.url}/v1/parse/${id}`);
    expect(accepted.body).toMatchObject({
      id: expect.stringMatching(/^req_/) as unknown,
      status: 'queued',
    });
    expect(ParseResponse.parse(result).pages[0]?.content_markdown).toContain('TableFormer');
  });

  it('answers with the ParseResponse when Prefer holds no respond-async', async () => {
    // Act
    const result = await parse(
      { file_url: `http://127.0.0.1:${portOf(origin)}/papers/tableformer.pdf` },
      { prefer: 'return=minimal, respond-asynchronously' },
    );
    // Assert
    expect(result.status).toBe(200);
    expect(result.headers.get('preference-applied')).toBeNull();
    expect(ParseResponse.parse(result.body).pages).toHaveLength(1);
  });

  it('refuses loopback addresses that are not allowlisted, without connecting to them', async () => {
    // Act
    const direct = await parse({ file_url: `https://127.0.0.1:${portOf(forbidden)}/doc.pdf` });
    const redirected = await parse({
      file_url: `http://127.0.0.1:${portOf(origin)}/redirect-to-forbidden`,
    });
    // Assert
    expect(direct.status).toBe(400);
    expect(String(direct.body.detail)).toMatch(/loopback/i);
    expect(redirected.status).toBe(400);
    expect(String(redirected.body.detail)).toMatch(/URL refused/);
    expect(forbiddenConnections).toBe(0);
  });

  it('refuses plain http and says why', async () => {
    // Act
    const result = await parse({ file_url: 'http://example.com/report.pdf' });
    // Assert
    expect(result.status).toBe(400);
    expect(String(result.body.detail)).toMatch(/https/);
  });

  it("names the origin's status when the document is not there", async () => {
    // Act
    const result = await parse({ file_url: `http://127.0.0.1:${portOf(origin)}/missing.pdf` });
    // Assert
    expect(result.status).toBe(400);
    expect(String(result.body.detail)).toMatch(/404/);
  });

  it('answers 422 for a missing file_url and for a provider or model nobody configured', async () => {
    // Act
    const missing = await parse({ operation_mode: 'ocr' });
    const unknown = await parse({
      file_url: `http://127.0.0.1:${portOf(origin)}/papers/tableformer.pdf`,
      preferred_model: 'gpt-imaginary',
    });
    // Assert
    expect(missing.status).toBe(422);
    expect(HTTPValidationError.parse(missing.body).detail[0]?.loc).toContain('file_url');
    expect(unknown.status).toBe(422);
    const issue = HTTPValidationError.parse(unknown.body).detail[0];
    expect(issue?.loc).toEqual(['body', 'preferred_model']);
    expect(issue?.msg).toContain('{"id":"local-text","model":"pdf-text-layout-1"}');
  });

  it.each([
    ['its model id, as pages report it', 'tesseract-5-lstm'],
    ['the provider id alone', 'local-ocr'],
  ])(
    'sends every page first to the preferred_model named by %s, keeping its tier',
    async (_, name) => {
      // Act
      const result = await parse({
        file_url: `http://127.0.0.1:${portOf(origin)}/papers/tableformer.pdf`,
        preferred_model: name,
      });
      // Assert: OCR parsed a page the router gives to the text layer.
      expect(result.status).toBe(200);
      const response = ParseResponse.parse(result.body);
      expect(response.pages.map((p) => [p.provider, p.model, p.tier_used])).toEqual([
        ['local-ocr', 'tesseract-5-lstm', 'fast'],
      ]);
      expect(response.pages[0]?.content_markdown).toMatch(/TableFormer/i);
    },
  );

  it('parses every page with compare_provider too and reports how far the two agree', async () => {
    // Act
    const result = await parse({
      file_url: `http://127.0.0.1:${portOf(origin)}/papers/tableformer.pdf`,
      compare_provider: 'tesseract-5-lstm',
    });
    // Assert
    expect(result.status).toBe(200);
    const page = ParseResponse.parse(result.body).pages[0]!;
    expect(page.provider).toBe('local-text');
    expect(page.comparison).toMatchObject({
      provider_id: 'local-ocr',
      status: 'completed',
      content_markdown: expect.stringMatching(/TableFormer/i) as unknown,
    });
    // The text layer and OCR of a born-digital page mostly agree, but not exactly.
    expect(page.comparison?.agreement).toBeGreaterThan(0.7);
    expect(page.comparison?.agreement).toBeLessThan(1);
  });
});
