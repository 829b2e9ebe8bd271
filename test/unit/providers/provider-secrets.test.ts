import { inspect } from 'node:util';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../../functions/config.js';
import { loadEngines } from '../../../functions/container.js';
import type { ObjectStore } from '../../../functions/core/ports/object-store.js';
import {
  parseProvidersConfig,
  type ProvidersConfig,
} from '../../../functions/providers/provider-config.js';
import {
  providerSecretsOnce,
  resolveProviderSecrets,
} from '../../../functions/providers/provider-secrets.js';

const secrets = mockClient(SecretsManagerClient);
const client = new SecretsManagerClient({ region: 'eu-west-1' });

/** A value no error may ever contain. */
const LEAK = 'sk-LEAK-3f9a71';

const openai = (overrides: Record<string, unknown> = {}) => ({
  kind: 'openai-compatible',
  model: 'gpt-4.1-mini',
  base_url: 'https://api.openai.com/v1',
  ...overrides,
});
const anthropic = (overrides: Record<string, unknown> = {}) => ({
  kind: 'anthropic',
  model: 'claude-sonnet-4-5',
  base_url: 'https://api.anthropic.com',
  ...overrides,
});

/** A provider file with `entries`, every tier using `used` (default: all of them) then OCR. */
function aFile(
  entries: Record<string, unknown>,
  used: readonly string[] = Object.keys(entries),
): Record<string, unknown> {
  const tier = (price: number) => ({ providers: [...used, 'ocr'], price_per_page_usd: price });
  return {
    providers: { ocr: { kind: 'local-ocr' }, ...entries },
    tiers: { fast: tier(0.001), pro: tier(0.01), premium: tier(0.03) },
  };
}

/** The configuration of {@link aFile}, failing the test when it has problems. */
function configWith(
  entries: Record<string, unknown>,
  used?: readonly string[],
  env: Record<string, string> = {},
): ProvidersConfig {
  const parsed = parseProvidersConfig(aFile(entries, used), env);
  if ('problems' in parsed) throw new Error(parsed.problems.join('\n'));
  return parsed.config;
}

/** The error `promise` rejects with, failing the test when it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** How many GetSecretValue calls were made. */
const reads = () => secrets.commandCalls(GetSecretValueCommand).length;

const notFound = () =>
  new ResourceNotFoundException({
    message: "Secrets Manager can't find the specified secret.",
    $metadata: {},
  });

beforeEach(() => {
  secrets.reset();
});

