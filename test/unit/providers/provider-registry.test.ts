import { OFFICE_MODEL } from '../../../functions/engines/office/office-engine.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type {
  PageParseRequest,
  PageProvider,
} from '../../../functions/core/ports/page-provider.js';
import {
  parseProvidersConfig,
  type ProvidersConfig,
} from '../../../functions/providers/provider-config.js';
import {
  buildProviderRegistry,
  type ProviderRuntime,
} from '../../../functions/providers/provider-registry.js';
import { instantiateProvider } from '../../../functions/providers/provider-factory.js';
import { LocalOcrProvider } from '../../../functions/engines/ocr/local-ocr-provider.js';
import type { TesseractOcr } from '../../../functions/engines/ocr/tesseract-ocr.js';
import { LocalTextProvider } from '../../../functions/engines/pdf/local-text-provider.js';
import type { PdfPageSource } from '../../../functions/engines/pdf/pdf-page-source.js';
import { FakePageProvider } from '../../support/builders.js';
import { FakeApiServer, fakeRasterizer } from '../../support/fake-api-server.js';

const PAGE: PageParseRequest = {
  document: { key: 'uploads/doc', format: 'pdf', hash: 'doc-hash' },
  pageNumber: 3,
  dpi: null,
  profile: null,
  maintainFormat: true,
};

/** The configuration of `file`, failing the test when it has problems. */
function configOf(
  file: Record<string, unknown>,
  env: Record<string, string> = {},
): ProvidersConfig {
  const parsed = parseProvidersConfig(file, env);
  if ('problems' in parsed)
    throw new Error(`invalid test configuration:\n${parsed.problems.join('\n')}`);
  return parsed.config;
}

/**
 * Offline text and OCR on fast; a vision model then OCR on pro; Claude then the vision model on
 * premium. `unused` is configured but in no tier.
 */
function aConfig(): ProvidersConfig {
  return configOf({
    providers: {
      unused: { kind: 'gemini', model: 'gemini-2.5-flash', base_url: 'https://g.example.com' },
      claude: {
        kind: 'anthropic',
        model: 'claude-sonnet-4-6',
        base_url: 'https://api.anthropic.com',
        price: { per_input_token_usd: 0.000003, per_output_token_usd: 0.000015 },
      },
      'local-text': { kind: 'local-text' },
      ocr: { kind: 'local-ocr', price: { per_page_usd: 0.0001 } },
      vision: {
        kind: 'openai-compatible',
        model: 'gpt-4.1-mini',
        base_url: 'https://o.example.com',
      },
    },
    tiers: {
      fast: { providers: ['local-text', 'ocr'], price_per_page_usd: 0.001 },
      pro: { providers: ['vision', 'ocr'], price_per_page_usd: 0.01 },
      premium: { providers: ['claude', 'vision'], price_per_page_usd: 0.03 },
    },
  });
}

/** A runtime whose offline providers are fakes reporting the offline kinds' ids. */
function aRuntime(): ProviderRuntime & { text: FakePageProvider; ocr: FakePageProvider } {
  const text = new FakePageProvider('local-text');
  const ocr = new FakePageProvider('local-ocr', { markdown: 'recognised' }, 'tesseract-5');
  return {
    text,
    ocr,
    local: new Map<'local-text' | 'local-ocr', PageProvider>([
      ['local-text', text],
      ['local-ocr', ocr],
    ]),
    rasterizer: fakeRasterizer(),
    build: instantiateProvider,
  };
}

