import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import {
  parseProvidersConfig,
  supportsExtraction,
  usedProviderIds,
  usesKeySecrets,
  type ProviderKind,
  type ProvidersConfig,
} from '../../../functions/providers/provider-config.js';
import { resolveProviderSecrets } from '../../../functions/providers/provider-secrets.js';

/** A file with an offline provider on every tier, `entries` beside it, and `extraction`. */
function aFile(entries: Record<string, unknown>, extraction?: unknown): Record<string, unknown> {
  const tier = (price: number) => ({ providers: ['local-ocr'], price_per_page_usd: price });
  return {
    providers: { 'local-ocr': { kind: 'local-ocr' }, ...entries },
    tiers: { fast: tier(0.001), pro: tier(0.01), premium: tier(0.03) },
    ...(extraction === undefined ? {} : { extraction }),
  };
}

const gpt = { kind: 'openai-compatible', model: 'gpt-4.1-mini', base_url: 'https://o.example.com' };
const claude = {
  kind: 'anthropic',
  model: 'claude-sonnet-4-5',
  base_url: 'https://api.anthropic.com',
  api_key_secret: 'docparse/anthropic',
};

function configOf(parsed: ReturnType<typeof parseProvidersConfig>): ProvidersConfig {
  if ('problems' in parsed) throw new Error(`unexpected problems:\n${parsed.problems.join('\n')}`);
  return parsed.config;
}

function problemsOf(parsed: ReturnType<typeof parseProvidersConfig>): string[] {
  if ('config' in parsed) throw new Error('the configuration was accepted');
  return parsed.problems;
}

describe('the extraction chain of the provider configuration', () => {
  it('is empty by default: only the offline extractor is used', () => {
    // Act
    const config = configOf(parseProvidersConfig(aFile({ gpt }), {}));
    // Assert
    expect(config.extraction).toEqual([]);
  });

  it('keeps the configured providers in order, whether or not a tier uses them', () => {
    // Arrange
    const file = aFile({ gpt, claude }, { providers: ['claude', 'gpt'] });
    // Act
    const config = configOf(parseProvidersConfig(file, {}));
    // Assert
    expect(config.extraction).toEqual(['claude', 'gpt']);
  });

  it('accepts the example file, whose extraction providers exist and can extract', () => {
    // Arrange
    const path = fileURLToPath(new URL('../../../config/providers.example.json', import.meta.url));
    const raw = JSON.parse(readFileSync(path, 'utf8')) as { extraction?: { providers: string[] } };
    const env = {
      OPENAI_API_KEY: 'k1',
      ANTHROPIC_API_KEY: 'k2',
      GEMINI_API_KEY: 'k3',
      MISTRAL_API_KEY: 'k4',
    };
    // Act
    const config = configOf(parseProvidersConfig(raw, env));
    // Assert
    expect(raw.extraction?.providers.length).toBeGreaterThan(0);
    expect(config.extraction).toEqual(raw.extraction?.providers);
  });

  it('rejects an id that is not in providers', () => {
    // Arrange
    const file = aFile({ gpt }, { providers: ['gpt', 'missing'] });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toEqual([
      'extraction.providers.1: extraction names provider "missing", which is not in "providers"',
    ]);
  });

  it.each([
    ['local-ocr', { kind: 'local-ocr' }],
    ['local-text', { kind: 'local-text' }],
    ['textract', { kind: 'textract', model: 'textract-analyze-layout' }],
  ])('rejects a provider of kind %s, which cannot fill a schema', (kind, entry) => {
    // Arrange
    const file = aFile({ subject: entry }, { providers: ['subject'] });
    // Act
    const problems = problemsOf(parseProvidersConfig(file, {}));
    // Assert
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      new RegExp(
        `^extraction\\.providers\\.0: provider "subject" is of kind ${kind}, which cannot fill an extraction schema; use one of openai-compatible, anthropic`,
      ),
    );
  });

  it('rejects an id named twice, and unknown keys of extraction', () => {
    // Arrange
    const twice = aFile({ gpt }, { providers: ['gpt', 'gpt'] });
    const unknownKey = aFile({ gpt }, { providers: ['gpt'], fallback: 'offline' });
    // Act
    const twiceProblems = problemsOf(parseProvidersConfig(twice, {}));
    const keyProblems = problemsOf(parseProvidersConfig(unknownKey, {}));
    // Assert
    expect(twiceProblems).toEqual([
      'extraction.providers.1: extraction names provider "gpt" twice; each is tried once',
    ]);
    expect(keyProblems).toHaveLength(1);
    expect(keyProblems[0]).toMatch(/^extraction: .*fallback/);
  });

  it('counts the extraction providers as used, so that their keys are read from Secrets Manager', () => {
    // Arrange
    const config = configOf(
      parseProvidersConfig(aFile({ gpt, claude }, { providers: ['claude'] }), {}),
    );
    const withoutExtraction = { ...config, extraction: [] };
    // Act / Assert
    expect(usedProviderIds(config)).toEqual(['local-ocr', 'claude']);
    expect(usesKeySecrets(config)).toBe(true);
    expect(usesKeySecrets(withoutExtraction)).toBe(false);
  });

  it('has the key of a provider used only for extraction read from Secrets Manager', async () => {
    // Arrange
    const secrets = mockClient(SecretsManagerClient);
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'sk-ant-from-secret' });
    const config = configOf(parseProvidersConfig(aFile({ claude }, { providers: ['claude'] }), {}));
    // Act
    const resolved = await resolveProviderSecrets(
      config,
      new SecretsManagerClient({ region: 'eu-west-1' }),
    );
    secrets.restore();
    // Assert
    expect(resolved.providers.claude?.apiKey).toBe('sk-ant-from-secret');
    expect(resolved.extraction).toEqual(['claude']);
  });
});

describe('supportsExtraction', () => {
  it.each<[ProviderKind, boolean]>([
    ['openai-compatible', true],
    ['anthropic', true],
    ['gemini', true],
    ['bedrock-converse', true],
    ['mistral-ocr', true],
    ['textract', false],
    ['local-text', false],
    ['local-ocr', false],
  ])('says %s → %s', (kind, expected) => {
    // Act / Assert
    expect(supportsExtraction(kind)).toBe(expected);
  });
});
