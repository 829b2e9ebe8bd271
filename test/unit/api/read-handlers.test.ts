import { describe, expect, it } from 'vitest';
import { createHandler as getParseHandler } from '../../../functions/api/get-parse.handler.js';
import { createHandler as healthHandler } from '../../../functions/api/health.handler.js';
import { createHandler as liveHandler } from '../../../functions/api/live.handler.js';
import { isStreamingHandler, type ApiHandler } from '../../../functions/api/streaming.js';
import { invokeBuffered } from '../../support/invoke-buffered.js';
import { parseUpload } from '../../../functions/core/app/parse-upload.js';
import { HealthResponse, ParseResponse } from '../../../functions/core/domain/schemas.js';
import {
  FakePageProvider,
  OTHER_API_KEY,
  TENANT,
  TINY_PDF,
  aGetEvent,
  bodyOf,
  fakeDeps,
  lambdaContext,
  parseOptions,
  providerRegistry,
  type FakeDeps,
} from '../../support/builders.js';

async function parsedRequest(deps: FakeDeps) {
  return parseUpload(deps, {
    tenant: TENANT,
    bytes: TINY_PDF,
    filename: 'report.pdf',
    options: parseOptions(),
  });
}

describe('GET /v1/parse/{request_id}', () => {
  // The route streams (a result may pass the 6 MB of a buffered Lambda response).
  const get = (deps: FakeDeps, id: string, options: Parameters<typeof aGetEvent>[1] = {}) =>
    invokeBuffered(
      getParseHandler(() => Promise.resolve(deps)) as ApiHandler,
      aGetEvent(`/v1/parse/${id}`, { pathParameters: { request_id: id }, ...options }),
      lambdaContext('get-parse'),
    );

  it('answers 200 with the stored ParseResponse of the caller', async () => {
    // Arrange
    const deps = await fakeDeps({
      textProvider: new FakePageProvider('pdf-text', { markdown: 'Invented dragons.' }),
    });
    const parsed = await parsedRequest(deps);
    // Act
    const result = await get(deps, parsed.id);
    // Assert
    expect(result.statusCode).toBe(200);
    expect(ParseResponse.parse(bodyOf(result))).toEqual(parsed);
  });

  it('streams the UTF-8 bytes of the body as JSON', async () => {
    // Arrange
    const deps = await fakeDeps({
      textProvider: new FakePageProvider('pdf-text', { markdown: 'Ça coûte 5 € — 東京' }),
    });
    const parsed = await parsedRequest(deps);
    // Act
    const result = await get(deps, parsed.id);
    // Assert
    expect(result.headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.stringify(JSON.parse(result.body))).toContain('Ça coûte 5 € — 東京');
  });

  it('streams a result past the 6 MB of a buffered Lambda response whole', async () => {
    // Arrange: a 7 MB result.
    const deps = await fakeDeps();
    const parsed = await parsedRequest(deps);
    const record = await deps.requests.get(parsed.id);
    const large = {
      ...parsed,
      pages: parsed.pages.map((page) => ({
        ...page,
        content_markdown: 'x'.repeat(7 * 1024 * 1024),
      })),
    };
    await deps.objects.put(
      record?.resultKey ?? '',
      new TextEncoder().encode(JSON.stringify(large)),
      'application/json',
    );
    await deps.requests.update(parsed.id, { updatedAt: new Date().toISOString() });
    // Act
    const result = await get(deps, parsed.id);
    // Assert: written to a response stream, which Lambda does not cap at 6 MB.
    expect(isStreamingHandler(getParseHandler(() => Promise.resolve(deps)) as ApiHandler)).toBe(
      true,
    );
    expect(result.statusCode).toBe(200);
    expect(Buffer.byteLength(result.body)).toBeGreaterThan(7 * 1024 * 1024);
    const body = ParseResponse.parse(JSON.parse(result.body));
    expect(body.pages.map((page) => page.content_markdown.length)).toEqual(
      large.pages.map(() => 7 * 1024 * 1024),
    );
    expect(body.id).toBe(parsed.id);
  });

  it('includes page warnings with include_warnings=true', async () => {
    // Arrange
    const deps = await fakeDeps({
      textProvider: new FakePageProvider('pdf-text', { markdown: 'Invented dragons.' }),
    });
    const parsed = await parsedRequest(deps);
    // Act
    const result = await get(deps, parsed.id, { query: { include_warnings: 'true' } });
    // Assert
    const pages = bodyOf(result).pages as { warnings: { kind: string }[] }[];
    expect(pages[0]?.warnings.map((w) => w.kind)).toEqual(['potential_hallucination']);
  });

  it('fails with 404 for another tenant, identical to an unknown id', async () => {
    // Arrange
    const deps = await fakeDeps();
    const parsed = await parsedRequest(deps);
    const unknownId = `${parsed.id.slice(0, -1)}9`;
    // Act
    const foreign = await get(deps, parsed.id, { apiKey: OTHER_API_KEY });
    const unknown = await get(deps, unknownId);
    // Assert
    expect(foreign.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(foreign.body.replace(parsed.id, 'ID')).toBe(unknown.body.replace(unknownId, 'ID'));
    expect(foreign.headers).toEqual(unknown.headers);
  });

  it('fails with 401 without an API key', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const result = await get(deps, 'req_x', { apiKey: null });
    // Assert
    expect(result.statusCode).toBe(401);
  });

  it('fails with 422 located in the path for an over-long id', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const result = await get(deps, 'x'.repeat(201));
    // Assert
    expect(result.statusCode).toBe(422);
    expect(bodyOf(result)).toMatchObject({ detail: [{ loc: ['path', 'request_id'] }] });
  });
});