describe('resolveProviderSecrets', () => {
  it('fills the key of a provider whose secret holds the key as plain text, trimmed', async () => {
    // Arrange
    const config = configWith({ gpt: openai({ api_key_secret: 'docparse/openai' }) });
    secrets
      .on(GetSecretValueCommand, { SecretId: 'docparse/openai' })
      .resolves({ SecretString: '  sk-plain-key \n' });
    // Act
    const resolved = await resolveProviderSecrets(config, client);
    // Assert
    expect(resolved.providers.gpt?.apiKey).toBe('sk-plain-key');
    expect(resolved.tiers).toEqual(config.tiers);
    expect(config.providers.gpt).not.toHaveProperty('apiKey');
    expect(reads()).toBe(1);
  });

  it('reads the api_key field of a JSON secret', async () => {
    // Arrange
    const config = configWith({ claude: anthropic({ api_key_secret: 'docparse/anthropic' }) });
    secrets
      .on(GetSecretValueCommand)
      .resolves({ SecretString: JSON.stringify({ api_key: 'sk-ant-json', org: 'acme' }) });
    // Act
    const resolved = await resolveProviderSecrets(config, client);
    // Assert
    expect(resolved.providers.claude?.apiKey).toBe('sk-ant-json');
  });

  it('reads the field named by api_key_secret_field', async () => {
    // Arrange
    const config = configWith({
      claude: anthropic({ api_key_secret: 'docparse/keys', api_key_secret_field: 'anthropic' }),
    });
    secrets
      .on(GetSecretValueCommand)
      .resolves({ SecretString: JSON.stringify({ openai: 'sk-oa', anthropic: 'sk-ant' }) });
    // Act
    const resolved = await resolveProviderSecrets(config, client);
    // Assert
    expect(resolved.providers.claude?.apiKey).toBe('sk-ant');
  });

  it('fetches a secret shared by several providers once, each taking its own field', async () => {
    // Arrange
    const config = configWith({
      gpt: openai({ api_key_secret: 'docparse/keys', api_key_secret_field: 'openai' }),
      claude: anthropic({ api_key_secret: 'docparse/keys', api_key_secret_field: 'anthropic' }),
      gpt2: openai({
        model: 'gpt-4.1',
        api_key_secret: 'docparse/keys',
        api_key_secret_field: 'openai',
      }),
    });
    secrets
      .on(GetSecretValueCommand)
      .resolves({ SecretString: JSON.stringify({ openai: 'sk-oa', anthropic: 'sk-ant' }) });
    // Act
    const resolved = await resolveProviderSecrets(config, client);
    // Assert
    expect(reads()).toBe(1);
    expect(resolved.providers.gpt?.apiKey).toBe('sk-oa');
    expect(resolved.providers.gpt2?.apiKey).toBe('sk-oa');
    expect(resolved.providers.claude?.apiKey).toBe('sk-ant');
  });

  it('reads different secrets in parallel', async () => {
    // Arrange
    const config = configWith({
      gpt: openai({ api_key_secret: 'docparse/openai' }),
      claude: anthropic({ api_key_secret: 'docparse/anthropic' }),
    });
    let inFlight = 0;
    let most = 0;
    secrets.on(GetSecretValueCommand).callsFake(async (input: { SecretId: string }) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 10));
      inFlight -= 1;
      return { SecretString: `key-of-${input.SecretId}` };
    });
    // Act
    const resolved = await resolveProviderSecrets(config, client);
    // Assert
    expect(most).toBe(2);
    expect(resolved.providers.gpt?.apiKey).toBe('key-of-docparse/openai');
    expect(resolved.providers.claude?.apiKey).toBe('key-of-docparse/anthropic');
  });

  it("reads a secret ARN of another Region through a client of that Region, names through the function's", async () => {
    // Arrange
    const arn = 'arn:aws:secretsmanager:us-west-2:123456789012:secret:docparse/openai-AbC123';
    const config = configWith({
      gpt: openai({ api_key_secret: arn }),
      claude: anthropic({ api_key_secret: 'docparse/anthropic' }),
    });
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'sk-any' });
    // Act
    await resolveProviderSecrets(config, client);
    // Assert
    const regions = await Promise.all(
      secrets
        .commandCalls(GetSecretValueCommand)
        .map(async (call) => [
          call.args[0].input.SecretId,
          await (call.thisValue as SecretsManagerClient).config.region(),
        ]),
    );
    expect(Object.fromEntries(regions)).toEqual({
      [arn]: 'us-west-2',
      'docparse/anthropic': 'eu-west-1',
    });
  });

  it('calls nothing and keeps the configuration when no provider of a tier names a secret', async () => {
    // Arrange: an environment key, and a secret of a provider no tier uses.
    const config = configWith(
      {
        gpt: openai({ api_key_env: 'OPENAI_API_KEY' }),
        idle: anthropic({ api_key_secret: 'docparse/idle' }),
      },
      ['gpt'],
      { OPENAI_API_KEY: 'sk-env' },
    );
    // Act
    const resolved = await resolveProviderSecrets(config, client);
    // Assert
    expect(resolved).toBe(config);
    expect(reads()).toBe(0);
  });

  it('throws ConfigError naming the provider, the secret and the Region when the secret does not exist', async () => {
    // Arrange
    const config = configWith({ gpt: openai({ api_key_secret: 'docparse/openai' }) });
    secrets.on(GetSecretValueCommand).rejects(notFound());
    // Act
    const error = await rejectionOf(resolveProviderSecrets(config, client));
    // Assert
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(
      /providers\.gpt\.api_key_secret: the secret docparse\/openai does not exist in eu-west-1/,
    );
    expect(error.cause).toBeInstanceOf(ResourceNotFoundException);
  });

  it('throws ConfigError saying which permissions are needed when reading is denied', async () => {
    // Arrange
    const config = configWith({ gpt: openai({ api_key_secret: 'docparse/openai' }) });
    secrets.on(GetSecretValueCommand).rejects(
      new SecretsManagerServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        message: 'not authorized to perform secretsmanager:GetSecretValue',
        $metadata: {},
      }),
    );
    // Act
    const error = await rejectionOf(resolveProviderSecrets(config, client));
    // Assert
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/docparse\/openai cannot be read \(AccessDeniedException/);
    expect(error.message).toMatch(/secretsmanager:GetSecretValue .*kms:Decrypt/);
  });

  it('throws ConfigError pointing to api_key_env when no AWS Region is configured', async () => {
    // Arrange: a machine without AWS configuration, as a local start is.
    const config = configWith({ claude: anthropic({ api_key_secret: 'docparse/anthropic' }) });
    const regionless = new SecretsManagerClient({
      region: (): Promise<string> => Promise.reject(new Error('Region is missing')),
    });
    secrets.on(GetSecretValueCommand).rejects(new Error('Region is missing'));
    // Act
    const error = await rejectionOf(resolveProviderSecrets(config, regionless));
    // Assert
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(
      /providers\.claude\.api_key_secret: the secret docparse\/anthropic cannot be read \(Error: Region is missing\)/,
    );
    expect(error.message).toMatch(/give the provider api_key_env, the variable holding its key/);
  });

  it.each([
    ['an empty value', '', undefined, /is empty/],
    ['a blank value', ' \n\t', undefined, /is empty/],
    [
      'an empty field',
      JSON.stringify({ api_key: '  ' }),
      undefined,
      /has an empty field "api_key"/,
    ],
    [
      'an empty named field',
      JSON.stringify({ openai: '' }),
      'openai',
      /has an empty field "openai"/,
    ],
    ['a binary secret', undefined, undefined, /has no SecretString/],
  ])('throws ConfigError for %s', async (_case, value, field, problem) => {
    // Arrange
    const config = configWith({
      gpt: openai({
        api_key_secret: 'docparse/openai',
        ...(field === undefined ? {} : { api_key_secret_field: field }),
      }),
    });
    secrets
      .on(GetSecretValueCommand)
      .resolves(
        value === undefined ? { SecretBinary: new Uint8Array([1]) } : { SecretString: value },
      );
    // Act
    const error = await rejectionOf(resolveProviderSecrets(config, client));
    // Assert
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/providers\.gpt\.api_key_secret: the secret docparse\/openai /);
    expect(error.message).toMatch(problem);
  });

  it.each([
    ['malformed JSON', `{"api_key": "${LEAK}`, undefined, /is not valid JSON/],
    [
      'JSON without the api_key field',
      JSON.stringify({ token: LEAK }),
      undefined,
      /has no text field "api_key" \(name the field/,
    ],
    [
      'JSON without the named field',
      JSON.stringify({ api_key: LEAK }),
      'openai',
      /has no text field "openai"$/m,
    ],
    ['a plain key where a field is named', LEAK, 'openai', /is not valid JSON/],
    [
      'a JSON array where a field is named',
      JSON.stringify([LEAK]),
      'openai',
      /is not a JSON object/,
    ],
  ])(
    'throws ConfigError for %s without quoting the value',
    async (_case, value, field, problem) => {
      // Arrange
      const config = configWith({
        gpt: openai({
          api_key_secret: 'docparse/openai',
          ...(field === undefined ? {} : { api_key_secret_field: field }),
        }),
      });
      secrets.on(GetSecretValueCommand).resolves({ SecretString: value });
      // Act
      const error = await rejectionOf(resolveProviderSecrets(config, client));
      // Assert
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toMatch(problem);
      expect(error.cause).toBeUndefined();
      expect(inspect(error, { depth: 10 })).not.toContain(LEAK);
      expect(JSON.stringify(error)).not.toContain(LEAK);
    },
  );

  it('lists every provider whose key cannot be read in one error, and keeps no value of the secrets that could be read', async () => {
    // Arrange
    const config = configWith({
      gpt: openai({ api_key_secret: 'docparse/openai' }),
      claude: anthropic({ api_key_secret: 'docparse/anthropic' }),
      gemini: {
        kind: 'gemini',
        model: 'gemini-2.5-flash',
        base_url: 'https://generativelanguage.googleapis.com',
        api_key_secret: 'docparse/gemini',
      },
    });
    secrets.on(GetSecretValueCommand, { SecretId: 'docparse/openai' }).rejects(notFound());
    secrets
      .on(GetSecretValueCommand, { SecretId: 'docparse/anthropic' })
      .resolves({ SecretString: '' });
    secrets
      .on(GetSecretValueCommand, { SecretId: 'docparse/gemini' })
      .resolves({ SecretString: LEAK });
    // Act
    const error = await rejectionOf(resolveProviderSecrets(config, client));
    // Assert
    expect(error.message.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^ {2}providers\.gpt\.api_key_secret: .*does not exist/),
      expect.stringMatching(/^ {2}providers\.claude\.api_key_secret: .*is empty/),
    ]);
    expect(inspect(error, { depth: 10 })).not.toContain(LEAK);
  });
});