describe('buildProviderRegistry', () => {
  it('gives each tier its chain in order, marking the text-layer and the generative providers and their models', () => {
    // Arrange
    const registry = buildProviderRegistry(aConfig(), undefined);
    // Act
    const chains = {
      fast: registry.chain('fast'),
      pro: registry.chain('pro'),
      premium: registry.chain('premium'),
    };
    // Assert
    expect(chains).toEqual({
      fast: [
        {
          id: 'local-text',
          needsTextLayer: true,
          generative: false,
          model: 'pdf-text-layout-1',
          otherModels: ['office-convert-1'],
        },
        {
          id: 'ocr',
          needsTextLayer: false,
          generative: false,
          model: 'tesseract-5-lstm',
          otherModels: [],
        },
      ],
      pro: [
        {
          id: 'vision',
          needsTextLayer: false,
          generative: true,
          model: 'gpt-4.1-mini',
          otherModels: [],
        },
        {
          id: 'ocr',
          needsTextLayer: false,
          generative: false,
          model: 'tesseract-5-lstm',
          otherModels: [],
        },
      ],
      premium: [
        {
          id: 'claude',
          needsTextLayer: false,
          generative: true,
          model: 'claude-sonnet-4-6',
          otherModels: [],
        },
        {
          id: 'vision',
          needsTextLayer: false,
          generative: true,
          model: 'gpt-4.1-mini',
          otherModels: [],
        },
      ],
    });
  });

  it('names the offline providers by the model their engines report on every page', () => {
    // Arrange
    const registry = buildProviderRegistry(aConfig(), undefined);
    const engines = {
      'local-text': new LocalTextProvider({} as PdfPageSource),
      ocr: new LocalOcrProvider(fakeRasterizer(), null as unknown as TesseractOcr),
    };
    // Act
    const models = registry.chain('fast').map((p) => [p.id, p.model]);
    // Assert
    expect(models).toEqual([
      ['local-text', engines['local-text'].model],
      ['ocr', engines.ocr.model],
    ]);
    expect(models).toEqual([
      ['local-text', 'pdf-text-layout-1'],
      ['ocr', 'tesseract-5-lstm'],
    ]);
    // local-text answers office pages with the office engine's conversion, reported as its model.
    expect(registry.chain('fast')[0]?.otherModels).toEqual([OFFICE_MODEL]);
  });

  it('lists the providers of the tiers each once, in the order the tiers name them', () => {
    // Arrange
    const registry = buildProviderRegistry(aConfig(), undefined);
    // Act
    const ids = registry.ids();
    // Assert
    expect(ids).toEqual(['local-text', 'ocr', 'vision', 'claude']);
  });

  it('maps each provider price to the pricing shape, zeros where the file gives none', () => {
    // Arrange
    const registry = buildProviderRegistry(aConfig(), undefined);
    // Act
    const prices = ['claude', 'ocr', 'local-text'].map((id) => registry.price(id));
    // Assert
    expect(prices).toEqual([
      { perPageUsd: 0, perInputTokenUsd: 0.000003, perOutputTokenUsd: 0.000015 },
      { perPageUsd: 0.0001, perInputTokenUsd: 0, perOutputTokenUsd: 0 },
      { perPageUsd: 0, perInputTokenUsd: 0, perOutputTokenUsd: 0 },
    ]);
  });

  it.each(['nobody', 'constructor'])(
    'throws for the price of %s, which is not configured',
    (id) => {
      // Arrange
      const registry = buildProviderRegistry(aConfig(), undefined);
      // Act
      const price = () => registry.price(id);
      // Assert
      expect(price).toThrow(`provider ${id} is not configured`);
    },
  );

  it('throws when a provider is asked for in a function without engines', () => {
    // Arrange
    const registry = buildProviderRegistry(aConfig(), undefined);
    // Act
    const get = () => registry.get('ocr');
    // Assert
    expect(get).toThrow(/provider ocr cannot run in this function/);
  });

  it('throws when an unconfigured provider is asked for', () => {
    // Arrange
    const registry = buildProviderRegistry(aConfig(), aRuntime());
    // Act
    const get = () => registry.get('nobody');
    // Assert
    expect(get).toThrow('provider nobody is not configured');
  });

  it('gives the offline provider itself when it is configured under its own id', () => {
    // Arrange
    const runtime = aRuntime();
    const registry = buildProviderRegistry(aConfig(), runtime);
    // Act
    const provider = registry.get('local-text');
    // Assert
    expect(provider).toBe(runtime.text);
  });

  it('reports an offline provider configured under another id by that id, and delegates to it', async () => {
    // Arrange
    const runtime = aRuntime();
    const registry = buildProviderRegistry(aConfig(), runtime);
    // Act
    const provider = registry.get('ocr');
    const result = await provider.parsePage(PAGE);
    // Assert
    expect(provider).toMatchObject({ id: 'ocr', model: 'tesseract-5' });
    expect(runtime.ocr.calls).toEqual([PAGE]);
    expect(result.markdown).toBe('recognised');
  });

  it('passes a hint to the offline provider a configured id names, and to no other', () => {
    // Arrange
    const runtime = aRuntime();
    const registry = buildProviderRegistry(aConfig(), runtime);
    // Act
    registry.prefetch?.('ocr', PAGE);
    registry.prefetch?.('vision', PAGE);
    registry.prefetch?.('unknown', PAGE);
    // Assert
    expect(runtime.ocr.prefetched).toEqual([PAGE]);
    expect(runtime.text.prefetched).toEqual([]);
  });

  it('builds no provider for a hint and never throws, even in a function without engines', () => {
    // Arrange
    const runtime = aRuntime();
    const build = vi.fn(runtime.build);
    const registry = buildProviderRegistry(aConfig(), { ...runtime, build });
    const failing = new FakePageProvider('local-ocr');
    failing.prefetch = () => {
      throw new Error('the reader is closed');
    };
    const broken = buildProviderRegistry(aConfig(), {
      ...runtime,
      local: new Map([['local-ocr', failing]]),
    });
    // Act
    const hint = () => {
      registry.prefetch?.('vision', PAGE);
      registry.prefetch?.('claude', PAGE);
      buildProviderRegistry(aConfig(), undefined).prefetch?.('ocr', PAGE);
      broken.prefetch?.('ocr', PAGE);
    };
    // Assert
    expect(hint).not.toThrow();
    expect(build).not.toHaveBeenCalled();
  });

  it('throws when the runtime lacks the offline engine a provider needs', () => {
    // Arrange
    const runtime = aRuntime();
    const registry = buildProviderRegistry(aConfig(), {
      ...runtime,
      local: new Map([['local-text', runtime.text]]),
    });
    // Act
    const get = () => registry.get('ocr');
    // Assert
    expect(get).toThrow('the offline provider local-ocr is not available');
  });

  it('builds each provider once and gives the same instance afterwards', () => {
    // Arrange
    const registry = buildProviderRegistry(aConfig(), aRuntime());
    // Act
    const first = [registry.get('ocr'), registry.get('vision'), registry.get('claude')];
    const second = [registry.get('ocr'), registry.get('vision'), registry.get('claude')];
    // Assert
    second.forEach((provider, i) => {
      expect(provider).toBe(first[i]);
    });
    expect(first.map((p) => p.id)).toEqual(['ocr', 'vision', 'claude']);
  });

  it('closes the providers it built that hold resources', async () => {
    // Arrange
    const runtime = aRuntime();
    const close = vi.fn(() => Promise.resolve());
    const closable = Object.assign(new FakePageProvider('local-text'), { close });
    const registry = buildProviderRegistry(aConfig(), {
      ...runtime,
      local: new Map<'local-text' | 'local-ocr', PageProvider>([
        ['local-text', closable],
        ['local-ocr', runtime.ocr],
      ]),
    });
    registry.get('local-text');
    registry.get('ocr');
    // Act
    await registry.close();
    // Assert
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('closes nothing when no provider was built', async () => {
    // Arrange
    const close = vi.fn(() => Promise.resolve());
    const runtime = aRuntime();
    const registry = buildProviderRegistry(aConfig(), {
      ...runtime,
      local: new Map<'local-text' | 'local-ocr', PageProvider>([
        ['local-text', Object.assign(new FakePageProvider('local-text'), { close })],
      ]),
    });
    // Act
    await registry.close();
    // Assert
    expect(close).not.toHaveBeenCalled();
  });
});

describe('buildProviderRegistry with remote providers of the configuration', () => {
  let server: FakeApiServer;
  let registry: ReturnType<typeof buildProviderRegistry>;
  const rasterizer = fakeRasterizer();

  beforeAll(async () => {
    server = await FakeApiServer.start();
    const config = configOf(
      {
        providers: {
          gpt: {
            kind: 'openai-compatible',
            model: 'gpt-4.1-mini',
            base_url: `${server.url}/v1/`,
            api_key_env: 'TEST_OPENAI_KEY',
            dpi: 200,
            max_output_tokens: 1024,
          },
          claude: {
            kind: 'anthropic',
            model: 'claude-sonnet-4-6',
            base_url: server.url,
            api_key_env: 'TEST_ANTHROPIC_KEY',
          },
        },
        tiers: {
          fast: { providers: ['gpt'], price_per_page_usd: 0.001 },
          pro: { providers: ['gpt'], price_per_page_usd: 0.01 },
          premium: { providers: ['claude', 'gpt'], price_per_page_usd: 0.03 },
        },
      },
      { TEST_OPENAI_KEY: 'sk-from-env', TEST_ANTHROPIC_KEY: 'ant-from-env' },
    );
    registry = buildProviderRegistry(config, {
      local: new Map(),
      rasterizer,
      build: instantiateProvider,
    });
  });
  afterAll(async () => {
    await registry.close();
    await server.close();
  });

  it('parses a page through the openai-compatible provider at the configured base_url, key, model and DPI', async () => {
    // Arrange
    server.script({
      body: {
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: '# Configured\n\nWired through.' },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5 },
      },
    });
    // Act
    const provider = registry.get('gpt');
    const result = await provider.parsePage(PAGE);
    // Assert
    expect(provider.id).toBe('gpt');
    expect(result).toMatchObject({
      markdown: '# Configured\n\nWired through.',
      model: 'gpt-4.1-mini',
      dpi: 200,
      tokens: { input: 10, output: 5 },
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-from-env');
    expect(server.requests[0]?.body).toMatchObject({ model: 'gpt-4.1-mini', max_tokens: 1024 });
    expect(rasterizer.calls.at(-1)).toEqual({ dpi: 200 });
  });

  it('parses a page through the anthropic provider at the configured base_url and key', async () => {
    // Arrange
    server.script({
      body: {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: [{ type: 'text', text: '# From Claude\n\nConfigured.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 7, output_tokens: 3 },
      },
    });
    // Act
    const result = await registry.get('claude').parsePage(PAGE);
    // Assert
    expect(result).toMatchObject({ markdown: '# From Claude\n\nConfigured.', dpi: 150 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/messages' });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer ant-from-env');
    expect(server.requests[0]?.body).toMatchObject({
      model: 'claude-sonnet-4-6',
      max_tokens: 8192,
    });
  });
});

describe('buildProviderRegistry with keys in Secrets Manager', () => {
  let server: FakeApiServer;

  beforeAll(async () => {
    server = await FakeApiServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  const OPENAI_ANSWER = {
    body: {
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: '# Keyed\n\nFrom a secret.' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    },
  };

  /** One provider whose key is in the secret `docparse/openai`, on every tier. */
  const secretConfig = () =>
    configOf({
      providers: {
        gpt: {
          kind: 'openai-compatible',
          model: 'gpt-4.1-mini',
          base_url: `${server.url}/v1`,
          api_key_secret: 'docparse/openai',
        },
      },
      tiers: {
        fast: { providers: ['gpt'], price_per_page_usd: 0.001 },
        pro: { providers: ['gpt'], price_per_page_usd: 0.01 },
        premium: { providers: ['gpt'], price_per_page_usd: 0.03 },
      },
    });

  /** `config` with the key of `gpt` filled, as `resolveProviderSecrets` gives it. */
  const withKey = (config: ProvidersConfig, apiKey: string): ProvidersConfig => {
    const gpt = config.providers.gpt;
    if (!gpt) throw new Error('no gpt in the test configuration');
    return { ...config, providers: { ...config.providers, gpt: { ...gpt, apiKey } } };
  };

  it('reads the keys only on the first page of such a provider, then sends that key on every page', async () => {
    // Arrange
    server.script(OPENAI_ANSWER);
    const config = secretConfig();
    const secretKeys = vi.fn(() => Promise.resolve(withKey(config, 'sk-from-secret')));
    const registry = buildProviderRegistry(config, aRuntime(), secretKeys);
    // Act
    const provider = registry.get('gpt');
    const beforeFirstPage = secretKeys.mock.calls.length;
    const first = await provider.parsePage(PAGE);
    await registry.get('gpt').parsePage(PAGE);
    await registry.close();
    // Assert
    expect(beforeFirstPage).toBe(0);
    expect(provider).toMatchObject({ id: 'gpt', model: 'gpt-4.1-mini' });
    expect(first.markdown).toBe('# Keyed\n\nFrom a secret.');
    expect(secretKeys).toHaveBeenCalledTimes(1);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer sk-from-secret',
      'Bearer sk-from-secret',
    ]);
  });

  it('fails the page with the error of reading the keys, and reads them again on the next page', async () => {
    // Arrange
    server.script(OPENAI_ANSWER);
    const config = secretConfig();
    const secretKeys = vi
      .fn<() => Promise<ProvidersConfig>>()
      .mockRejectedValueOnce(new Error('the secret docparse/openai does not exist'))
      .mockResolvedValue(withKey(config, 'sk-second'));
    const registry = buildProviderRegistry(config, aRuntime(), secretKeys);
    // Act
    const failed = registry.get('gpt').parsePage(PAGE);
    await expect(failed).rejects.toThrow('the secret docparse/openai does not exist');
    await registry.get('gpt').parsePage(PAGE);
    await registry.close();
    // Assert
    expect(secretKeys).toHaveBeenCalledTimes(2);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk-second']);
  });

  it('builds a provider whose key was already read from Secrets Manager at once', async () => {
    // Arrange
    server.script(OPENAI_ANSWER);
    const registry = buildProviderRegistry(withKey(secretConfig(), 'sk-resolved'), aRuntime());
    // Act
    await registry.get('gpt').parsePage(PAGE);
    await registry.close();
    // Assert
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-resolved');
  });

  it('throws when such a provider is asked for without a way to read its key', () => {
    // Arrange
    const registry = buildProviderRegistry(secretConfig(), aRuntime());
    // Act / Assert
    expect(() => registry.get('gpt')).toThrow(/api_key_secret/);
  });
});
