import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../functions/config.js';
import { ProviderStatus } from '../../../functions/core/domain/schemas.js';
import { startTestService } from '../../support/local-service.js';

/**
 * The provider configurations docs/providers.md gives to copy start the local service as
 * written, with the environment it names (dummy keys: nothing is called), and GET /v1/providers
 * lists the providers of their tiers.
 */

const KEY = 'key-provider-examples-1';

/** The variables the examples name with api_key_env, set to dummies. */
const DUMMY_KEYS = {
  OPENAI_API_KEY: 'sk-dummy',
  ANTHROPIC_API_KEY: 'sk-ant-dummy',
  GEMINI_API_KEY: 'gemini-dummy',
  MISTRAL_API_KEY: 'mistral-dummy',
};

interface ExampleFile {
  providers: Record<string, { kind: string; model?: string }>;
  tiers: Record<'fast' | 'pro' | 'premium', { providers: string[] }>;
}

function example(name: string): { path: string; file: ExampleFile } {
  const path = fileURLToPath(new URL(`../../../config/${name}`, import.meta.url));
  return { path, file: JSON.parse(readFileSync(path, 'utf8')) as ExampleFile };
}

describe('the provider examples of docs/providers.md', () => {
  it.each([
    ['providers.openai-compatible.json', {}],
    ['providers.anthropic.json', { ANTHROPIC_API_KEY: DUMMY_KEYS.ANTHROPIC_API_KEY }],
    ['providers.example.json', DUMMY_KEYS],
  ])('starts the service with config/%s and lists its providers', async (name, keys) => {
    // Arrange
    const { path, file } = example(name);
    const service = await startTestService('provider-examples', {
      API_KEYS: `${KEY}=examples:pro`,
      PROVIDERS_FILE: path,
      ...keys,
    });
    try {
      // Act
      const res = await fetch(`${service.url}/v1/providers`, { headers: { 'x-api-key': KEY } });
      // Assert
      expect(res.status).toBe(200);
      const listed = (await res.json()) as { providers: unknown[] };
      const providers = listed.providers.map((p) => ProviderStatus.parse(p));
      const tierIds = [...new Set(Object.values(file.tiers).flatMap((tier) => tier.providers))];
      expect(providers.map((p) => p.provider_id)).toEqual(tierIds);
      for (const provider of providers) {
        const entry = file.providers[provider.provider_id];
        if (entry?.model !== undefined) expect(provider.model_id).toBe(entry.model);
        expect(provider.circuit_breaker_state).not.toBe('OPEN');
      }
      expect(providers.some((p) => file.providers[p.provider_id]?.model !== undefined)).toBe(true);
    } finally {
      await service.close();
    }
  });

  it('fails to start with the full example when a key it names is not set, naming the variable', () => {
    // Arrange
    const { path } = example('providers.example.json');
    const others = { ...DUMMY_KEYS, ANTHROPIC_API_KEY: undefined };
    // Act
    const start = () => loadConfig({ RUNTIME_MODE: 'local', PROVIDERS_FILE: path, ...others });
    // Assert
    expect(start).toThrow(
      /providers\.claude-sonnet\.api_key_env: the variable ANTHROPIC_API_KEY is not set/,
    );
  });
});