describe('providerSecretsOnce', () => {
  it('reads the secrets once for every caller and destroys its client', async () => {
    // Arrange
    const config = configWith({ gpt: openai({ api_key_secret: 'docparse/openai' }) });
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'sk-once' });
    const own = new SecretsManagerClient({ region: 'eu-west-1' });
    const destroy = vi.spyOn(own, 'destroy');
    const keys = providerSecretsOnce(config, () => own);
    // Act
    const [first, second] = await Promise.all([keys(), keys()]);
    const third = await keys();
    // Assert
    expect(reads()).toBe(1);
    expect(first.providers.gpt?.apiKey).toBe('sk-once');
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(destroy).toHaveBeenCalledTimes(1);
  });

  it('tries again on the next call after a failure', async () => {
    // Arrange
    const config = configWith({ gpt: openai({ api_key_secret: 'docparse/openai' }) });
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(notFound())
      .resolves({ SecretString: 'sk-second-try' });
    const keys = providerSecretsOnce(
      config,
      () => new SecretsManagerClient({ region: 'eu-west-1' }),
    );
    // Act
    const failure = await rejectionOf(keys());
    const resolved = await keys();
    // Assert
    expect(failure).toBeInstanceOf(ConfigError);
    expect(resolved.providers.gpt?.apiKey).toBe('sk-second-try');
    expect(reads()).toBe(2);
  });
});

