import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  keySecretOf,
  needsTextLayer,
  parseProvidersConfig,
  usesKeySecrets,
  type ProviderKind,
  type ProvidersConfig,
} from '../../../functions/providers/provider-config.js';

/** A configuration file of the repository, parsed as JSON. */
function configFile(name: string): RawFile {
  const path = fileURLToPath(new URL(`../../../config/${name}`, import.meta.url));
  return JSON.parse(readFileSync(path, 'utf8')) as RawFile;
}

interface RawFile {
  providers: Record<string, Record<string, unknown>>;
  tiers: Record<'fast' | 'pro' | 'premium', { providers: string[]; price_per_page_usd: number }>;
}

/** An environment holding every key variable the example configuration names. */
const ENV = {
  OPENAI_API_KEY: 'sk-openai-secret-1',
  ANTHROPIC_API_KEY: 'sk-ant-secret-2',
  GEMINI_API_KEY: 'gemini-secret-3',
  MISTRAL_API_KEY: 'mistral-secret-4',
} as const;

/** A valid file with one offline provider on every tier; `overrides` replace top-level fields. */
function aFile(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const tier = (price: number) => ({ providers: ['local-ocr'], price_per_page_usd: price });
  return {
    providers: { 'local-ocr': { kind: 'local-ocr' } },
    tiers: { fast: tier(0.001), pro: tier(0.01), premium: tier(0.03) },
    ...overrides,
  };
}

/** `aFile` with `entries` added to the providers and used by the premium tier. */
function withProviders(entries: Record<string, unknown>): Record<string, unknown> {
  return aFile({
    providers: { 'local-ocr': { kind: 'local-ocr' }, ...entries },
    tiers: {
      fast: { providers: ['local-ocr'], price_per_page_usd: 0.001 },
      pro: { providers: ['local-ocr'], price_per_page_usd: 0.01 },
      premium: { providers: [...Object.keys(entries), 'local-ocr'], price_per_page_usd: 0.03 },
    },
  });
}

const remote = (overrides: Record<string, unknown> = {}) => ({
  kind: 'openai-compatible',
  model: 'gpt-4.1-mini',
  base_url: 'https://api.openai.com/v1',
  ...overrides,
});

/** The configuration, failing the test with the problems when there are some. */
function configOf(parsed: ReturnType<typeof parseProvidersConfig>): ProvidersConfig {
  if ('problems' in parsed) throw new Error(`unexpected problems:\n${parsed.problems.join('\n')}`);
  return parsed.config;
}

/** The problems, failing the test when the file was accepted. */
function problemsOf(parsed: ReturnType<typeof parseProvidersConfig>): string[] {
  if ('config' in parsed) throw new Error('the configuration was accepted');
  return parsed.problems;
}