describe('GET /v1/health and /health', () => {
  const health = (deps: FakeDeps, path: string, apiKey?: string | null) =>
    healthHandler(() => Promise.resolve(deps))(
      aGetEvent(path, { apiKey: apiKey ?? null }),
      lambdaContext('health'),
    );

  it('answers 200 healthy without auth and without providers', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const result = await health(deps, '/v1/health');
    // Assert
    expect(result.statusCode).toBe(200);
    const body = HealthResponse.parse(bodyOf(result));
    expect(body).toMatchObject({ status: 'healthy', version: '0.1.0' });
    expect(body).not.toHaveProperty('providers');
  });

  it('lists the providers on /v1/health for a caller with a valid key', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const result = await health(deps, '/v1/health', OTHER_API_KEY);
    // Assert
    expect(bodyOf(result).providers).toEqual({
      'pdf-text': { state: 'IDLE', healthy: true },
      ocr: { state: 'IDLE', healthy: true },
    });
  });

  it('omits the providers from the /health alias even with a valid key', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const result = await health(deps, '/health', OTHER_API_KEY);
    // Assert
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).not.toHaveProperty('providers');
  });

  it('fails with 503 when a tier has no provider', async () => {
    // Arrange
    const deps = await fakeDeps({
      providers: providerRegistry(
        [{ provider: new FakePageProvider('ocr'), needsTextLayer: false }],
        {
          pro: [],
        },
      ),
    });
    // Act
    const result = await health(deps, '/v1/health');
    // Assert
    expect(result.statusCode).toBe(503);
    expect(bodyOf(result).status).toBe('unhealthy');
  });
});

describe('GET /v1/live', () => {
  it('answers 200 without auth and without touching the dependencies', async () => {
    // Arrange
    const deps = await fakeDeps();
    deps.requests.get = () => Promise.reject(new Error('store down'));
    // Act
    const result = await liveHandler(() => Promise.resolve(deps))(
      aGetEvent('/v1/live', { apiKey: null }),
      lambdaContext('live'),
    );
    // Assert
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({ status: 'live' });
  });
});
