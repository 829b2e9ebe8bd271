import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_OPTIONS } from '../../../../functions/core/domain/request.js';
import {
  cachedResponse,
  canonicalJson,
  configurationVersion,
  isCacheable,
  resultCacheKey,
  type ResultInputs,
} from '../../../../functions/core/domain/result-cache.js';
import type { ParseResponse } from '../../../../functions/core/domain/schemas.js';
import { aPage } from '../../../contract/request-store.contract.js';

const HASH = 'a'.repeat(64);

const inputs = (overrides: Partial<ResultInputs> = {}): ResultInputs => ({
  tenant: 'acme',
  documentHash: HASH,
  options: DEFAULT_PARSE_OPTIONS,
  configVersion: configurationVersion({ tiers: 'default' }),
  ...overrides,
});

describe('canonicalJson', () => {
  it('orders object members by name at every depth and keeps array order', () => {
    // Act
    const text = canonicalJson({ b: 1, a: [true, { d: null, c: 'x' }], e: undefined });
    // Assert
    expect(text).toBe('{"a":[true,{"c":"x","d":null}],"b":1}');
  });

  it('gives equal text for equal values written in another order', () => {
    // Act
    const one = canonicalJson({ type: 'object', properties: { total: { type: 'number' } } });
    const other = canonicalJson({ properties: { total: { type: 'number' } }, type: 'object' });
    // Assert
    expect(one).toBe(other);
  });

  it('writes null for what JSON cannot hold, as JSON.stringify does in arrays', () => {
    // Act
    const text = canonicalJson([undefined, () => 1, Symbol('s')]);
    // Assert
    expect(text).toBe('[null,null,null]');
    expect(canonicalJson(undefined)).toBe('null');
  });
});

describe('resultCacheKey', () => {
  it('keeps the tenant and the document hash, and digests the rest into a variant', () => {
    // Act
    const key = resultCacheKey(inputs());
    // Assert
    expect(key).toEqual({
      tenant: 'acme',
      documentHash: HASH,
      variant: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
    });
  });

  it.each<[string, Partial<ResultInputs>]>([
    ['operation_mode', { options: { ...DEFAULT_PARSE_OPTIONS, operation_mode: 'hybrid' } }],
    ['maintain_format', { options: { ...DEFAULT_PARSE_OPTIONS, maintain_format: false } }],
    ['max_pages', { options: { ...DEFAULT_PARSE_OPTIONS, max_pages: 2 } }],
    ['enable_verification', { options: { ...DEFAULT_PARSE_OPTIONS, enable_verification: true } }],
    ['dpi', { options: { ...DEFAULT_PARSE_OPTIONS, dpi: 300 } }],
    ['the extraction schema', { extractionSchema: { type: 'object' } }],
    ['the preferred provider', { preferredProvider: 'local-ocr' }],
    ['the compare provider', { compareProvider: 'local-ocr' }],
    ['the configuration version', { configVersion: configurationVersion({ tiers: 'other' }) }],
  ])('changes the variant with %s', (_name, change) => {
    // Act
    const [plain, changed] = [resultCacheKey(inputs()), resultCacheKey(inputs(change))];
    // Assert
    expect(changed.variant).not.toBe(plain.variant);
  });

  it('keeps the variant for options that only shape the answer, and for schema member order', () => {
    // Arrange
    const shaped = {
      ...DEFAULT_PARSE_OPTIONS,
      include_warnings: true,
      extraction_strict: true,
      legacy_events: true,
    };
    const schema = { type: 'object', required: ['total'] };
    const reordered = { required: ['total'], type: 'object' };
    // Act
    const keys = [
      resultCacheKey(inputs()),
      resultCacheKey(inputs({ options: shaped })),
      resultCacheKey(inputs({ extractionSchema: schema })),
      resultCacheKey(inputs({ extractionSchema: reordered })),
    ];
    // Assert
    expect(keys[1]?.variant).toBe(keys[0]?.variant);
    expect(keys[3]?.variant).toBe(keys[2]?.variant);
  });
});

const aResponse = (overrides: Partial<ParseResponse> = {}): ParseResponse => ({
  id: 'req_source',
  status: 'completed',
  document: {
    hash: HASH,
    pages: 2,
    format: 'pdf',
    cached: false,
    filename: 'a.pdf',
    size_bytes: 9,
  },
  pages: [
    { ...aPage(1), tokens: { input_tokens: 10, output_tokens: 20 }, estimated_cost_usd: 0.01 },
    aPage(2),
  ],
  extracted: null,
  usage: { total_input_tokens: 10, total_output_tokens: 20, estimated_cost_usd: 0.02 },
  timing: {
    total_ms: 900,
    classification_ms: 10,
    routing_ms: 5,
    vlm_processing_ms: 800,
    verification_ms: 20,
  },
  document_type: null,
  created_at: '2026-01-01T00:00:00.000Z',
  errors: [],
  ...overrides,
});

describe('cachedResponse', () => {
  it('answers with the stored pages under the new id, cached, with nothing charged', () => {
    // Act
    const response = cachedResponse(aResponse(), {
      id: 'req_hit',
      filename: 'b.pdf',
      createdAt: '2026-02-01T00:00:00.000Z',
      totalMs: 12.4,
    });
    // Assert
    expect(response).toMatchObject({
      id: 'req_hit',
      document: { cached: true, filename: 'b.pdf', hash: HASH, pages: 2 },
      usage: {
        total_input_tokens: 0,
        total_output_tokens: 0,
        estimated_cost_usd: 0,
        cached: true,
        cached_from: 'req_source',
      },
      timing: { total_ms: 12, vlm_processing_ms: 0, cached: true },
      created_at: '2026-02-01T00:00:00.000Z',
    });
    expect(response.pages[0]).toMatchObject({
      content_markdown: aPage(1).content_markdown,
      tokens: { input_tokens: 0, output_tokens: 0 },
      latency_ms: 0,
      estimated_cost_usd: 0,
    });
    expect(response.pages[1]).not.toHaveProperty('estimated_cost_usd');
  });
});

describe('isCacheable', () => {
  it('refuses a result with a page whose comparison failed', () => {
    // Arrange
    const failed = {
      ...aPage(1),
      comparison: {
        provider_id: 'local-ocr',
        model_id: null,
        status: 'failed' as const,
        content_markdown: null,
        agreement: null,
        tokens: { input_tokens: 0, output_tokens: 0 },
        estimated_cost_usd: 0,
        latency_ms: 0,
      },
    };
    // Act, Assert
    expect(isCacheable(aResponse())).toBe(true);
    expect(isCacheable(aResponse({ pages: [failed] }))).toBe(false);
  });
});