describe('loadEngines with providers whose keys are in Secrets Manager', () => {
  const file = aFile({ gpt: openai({ api_key_secret: 'docparse/openai' }) });
  const config = loadConfig({ RUNTIME_MODE: 'local', PROVIDERS_JSON: JSON.stringify(file) });
  const objects = {} as ObjectStore;

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('never calls Secrets Manager in a bundle without engines', async () => {
    // Arrange
    vi.stubEnv('DOCPARSE_BUNDLE_ENGINES', 'off');
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'sk-unused' });
    // Act
    const engines = await loadEngines(config, objects);
    await engines.warmUp();
    const ids = engines.providers.ids();
    const get = () => engines.providers.get('gpt');
    await engines.close();
    // Assert
    expect(ids).toEqual(['gpt', 'ocr']);
    expect(get).toThrow(/cannot run in this function/);
    expect(reads()).toBe(0);
  });

  it('reads no secret while loading the engines, nor when a provider is only looked up', async () => {
    // Arrange
    vi.stubEnv('DOCPARSE_BUNDLE_ENGINES', 'on');
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'sk-later' });
    // Act
    const engines = await loadEngines(config, objects);
    const provider = engines.providers.get('gpt');
    await engines.close();
    // Assert
    expect(provider).toMatchObject({ id: 'gpt', model: 'gpt-4.1-mini' });
    expect(reads()).toBe(0);
  });
});
