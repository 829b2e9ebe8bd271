import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../functions/config.js';
import { buildProviderRegistry } from '../../functions/providers/provider-registry.js';

/** A provider file with an offline provider and a remote one, at prices of its own. */
function aProvidersFile(overrides: Record<string, unknown> = {}) {
  return {
    providers: {
      'local-ocr': { kind: 'local-ocr' },
      gpt: {
        kind: 'openai-compatible',
        model: 'gpt-4.1-mini',
        base_url: 'https://api.openai.com/v1/',
        api_key_env: 'OPENAI_API_KEY',
      },
    },
    tiers: {
      fast: { providers: ['local-ocr'], price_per_page_usd: 0.002 },
      pro: { providers: ['gpt', 'local-ocr'], price_per_page_usd: 0.02 },
      premium: { providers: ['gpt'], price_per_page_usd: 0.2 },
    },
    breaker: { failure_threshold: 3 },
    ...overrides,
  };
}

const OPENAI_KEY = 'sk-config-test-secret';

/** The error `load` throws, asserted to be a ConfigError. */
function configErrorOf(load: () => unknown): ConfigError {
  let thrown: unknown;
  try {
    load();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  return thrown as ConfigError;
}

describe('loadConfig: the provider configuration', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'providers-config-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('uses the bundled config/providers.json when neither variable is set', () => {
    // Arrange
    const path = fileURLToPath(new URL('../../config/providers.json', import.meta.url));
    const bundled = JSON.parse(readFileSync(path, 'utf8')) as ReturnType<typeof aProvidersFile>;
    // Act
    const config = loadConfig({});
    // Assert
    expect(Object.keys(config.providers.providers)).toEqual(Object.keys(bundled.providers));
    expect(config.priceByTier).toEqual({
      fast: bundled.tiers.fast.price_per_page_usd,
      pro: bundled.tiers.pro.price_per_page_usd,
      premium: bundled.tiers.premium.price_per_page_usd,
    });
  });

  it('reads PROVIDERS_JSON: its tier prices, providers, resolved keys and breaker policy', () => {
    // Arrange
    const file = aProvidersFile();
    // Act
    const config = loadConfig({ PROVIDERS_JSON: JSON.stringify(file), OPENAI_API_KEY: OPENAI_KEY });
    // Assert
    expect(config.priceByTier).toEqual({ fast: 0.002, pro: 0.02, premium: 0.2 });
    expect(Object.keys(config.providers.providers)).toEqual(['local-ocr', 'gpt']);
    expect(config.providers.providers.gpt).toMatchObject({
      id: 'gpt',
      apiKey: OPENAI_KEY,
      base_url: 'https://api.openai.com/v1',
    });
    expect(config.providers.tiers.pro.providers).toEqual(['gpt', 'local-ocr']);
    expect(config.providers.breaker).toEqual({ failure_threshold: 3 });
  });

  it('reads the file named by PROVIDERS_FILE', () => {
    // Arrange
    const path = join(dir, 'providers.json');
    writeFileSync(path, JSON.stringify(aProvidersFile()));
    // Act
    const config = loadConfig({ PROVIDERS_FILE: path, OPENAI_API_KEY: OPENAI_KEY });
    // Assert
    expect(config.priceByTier).toEqual({ fast: 0.002, pro: 0.02, premium: 0.2 });
    expect(config.providers.providers.gpt?.apiKey).toBe(OPENAI_KEY);
  });

  it('returns a frozen configuration and price table', () => {
    // Act
    const config = loadConfig({
      PROVIDERS_JSON: JSON.stringify(aProvidersFile()),
      OPENAI_API_KEY: OPENAI_KEY,
    });
    // Assert
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.priceByTier)).toBe(true);
  });

  it('throws ConfigError when both PROVIDERS_FILE and PROVIDERS_JSON are set', () => {
    // Arrange
    const path = join(dir, 'providers.json');
    writeFileSync(path, JSON.stringify(aProvidersFile()));
    // Act
    const error = configErrorOf(() =>
      loadConfig({
        PROVIDERS_FILE: path,
        PROVIDERS_JSON: JSON.stringify(aProvidersFile()),
        OPENAI_API_KEY: OPENAI_KEY,
      }),
    );
    // Assert
    expect(error.message).toMatch(/PROVIDERS_FILE.*PROVIDERS_JSON.*not both/);
  });

  it('throws ConfigError naming a PROVIDERS_FILE that cannot be read', () => {
    // Arrange
    const path = join(dir, 'missing.json');
    // Act
    const error = configErrorOf(() => loadConfig({ PROVIDERS_FILE: path }));
    // Assert
    expect(error.message).toContain(path);
    expect(error.message).toContain('cannot be read');
  });

  it('throws ConfigError naming a PROVIDERS_FILE that is not JSON', () => {
    // Arrange
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{ "providers": ');
    // Act
    const error = configErrorOf(() => loadConfig({ PROVIDERS_FILE: path }));
    // Assert
    expect(error.message).toContain(`${path} cannot be read as JSON`);
  });

  it('throws ConfigError naming PROVIDERS_JSON when it is not JSON', () => {
    // Act
    const error = configErrorOf(() => loadConfig({ PROVIDERS_JSON: "{ providers: 'x' }" }));
    // Assert
    expect(error.message).toContain('PROVIDERS_JSON cannot be read as JSON');
  });

  it('throws ConfigError listing every problem of the configuration, with its source', () => {
    // Arrange
    const file = aProvidersFile({
      providers: {
        'local-ocr': { kind: 'local-ocr', model: 'tesseract' },
        gpt: { kind: 'openai-compatible', model: 'gpt-4.1-mini', base_url: 'ftp://example.com' },
      },
    });
    // Act
    const error = configErrorOf(() => loadConfig({ PROVIDERS_JSON: JSON.stringify(file) }));
    // Assert
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('invalid provider configuration in PROVIDERS_JSON:');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^ {2}providers\.local-ocr: .*model/),
      expect.stringMatching(/^ {2}providers\.gpt\.base_url: /),
    ]);
  });

  it('throws ConfigError naming an unset key variable of PROVIDERS_FILE, and no key', () => {
    // Arrange
    const path = join(dir, 'providers.json');
    const file = aProvidersFile();
    file.providers.gpt.api_key_env = 'TEAM_OPENAI_KEY';
    writeFileSync(path, JSON.stringify(file));
    // Act
    const error = configErrorOf(() =>
      loadConfig({ PROVIDERS_FILE: path, OPENAI_API_KEY: OPENAI_KEY }),
    );
    // Assert
    expect(error.message).toContain(`invalid provider configuration in ${path}`);
    expect(error.message).toMatch(/providers\.gpt\.api_key_env: .*TEAM_OPENAI_KEY/);
    expect(error.message).not.toContain(OPENAI_KEY);
  });

  it('treats an empty PROVIDERS_JSON as unset', () => {
    // Act
    const config = loadConfig({ PROVIDERS_JSON: '' });
    // Assert
    expect(config.providers).toEqual(loadConfig({}).providers);
  });
});

