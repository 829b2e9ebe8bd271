import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchRoute, routes } from '../../../functions/api/routes.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * GET /v1/openapi.json and /docs on the local service: the document names every route of the
 * route table, and real answers of every route (successes and failures) are documented under
 * their status and validate against the documented schema.
 */

const DEV = corpusPath('dev/files');
const PDF = readFileSync(join(DEV, 'docling-2305.03393v1-pg9.pdf'));
const KEY = 'key-openapi-001';

interface OpenApi {
  openapi: string;
  paths: Record<
    string,
    Record<string, { operationId: string; responses: Record<string, DocumentedResponse> }>
  >;
  components: { schemas: Record<string, unknown> };
}
interface DocumentedResponse {
  content: Record<string, { schema: unknown }>;
}

let running: TestService;
let document: OpenApi;
let ajv: Ajv2020;
/** `METHOD path` of every route an answer was checked for. */
const exercised = new Set<string>();

beforeAll(async () => {
  running = await startTestService('openapi', {
    API_KEYS: `${KEY}=documenters:pro`,
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null,"pages_per_day":null}}',
  });
  const res = await fetch(`${running.url}/v1/openapi.json`);
  document = (await res.json()) as OpenApi;
  ajv = new Ajv2020({ strict: false, allErrors: true, formats: { binary: true } });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi.json');
});

afterAll(async () => {
  await running.close();
});

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Sends a request and checks its answer against the document: the route's status must be
 * documented, with the answer's content type, and a JSON body must validate.
 */
async function call(
  method: 'GET' | 'POST',
  path: string,
  init: { body?: BodyInit; json?: unknown; key?: string | null; accept?: string } = {},
): Promise<{ status: number; body: unknown; text: string; contentType: string }> {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers['x-api-key'] = init.key ?? KEY;
  if (init.accept) headers.accept = init.accept;
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(`${running.url}${path}`, { method, headers, ...(body ? { body } : {}) });
  const text = await res.text();
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const match = matchRoute(method, new URL(path, 'http://x').pathname);
  if (match === undefined || match === 'method') throw new Error(`no route for ${path}`);
  const { route } = match;
  exercised.add(`${route.method} ${route.path}`);
  const documented =
    document.paths[route.path]?.[method.toLowerCase()]?.responses[String(res.status)];
  expect(
    documented,
    `${method} ${route.path} answered ${res.status}, which is not documented`,
  ).toBeDefined();
  expect(Object.keys(documented!.content)).toContain(contentType);
  let parsed: unknown = undefined;
  if (contentType === 'application/json') {
    parsed = JSON.parse(text);
    const validate = ajv.getSchema(
      `openapi.json#/${pointer('paths', route.path, method.toLowerCase(), 'responses', String(res.status), 'content', contentType, 'schema')}`,
    );
    expect(validate, 'the documented schema compiles').toBeDefined();
    const valid = validate!(parsed);
    expect(
      valid,
      `${method} ${path} ${res.status}: ${JSON.stringify(validate!.errors?.slice(0, 3))}`,
    ).toBe(true);
  }
  return { status: res.status, body: parsed, text, contentType };
}

const pdfForm = (fields: Record<string, string> = {}) => {
  const form = new FormData();
  form.append('file', new Blob([PDF], { type: 'application/pdf' }), 'tableformer.pdf');
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
};

describe('GET /v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document naming every route of the route table, with unique operation ids', () => {
    // Assert
    expect(document.openapi).toBe('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    // The schemas are not vacuous: an empty object is no ParseResponse.
    expect(ajv.getSchema('openapi.json#/components/schemas/ParseResponse')!({})).toBe(false);
    // Every component schema compiles (all references resolve).
    for (const name of Object.keys(document.components.schemas)) {
      expect(ajv.getSchema(`openapi.json#/components/schemas/${name}`), name).toBeDefined();
    }
  });
});

