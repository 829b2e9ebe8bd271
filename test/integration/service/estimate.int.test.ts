import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { EstimateResult, ParseResponse } from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * POST /v1/parse/estimate against the live pipeline: for every document of the dev corpus, the
 * estimate's tier mix, page count and document type equal what a parse
 * of the same document reports, and the estimated cost is the tiers' prices for that mix.
 */

const DEV = corpusPath('dev');
const KEY = 'key-estimate-001';
const PRICES = { fast: 0.001, pro: 0.01, premium: 0.03 };

interface DevDoc {
  id: string;
  file: string;
  format: string;
}

/** Every document of the dev corpus: PDFs, images and office files. */
const docs = (
  JSON.parse(readFileSync(join(DEV, 'manifest.json'), 'utf8')) as { documents: DevDoc[] }
).documents;

let running: TestService;
let service: LocalServer;

beforeAll(async () => {
  running = await startTestService('estimate', {
    API_KEYS: `${KEY}=estimators:pro`,
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null,"pages_per_day":null}}',
  });
  service = running.server;
});

afterAll(async () => {
  await running.close();
});

async function send(path: string, file: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(join(DEV, file))]), file.split('/').pop());
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('POST /v1/parse/estimate', () => {
  it(`predicts the tier mix, page count and type of a parse, on all ${docs.length} dev documents`, async () => {
    for (const doc of docs) {
      // Act
      const estimate = await send('/v1/parse/estimate', doc.file);
      const parse = await send('/v1/parse/upload', doc.file);
      // Assert
      expect(estimate.status, doc.id).toBe(200);
      expect(parse.status, doc.id).toBe(200);
      const predicted = EstimateResult.parse(estimate.body);
      const parsed = ParseResponse.parse(parse.body);
      expect(predicted.tier_mix, doc.id).toEqual(parsed.usage.pages_by_tier);
      expect(predicted.page_count, doc.id).toBe(parsed.pages.length);
      expect(predicted.doc_type, doc.id).toBe(parsed.document_type?.detected);
      const expected =
        predicted.tier_mix.fast * PRICES.fast +
        predicted.tier_mix.pro * PRICES.pro +
        predicted.tier_mix.premium * PRICES.premium;
      expect(predicted.estimated_cost_usd, doc.id).toBeCloseTo(expected, 6);
      expect(predicted.applied_preset).toEqual({ tier_floor: 'fast', return_grounding: true });
    }
  });

  it('honours max_pages', async () => {
    // Act
    const estimate = await send('/v1/parse/estimate', 'files/docling-redp5110_sampled.pdf', {
      max_pages: '5',
    });
    // Assert
    expect(estimate.status).toBe(200);
    const result = EstimateResult.parse(estimate.body);
    expect(result.page_count).toBe(5);
    expect(result.tier_mix.fast + result.tier_mix.pro + result.tier_mix.premium).toBe(5);
  });

  it('refuses a missing file with 400 and a file that is not a document with 400', async () => {
    // Act
    const empty = await fetch(`${service.url}/v1/parse/estimate`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
      body: new FormData(),
    });
    const text = new FormData();
    text.append('file', new Blob(['just some text, not a document']), 'notes.bin');
    const notDocument = await fetch(`${service.url}/v1/parse/estimate`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
      body: text,
    });
    // Assert
    expect(empty.status).toBe(400);
    expect(notDocument.status).toBe(400);
    expect(((await notDocument.json()) as { detail: string }).detail).toMatch(/unsupported/);
  });
});