describe('loadConfig: PROVIDER_KEYS=withheld (functions that call no provider)', () => {
  it('reads the configuration without the api_key_env variables, the provider keyless', () => {
    // Act
    const config = loadConfig({
      PROVIDERS_JSON: JSON.stringify(aProvidersFile()),
      PROVIDER_KEYS: 'withheld',
    });
    // Assert: chains and prices are known, the key is not.
    expect(config.PROVIDER_KEYS).toBe('withheld');
    expect(config.providers.tiers.pro.providers).toEqual(['gpt', 'local-ocr']);
    expect(config.providers.providers.gpt).not.toHaveProperty('apiKey');
  });

  it('still requires every api_key_env variable by default', () => {
    // Act
    const error = configErrorOf(() =>
      loadConfig({ PROVIDERS_JSON: JSON.stringify(aProvidersFile()) }),
    );
    // Assert
    expect(error.message).toContain(
      'providers.gpt.api_key_env: the variable OPENAI_API_KEY is not set',
    );
  });

  it('refuses to call a provider whose key was withheld, naming the variable', () => {
    // Arrange
    const config = loadConfig({
      PROVIDERS_JSON: JSON.stringify(aProvidersFile()),
      PROVIDER_KEYS: 'withheld',
    });
    const runtime = {
      local: new Map(),
      rasterizer: {} as never,
      build: () => {
        throw new Error('never built');
      },
    };
    const registry = buildProviderRegistry(config.providers, runtime);
    // Act
    const act = () => registry.get('gpt');
    // Assert
    expect(act).toThrow(
      'provider gpt cannot run in this function: its API key (OPENAI_API_KEY) is given only to the functions that call providers',
    );
  });
});
