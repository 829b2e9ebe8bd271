import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import {
  CompareResult,
  HTTPValidationError,
  ParseResponse,
  type ProviderStatus,
} from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';

/** POST /v1/compare on the local service, with the offline providers of the default configuration. */

const DEV = corpusPath('dev');
const KEY = 'key-compare-0001';
const PDF = readFileSync(join(DEV, 'files/docling-2305.03393v1-pg9.pdf'));

let running: TestService;
let service: LocalServer;

beforeAll(async () => {
  running = await startTestService('compare', {
    API_KEYS: `${KEY}=comparers:pro`,
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
  });
  service = running.server;
});

afterAll(async () => {
  await running.close();
});

async function compare(providers: string) {
  const form = new FormData();
  form.append('file', new Blob([PDF], { type: 'application/pdf' }), 'tableformer.pdf');
  form.append('providers', providers);
  const res = await fetch(`${service.url}/v1/compare`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('POST /v1/compare', () => {
  it('runs the document through each provider, named by the model ids its pages report, and scores their agreement per page', async () => {
    // Arrange: the pairs exactly as GET /v1/providers lists them.
    const listed = await fetch(`${service.url}/v1/providers`, { headers: { 'x-api-key': KEY } });
    const pairs = ((await listed.json()) as { providers: ProviderStatus[] }).providers.map((p) => ({
      id: p.provider_id,
      model: p.model_id,
    }));
    // Act
    const result = await compare(JSON.stringify(pairs));
    // Assert
    expect(pairs).toEqual([
      { id: 'local-text', model: 'pdf-text-layout-1' },
      { id: 'local-ocr', model: 'tesseract-5-lstm' },
    ]);
    expect(result.status).toBe(200);
    const body = CompareResult.parse(result.body);
    expect(body.compare_id).toMatch(/^cmp_/);
    expect(body.filename).toBe('tableformer.pdf');
    expect(body.providers_requested).toEqual(pairs);
    expect(body.runs.map((r) => [r.provider_id, r.model_id, r.status])).toEqual([
      ['local-text', 'pdf-text-layout-1', 'completed'],
      ['local-ocr', 'tesseract-5-lstm', 'completed'],
    ]);
    const [text, ocr] = body.runs.map((r) => ParseResponse.parse(r.response));
    // One vocabulary: each run's pages report the model the run was asked for.
    expect(text!.pages.map((p) => [p.provider, p.model])).toEqual([
      ['local-text', 'pdf-text-layout-1'],
    ]);
    expect(ocr!.pages.map((p) => [p.provider, p.model])).toEqual([
      ['local-ocr', 'tesseract-5-lstm'],
    ]);
    expect(new Set(body.runs.map((r) => r.request_id)).size).toBe(2);
    const agreement = (result.body as { page_agreement: { agreement: number }[] }).page_agreement;
    expect(agreement).toHaveLength(1);
    expect(agreement[0]!.agreement).toBeGreaterThan(0.7);
    expect(agreement[0]!.agreement).toBeLessThan(1);
  });

  it('allows a single provider named by its id alone, with no agreement to compute', async () => {
    // Act
    const result = await compare(JSON.stringify([{ id: 'local-ocr' }]));
    // Assert
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      providers_requested: [{ id: 'local-ocr', model: 'tesseract-5-lstm' }],
      runs: [{ provider_id: 'local-ocr', model_id: 'tesseract-5-lstm', status: 'completed' }],
      page_agreement: [{ page_number: 1, agreement: null }],
    });
  });

  it('refuses a model another provider runs with 422, listing the valid pairs', async () => {
    // Act
    const result = await compare(
      JSON.stringify([
        { id: 'local-text', model: 'pdf-text-layout-1' },
        { id: 'local-ocr', model: 'pdf-text-layout-1' },
      ]),
    );
    // Assert
    expect(result.status).toBe(422);
    const [issue] = HTTPValidationError.parse(result.body).detail;
    expect(issue?.loc).toEqual(['body', 'providers', 1]);
    expect(issue?.msg).toBe(
      'provider local-ocr runs the model "tesseract-5-lstm", not "pdf-text-layout-1"; the valid pairs are [{"id":"local-text","model":"pdf-text-layout-1"},{"id":"local-text","model":"office-convert-1"},{"id":"local-ocr","model":"tesseract-5-lstm"}] (GET /v1/providers lists them)',
    );
  });

  it.each([
    ['no provider', '[]'],
    ['five providers', JSON.stringify(Array.from({ length: 5 }, () => ({ id: 'local-ocr' })))],
    ['text that is not JSON', '[{'],
    ['an unknown provider', JSON.stringify([{ id: 'gpt-9', model: 'x' }])],
    ['a model the provider does not run', JSON.stringify([{ id: 'local-ocr', model: 'gpt-4o' }])],
    [
      'the provider id given as its model',
      JSON.stringify([{ id: 'local-ocr', model: 'local-ocr' }]),
    ],
    [
      'the same provider twice',
      JSON.stringify([{ id: 'local-ocr', model: 'tesseract-5-lstm' }, { id: 'local-ocr' }]),
    ],
  ])('refuses %s with 422 at providers', async (_, providers) => {
    // Act
    const result = await compare(providers);
    // Assert
    expect(result.status).toBe(422);
    expect(HTTPValidationError.parse(result.body).detail[0]?.loc).toContain('providers');
  });
});
