import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  parseProvidersConfig,
  type ProvidersConfig,
} from '../../../functions/providers/provider-config.js';
import { instantiateProvider } from '../../../functions/providers/provider-factory.js';
import {
  buildProviderRegistry,
  type ConfiguredRegistry,
  type ProviderRuntime,
} from '../../../functions/providers/provider-registry.js';
import { FakeApiServer, fakeRasterizer } from '../../support/fake-api-server.js';
import { INVOICE_DATA, extractionRequest } from './extraction-fixtures.js';

/** The configuration of `file`, failing the test when it has problems. */
function configOf(file: Record<string, unknown>): ProvidersConfig {
  const parsed = parseProvidersConfig(file, {});
  if ('problems' in parsed) {
    throw new Error(`invalid test configuration:\n${parsed.problems.join('\n')}`);
  }
  return parsed.config;
}

/** A Chat Completion answering the extraction with `INVOICE_DATA`. */
const EXTRACTION_ANSWER = {
  body: {
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: JSON.stringify(INVOICE_DATA) },
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 900, completion_tokens: 20 },
  },
};

const runtime = (): ProviderRuntime => ({
  local: new Map(),
  rasterizer: fakeRasterizer(),
  build: instantiateProvider,
});

describe('buildProviderRegistry extraction', () => {
  let server: FakeApiServer;
  const registries: ConfiguredRegistry[] = [];
  /** A registry closed after the tests. */
  const registryOf = (...args: Parameters<typeof buildProviderRegistry>) => {
    const built = buildProviderRegistry(...args);
    registries.push(built);
    return built;
  };

  /**
   * `gpt` on every tier and last in the extraction chain; `extractor-only` (on no tier) first;
   * `keyed` reads its key from Secrets Manager; `textract` parses pages only.
   */
  const config = (extraction: string[] = ['extractor-only', 'gpt']) =>
    configOf({
      providers: {
        ocr: { kind: 'local-ocr' },
        gpt: {
          kind: 'openai-compatible',
          model: 'gpt-4.1-mini',
          base_url: `${server.url}/v1`,
        },
        'extractor-only': {
          kind: 'openai-compatible',
          model: 'gpt-4.1',
          base_url: `${server.url}/v1`,
        },
        keyed: {
          kind: 'openai-compatible',
          model: 'gpt-4o',
          base_url: `${server.url}/v1`,
          api_key_secret: 'docparse/openai',
        },
        textract: { kind: 'textract', model: 'textract-analyze-layout' },
      },
      tiers: {
        fast: { providers: ['ocr'], price_per_page_usd: 0.001 },
        pro: { providers: ['gpt', 'ocr'], price_per_page_usd: 0.01 },
        premium: { providers: ['gpt', 'textract'], price_per_page_usd: 0.03 },
      },
      extraction: { providers: extraction },
    });

  beforeAll(async () => {
    server = await FakeApiServer.start();
  });
  afterAll(async () => {
    await Promise.all(registries.map((r) => r.close()));
    await server.close();
  });

  it('gives the configured extraction chain in order, and an empty one by default', () => {
    // Arrange
    const configured = buildProviderRegistry(config(), undefined);
    const none = buildProviderRegistry(config([]), undefined);
    // Act / Assert
    expect(configured.extractionChain()).toEqual(['extractor-only', 'gpt']);
    expect(none.extractionChain()).toEqual([]);
    expect(configured.ids()).toEqual(['ocr', 'gpt', 'textract']);
  });

  it('builds an extractor on its first extraction, once, as the same instance the tiers use', async () => {
    // Arrange
    server.script(EXTRACTION_ANSWER);
    const build = vi.fn(instantiateProvider);
    const registry = registryOf(config(), { ...runtime(), build });
    // Act
    const extractor = registry.extractor('gpt');
    const again = registry.extractor('gpt');
    const provider = registry.get('gpt');
    const beforeUse = build.mock.calls.length;
    await extractor.extract(extractionRequest());
    // Assert
    expect(beforeUse).toBe(0);
    expect(build).toHaveBeenCalledTimes(1);
    expect(again).toBe(extractor);
    expect(provider).toBe(extractor);
    expect(extractor).toMatchObject({ id: 'gpt', model: 'gpt-4.1-mini' });
  });

  it('extracts with a provider that is in the chain but on no tier', async () => {
    // Arrange
    server.script(EXTRACTION_ANSWER);
    const registry = registryOf(config(), runtime());
    // Act
    const result = await registry.extractor('extractor-only').extract(extractionRequest());
    // Assert
    expect(result).toEqual({
      data: INVOICE_DATA,
      model: 'gpt-4.1',
      tokens: { input: 900, output: 20 },
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toMatchObject({
      model: 'gpt-4.1',
      response_format: { type: 'json_schema' },
    });
  });

  it('throws for a provider that is configured but not in the chain', () => {
    // Arrange
    const registry = registryOf(config(['gpt']), runtime());
    // Act / Assert
    expect(() => registry.extractor('extractor-only')).toThrow(
      'provider extractor-only is not in the extraction chain (extraction.providers)',
    );
    expect(() => registry.extractor('nobody')).toThrow(/nobody is not in the extraction chain/);
  });

  it('throws for a provider of a kind without extraction, even when put in the chain by hand', () => {
    // Arrange
    const handMade = { ...config(), extraction: ['textract'] };
    const registry = registryOf(handMade, runtime());
    // Act / Assert
    expect(() => registry.extractor('textract')).toThrow(
      'provider textract is of kind textract, which cannot fill extraction schemas',
    );
  });

  it('throws for a chain naming an unconfigured provider', () => {
    // Arrange
    const handMade = { ...config(), extraction: ['ghost'] };
    // Act / Assert
    expect(() => buildProviderRegistry(handMade, runtime())).toThrow(
      'provider ghost is not configured',
    );
  });

  it('throws where providers cannot run (no engines)', () => {
    // Arrange
    const noEngines = buildProviderRegistry(config(), undefined);
    // Act / Assert
    expect(() => noEngines.extractor('gpt')).toThrow(/cannot run in this function/);
  });

  it('reads a key held in Secrets Manager on the first extraction, not before, and sends it', async () => {
    // Arrange
    server.script(EXTRACTION_ANSWER);
    const base = config(['keyed']);
    const keyedEntry = base.providers.keyed;
    if (!keyedEntry) throw new Error('no keyed provider in the test configuration');
    const secretKeys = vi.fn(() =>
      Promise.resolve({
        ...base,
        providers: { ...base.providers, keyed: { ...keyedEntry, apiKey: 'sk-from-secret' } },
      }),
    );
    const registry = registryOf(base, runtime(), secretKeys);
    // Act
    const extractor = registry.extractor('keyed');
    const beforeFirstCall = secretKeys.mock.calls.length;
    const first = await extractor.extract(extractionRequest());
    await registry.extractor('keyed').extract(extractionRequest());
    // Assert
    expect(beforeFirstCall).toBe(0);
    expect(extractor).toMatchObject({ id: 'keyed', model: 'gpt-4o' });
    expect(registry.get('keyed')).toBe(extractor);
    expect(first.data).toEqual(INVOICE_DATA);
    expect(secretKeys).toHaveBeenCalledTimes(1);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer sk-from-secret',
      'Bearer sk-from-secret',
    ]);
  });

  it('throws for a provider with a key in Secrets Manager when the registry cannot read it', () => {
    // Arrange
    const registry = registryOf(config(['keyed']), runtime());
    // Act / Assert
    expect(() => registry.extractor('keyed')).toThrow(/api_key_secret/);
  });
});