describe('real answers validate against the document', () => {
  let requestId = '';

  it('parses: upload, stream, estimate, compare, structured', async () => {
    const parsed = await call('POST', '/v1/parse/upload', { body: pdfForm() });
    expect(parsed.status).toBe(200);
    requestId = (parsed.body as { id: string }).id;

    const streamed = await call('POST', '/v1/parse/stream', { body: pdfForm() });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('result.final');

    expect((await call('POST', '/v1/parse/estimate', { body: pdfForm() })).status).toBe(200);
    const compared = await call('POST', '/v1/compare', {
      body: pdfForm({
        providers: JSON.stringify([{ id: 'local-text', model: 'pdf-text-layout-1' }]),
      }),
    });
    expect(compared.status).toBe(200);
    expect((await call('POST', '/v1/parse/structured', { body: pdfForm() })).status).toBe(200);
  });

  it('reads, resumes and refuses to cancel a finished parse', async () => {
    expect((await call('GET', `/v1/parse/${requestId}?include_warnings=true`)).status).toBe(200);
    expect((await call('POST', `/v1/parse/${requestId}/resume`)).status).toBe(200);
    expect((await call('POST', `/v1/parse/${requestId}/cancel`)).status).toBe(404);
    expect((await call('GET', '/v1/parse/req_unknown')).status).toBe(404);
  });

  it('uploads to a slot and batches it', async () => {
    const slot = await call('POST', '/v1/uploads', { json: { filename: 'tableformer.pdf' } });
    expect(slot.status).toBe(201);
    const { upload_id, url, fields } = slot.body as {
      upload_id: string;
      url: string;
      fields: Record<string, string>;
    };
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([PDF]), 'tableformer.pdf');
    expect((await fetch(url, { method: 'POST', body: form })).status).toBeLessThan(300);
    const batch = await call('POST', '/v1/parse/batch', {
      json: { documents: [{ upload_id }], priority: 'high' },
    });
    expect(batch.status).toBe(200);
    const batchId = (batch.body as { batch_id: string }).batch_id;
    let status = '';
    for (let i = 0; i < 120 && status !== 'completed' && status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      status = ((await call('GET', `/v1/batch/${batchId}`)).body as { status: string }).status;
    }
    expect(status).toBe('completed');
    const items = await call('GET', `/v1/batch/${batchId}/items?status=completed`);
    expect(items.status).toBe(200);
    expect(items.body).toMatchObject({ items: [{ index: 0, status: 'completed' }] });
  });

  it('answers operations, webhook, reference and docs routes', async () => {
    expect((await call('GET', '/v1/providers')).status).toBe(200);
    expect((await call('GET', '/v1/webhooks/secret')).status).toBe(200);
    expect((await call('GET', '/v1/live', { key: null })).status).toBe(200);
    expect((await call('GET', '/v1/health')).status).toBe(200);
    expect((await call('GET', '/health', { key: null })).status).toBe(200);
    expect((await call('GET', '/v1/openapi.json', { key: null })).status).toBe(200);
    const page = await call('GET', '/docs', { key: null });
    expect(page.status).toBe(200);
    expect(page.text).toContain('/v1/openapi.json');
    const script = await call('GET', '/docs/swagger-ui-bundle.js', { key: null });
    expect(script.status).toBe(200);
    expect(script.text.length).toBeGreaterThan(100_000);
    expect((await call('GET', '/docs/secrets.txt', { key: null })).status).toBe(404);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect((await call('GET', `/docs/${name}`, { key: null })).status).toBe(404);
    }
  });

  it('documents the failures: 400, 401, 413-free 422s and 404s', async () => {
    expect((await call('POST', '/v1/parse/upload', { body: pdfForm(), key: 'wrong' })).status).toBe(
      401,
    );
    expect(
      (await call('POST', '/v1/parse/upload', { body: pdfForm({ operation_mode: 'poetry' }) }))
        .status,
    ).toBe(422);
    expect(
      (await call('POST', '/v1/parse', { json: { file_url: 'http://127.0.0.1/a.pdf' } })).status,
    ).toBe(400);
    expect((await call('POST', '/v1/parse', { json: { file_url: 7 } })).status).toBe(422);
    expect((await call('POST', '/v1/parse/batch', { json: { documents: [] } })).status).toBe(422);
    expect((await call('GET', '/v1/batch/batch_unknown')).status).toBe(404);
    expect((await call('POST', '/v1/uploads', { json: { filename: '' } })).status).toBe(422);
    const empty = new FormData();
    empty.append('file', new Blob([]), 'empty.pdf');
    expect((await call('POST', '/v1/parse/estimate', { body: empty })).status).toBe(400);
  });

  it('has exercised every route', () => {
    expect([...exercised].sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });
});