describe('parseProvidersConfig', () => {
  it.each([
    'providers.json',
    'providers.example.json',
    'providers.openai-compatible.json',
    'providers.anthropic.json',
    'providers.aws.json',
  ])('accepts the bundled %s with its providers and tier chains', (name) => {
    // Arrange
    const raw = configFile(name);
    // Act
    const config = configOf(parseProvidersConfig(raw, ENV));
    // Assert
    expect(Object.keys(config.providers)).toEqual(Object.keys(raw.providers));
    for (const [id, entry] of Object.entries(config.providers)) {
      expect(entry).toMatchObject({ id, kind: raw.providers[id]?.kind });
    }
    for (const tier of ['fast', 'pro', 'premium'] as const) {
      expect(config.tiers[tier]).toEqual({
        providers: raw.tiers[tier].providers,
        pricePerPageUsd: raw.tiers[tier].price_per_page_usd,
      });
    }
  });

  it.each([
    'providers.example.json',
    'providers.anthropic.json',
    'providers.openai-compatible.json',
  ])(
    'resolves every key of %s from the variable it names, and none for keyless servers',
    (name) => {
      // Arrange
      const raw = configFile(name);
      // Act
      const config = configOf(parseProvidersConfig(raw, ENV));
      // Assert
      for (const [id, entry] of Object.entries(raw.providers)) {
        expect(entry).not.toHaveProperty('api_key_secret');
        const variable = entry.api_key_env as keyof typeof ENV | undefined;
        expect(config.providers[id]?.apiKey).toBe(
          variable === undefined ? undefined : ENV[variable],
        );
      }
      expect(usesKeySecrets(config)).toBe(false);
    },
  );

  it('reads no key for the keyless local server of the OpenAI-compatible example', () => {
    // Arrange
    const raw = configFile('providers.openai-compatible.json');
    // Act
    const config = configOf(parseProvidersConfig(raw, {}));
    // Assert
    expect(config.providers['local-vlm']).toMatchObject({
      kind: 'openai-compatible',
      base_url: 'http://127.0.0.1:11434/v1',
    });
    expect(config.providers['local-vlm']).not.toHaveProperty('apiKey');
    expect(config.tiers.pro.providers[0]).toBe('local-vlm');
    expect(config.tiers.premium.providers[0]).toBe('local-vlm');
  });

  it('keeps the breaker policy of the example file', () => {
    // Arrange
    const raw = configFile('providers.example.json') as RawFile & { breaker: unknown };
    // Act
    const config = configOf(parseProvidersConfig(raw, ENV));
    // Assert
    expect(config.breaker).toEqual(raw.breaker);
  });

  it('applies the defaults of a remote provider: deadline, retries, DPI, output tokens and a free price', () => {
    // Arrange
    const file = withProviders({ gpt: remote() });
    // Act
    const config = configOf(parseProvidersConfig(file, {}));
    // Assert
    expect(config.providers.gpt).toEqual({
      id: 'gpt',
      kind: 'openai-compatible',
      model: 'gpt-4.1-mini',
      base_url: 'https://api.openai.com/v1',
      timeout_ms: 120_000,
      max_retries: 2,
      dpi: 150,
      max_output_tokens: 8192,
      price: { per_page_usd: 0, per_input_token_usd: 0, per_output_token_usd: 0 },
    });
  });

  it('completes a partial price with zeros and keeps the values given', () => {
    // Arrange
    const file = withProviders({
      gpt: remote({ price: { per_input_token_usd: 0.000004 }, timeout_ms: 5000, dpi: 300 }),
      nova: { kind: 'bedrock-converse', model: 'amazon.nova-pro-v1:0', max_retries: 0 },
    });
    // Act
    const config = configOf(parseProvidersConfig(file, {}));
    // Assert
    expect(config.providers.gpt).toMatchObject({
      timeout_ms: 5000,
      dpi: 300,
      price: { per_page_usd: 0, per_input_token_usd: 0.000004, per_output_token_usd: 0 },
    });
    expect(config.providers.nova).toMatchObject({ max_retries: 0, timeout_ms: 120_000 });
    expect(config.providers.nova).not.toHaveProperty('region');
  });

  it('gives an offline provider a free price and the breaker an empty policy by default', () => {
    // Act
    const config = configOf(parseProvidersConfig(aFile(), {}));
    // Assert
    expect(config.providers['local-ocr']).toEqual({
      id: 'local-ocr',
      kind: 'local-ocr',
      price: { per_page_usd: 0, per_input_token_usd: 0, per_output_token_usd: 0 },
    });
    expect(config.breaker).toEqual({});
  });

  it.each([
    ['https://api.example.com/v1/', 'https://api.example.com/v1'],
    ['https://api.example.com/v1///', 'https://api.example.com/v1'],
    ['http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/v1'],
  ])('stores base_url %s as %s', (given, stored) => {
    // Arrange
    const file = withProviders({ gpt: remote({ base_url: given }) });
    // Act
    const config = configOf(parseProvidersConfig(file, {}));
    // Assert
    expect(config.providers.gpt).toMatchObject({ base_url: stored });
  });

  it('trims the key read from the environment', () => {
    // Arrange
    const file = withProviders({ gpt: remote({ api_key_env: 'OPENAI_API_KEY' }) });
    // Act
    const config = configOf(parseProvidersConfig(file, { OPENAI_API_KEY: '  sk-padded \n' }));
    // Assert
    expect(config.providers.gpt?.apiKey).toBe('sk-padded');
  });

  it('rejects tiers written as lists, naming the field and showing the object it must be', () => {
    // Arrange
    const file = aFile({
      tiers: {
        fast: ['local-ocr'],
        pro: { providers: ['local-ocr'], price_per_page_usd: 0.01 },
        premium: { providers: ['local-ocr'], price_per_page_usd: 0.03 },
      },
    });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toEqual([
      'tiers.fast: is an array; write it as an object: { "providers": ["local-text", "local-ocr"], "price_per_page_usd": 0.001 } (the providers tried in order, and the price per page)',
    ]);
  });

  it.each([
    [
      'a missing tier',
      { tiers: { fast: {}, pro: {} } },
      /^tiers\.premium: is missing; write it as an object: \{ "providers": \[/,
    ],
    [
      'tiers as a list',
      { tiers: [] },
      /^tiers: is an array; write it as an object with one entry per tier: \{ "fast"/,
    ],
    [
      'providers as a list',
      { providers: [] },
      /^providers: is an array; write it as an object keyed by provider id/,
    ],
    [
      'a provider as a string',
      { providers: { x: 'local-ocr' } },
      /^providers\.x: is a string; write it as an object with its kind: \{ "kind": "local-ocr" \}/,
    ],
    [
      'extraction as a list',
      { extraction: ['local-ocr'] },
      /^extraction: is an array; write it as an object: \{ "providers": \[/,
    ],
    [
      'a tier chain as a string',
      { tiers: { fast: { providers: 'local-ocr', price_per_page_usd: 0 } } },
      /^tiers\.fast\.providers: is a string; write it as a list of provider ids/,
    ],
  ])('rejects %s, naming the field and showing its shape', (_case, overrides, problem) => {
    // Arrange
    const file = aFile(overrides);
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
  });

  it('rejects a tier naming a provider that is not configured, with the path of the name', () => {
    // Arrange
    const file = aFile({
      tiers: {
        fast: { providers: ['local-ocr'], price_per_page_usd: 0.001 },
        pro: { providers: ['local-ocr', 'gpt-9'], price_per_page_usd: 0.01 },
        premium: { providers: ['local-ocr'], price_per_page_usd: 0.03 },
      },
    });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^tiers\.pro\.providers\.1: .*"gpt-9"/);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty'])(
    'rejects a tier naming %s, a property every object inherits, as not configured',
    (id) => {
      // Arrange
      const file = aFile({
        tiers: {
          fast: { providers: [id], price_per_page_usd: 0.001 },
          pro: { providers: ['local-ocr'], price_per_page_usd: 0.01 },
          premium: { providers: ['local-ocr'], price_per_page_usd: 0.03 },
        },
      });
      // Act
      const problems = problemsOf(parseProvidersConfig(file, {}));
      // Assert
      expect(problems).toEqual([expect.stringMatching(/^tiers\.fast\.providers\.0: /)]);
    },
  );

  it('rejects a key variable that is unset or blank, naming the variable but no key', () => {
    // Arrange
    const file = withProviders({
      gpt: remote({ api_key_env: 'OPENAI_API_KEY' }),
      claude: {
        kind: 'anthropic',
        model: 'claude-sonnet-4-5',
        base_url: 'https://api.anthropic.com',
        api_key_env: 'ANTHROPIC_API_KEY',
      },
      gemini: {
        kind: 'gemini',
        model: 'gemini-2.5-flash',
        base_url: 'https://generativelanguage.googleapis.com',
        api_key_env: 'GEMINI_API_KEY',
      },
    });
    const env = { OPENAI_API_KEY: ENV.OPENAI_API_KEY, ANTHROPIC_API_KEY: '   ' };
    // Act
    const problems = problemsOf(parseProvidersConfig(file, env));
    // Assert
    expect(problems).toEqual([
      expect.stringMatching(/^providers\.claude\.api_key_env: .*ANTHROPIC_API_KEY/),
      expect.stringMatching(/^providers\.gemini\.api_key_env: .*GEMINI_API_KEY/),
    ]);
    expect(problems.join('\n')).not.toContain(ENV.OPENAI_API_KEY);
  });

  it.each([
    ['the file', aFile({ extra: true }), /^\(file\): .*extra/],
    [
      'a provider',
      withProviders({ gpt: remote({ api_key: 'sk-inline-secret' }) }),
      /^providers\.gpt: .*api_key/,
    ],
    [
      'an offline provider',
      withProviders({ ocr2: { kind: 'local-ocr', model: 'tesseract' } }),
      /^providers\.ocr2: .*model/,
    ],
    [
      'a price',
      withProviders({ gpt: remote({ price: { per_image_usd: 1 } }) }),
      /^providers\.gpt\.price: .*per_image_usd/,
    ],
  ])('rejects an unknown field of %s', (_, file, problem) => {
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toEqual([expect.stringMatching(problem)]);
    expect(problems.join('\n')).not.toContain('sk-inline-secret');
  });

  it('rejects an unknown field of a tier', () => {
    // Arrange
    const file = aFile({
      tiers: {
        fast: { providers: ['local-ocr'], price_per_page_usd: 0.001, fallback: 'local-ocr' },
        pro: { providers: ['local-ocr'], price_per_page_usd: 0.01 },
        premium: { providers: ['local-ocr'], price_per_page_usd: 0.03 },
      },
    });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toEqual([expect.stringMatching(/^tiers\.fast: .*fallback/)]);
  });

  it.each(['ftp://files.example.com/v1', 'not a url', 'api.openai.com/v1', ''])(
    'rejects base_url %j',
    (baseUrl) => {
      // Arrange
      const file = withProviders({ gpt: remote({ base_url: baseUrl }) });
      // Act
      const problems = problemsOf(parseProvidersConfig(file, {}));
      // Assert
      expect(problems).toEqual([expect.stringMatching(/^providers\.gpt\.base_url: /)]);
    },
  );

  it.each(['my provider', ' gpt', '-gpt', 'gpt/4', 'x'.repeat(65)])(
    'rejects the provider id %j',
    (id) => {
      // Arrange
      const file = withProviders({ [id]: remote() });
      // Act
      const problems = problemsOf(parseProvidersConfig(file, {}));
      // Assert
      expect(problems).toContain(
        `providers.${id}: provider ids are 1 to 64 letters, digits, ".", "_", "-" or ":"`,
      );
    },
  );

  it('rejects an unknown kind and a missing model', () => {
    // Arrange
    const file = withProviders({
      odd: { kind: 'openai', model: 'gpt', base_url: 'https://api.openai.com/v1' },
      bare: { kind: 'gemini', base_url: 'https://generativelanguage.googleapis.com' },
    });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toEqual([
      expect.stringMatching(/^providers\.odd\.kind: /),
      expect.stringMatching(/^providers\.bare\.model: /),
    ]);
  });

  it('rejects an empty tier, a missing tier and a negative price', () => {
    // Arrange
    const file = aFile({
      tiers: {
        fast: { providers: [], price_per_page_usd: 0.001 },
        pro: { providers: ['local-ocr'], price_per_page_usd: -1 },
      },
    });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^tiers\.fast\.providers: /),
        expect.stringMatching(/^tiers\.pro\.price_per_page_usd: /),
        expect.stringMatching(/^tiers\.premium: /),
      ]),
    );
    expect(problems).toHaveLength(3);
  });

  it.each([null, [], 'providers'])('rejects %j as a file', (json) => {
    // Act
    const problems = problemsOf(parseProvidersConfig(json, {}));
    // Assert
    expect(problems).toEqual([expect.stringMatching(/^\(file\): /)]);
  });
});

describe('parseProvidersConfig with keys in Secrets Manager (api_key_secret)', () => {
  const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:docparse/openai-AbC123';

  it('accepts a secret name or ARN and an optional field, with no environment variable, leaving the key to be read at run time', () => {
    // Arrange
    const file = withProviders({
      gpt: remote({ api_key_secret: SECRET_ARN }),
      claude: {
        kind: 'anthropic',
        model: 'claude-sonnet-4-5',
        base_url: 'https://api.anthropic.com',
        api_key_secret: 'docparse/anthropic',
        api_key_secret_field: 'key',
      },
    });
    // Act
    const config = configOf(parseProvidersConfig(file, {}));
    // Assert
    expect(config.providers.gpt).toMatchObject({ api_key_secret: SECRET_ARN });
    expect(config.providers.claude).toMatchObject({
      api_key_secret: 'docparse/anthropic',
      api_key_secret_field: 'key',
    });
    expect(config.providers.gpt).not.toHaveProperty('apiKey');
    expect(config.providers.claude).not.toHaveProperty('apiKey');
    const claude = config.providers.claude;
    expect(claude && keySecretOf(claude)).toEqual({
      secretId: 'docparse/anthropic',
      field: 'key',
    });
    expect(usesKeySecrets(config)).toBe(true);
  });

  it("reads the AWS example's Anthropic key from the secret docparse/anthropic, not from the environment", () => {
    // Arrange
    const raw = configFile('providers.aws.json');
    // Act
    const config = configOf(
      parseProvidersConfig(raw, {
        OPENAI_API_KEY: ENV.OPENAI_API_KEY,
        GEMINI_API_KEY: ENV.GEMINI_API_KEY,
        MISTRAL_API_KEY: ENV.MISTRAL_API_KEY,
      }),
    );
    // Assert
    expect(config.providers['claude-sonnet']).toMatchObject({
      api_key_secret: 'docparse/anthropic',
    });
    expect(config.providers['claude-sonnet']).not.toHaveProperty('apiKey');
    expect(usesKeySecrets(config)).toBe(true);
    expect(usesKeySecrets(configOf(parseProvidersConfig(configFile('providers.json'), {})))).toBe(
      false,
    );
  });

  it('does not count a secret of a provider that no tier uses', () => {
    // Arrange
    const file = aFile({
      providers: {
        'local-ocr': { kind: 'local-ocr' },
        idle: remote({ api_key_secret: 'docparse/idle' }),
      },
    });
    // Act
    const config = configOf(parseProvidersConfig(file, {}));
    // Assert
    expect(usesKeySecrets(config)).toBe(false);
  });

  it("rejects api_key_env together with api_key_secret, with the path of the provider's secret", () => {
    // Arrange
    const file = withProviders({
      gpt: remote({ api_key_env: 'OPENAI_API_KEY', api_key_secret: 'docparse/openai' }),
    });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, ENV));
    // Assert
    expect(problems).toEqual([
      expect.stringMatching(
        /^providers\.gpt\.api_key_secret: .*api_key_env or api_key_secret, not both/,
      ),
    ]);
  });

  it('rejects api_key_secret_field without api_key_secret', () => {
    // Arrange
    const file = withProviders({ gpt: remote({ api_key_secret_field: 'api_key' }) });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toEqual([expect.stringMatching(/^providers\.gpt\.api_key_secret_field: /)]);
  });

  it.each([
    '',
    'my secret',
    'docparse/open:ai',
    'arn:aws:s3:::docparse-keys',
    'arn:aws:secretsmanager:eu-west-1:1234:secret:docparse/openai',
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:',
    'x'.repeat(513),
  ])('rejects the secret id %j', (secretId) => {
    // Arrange
    const file = withProviders({ gpt: remote({ api_key_secret: secretId }) });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toEqual([expect.stringMatching(/^providers\.gpt\.api_key_secret: /)]);
  });

  it('rejects api_key_secret on a provider that takes no API key', () => {
    // Arrange
    const file = withProviders({
      nova: {
        kind: 'bedrock-converse',
        model: 'amazon.nova-pro-v1:0',
        api_key_secret: 'docparse/nova',
      },
    });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toEqual([expect.stringMatching(/^providers\.nova: .*api_key_secret/)]);
  });
});

describe('needsTextLayer', () => {
  const KINDS: readonly ProviderKind[] = [
    'local-text',
    'local-ocr',
    'openai-compatible',
    'anthropic',
    'gemini',
    'mistral-ocr',
    'bedrock-converse',
    'textract',
  ];

  it('is true only for the provider reading the PDF text layer', () => {
    // Act
    const needing = KINDS.filter((kind) => needsTextLayer(kind));
    // Assert
    expect(needing).toEqual(['local-text']);
  });
});
