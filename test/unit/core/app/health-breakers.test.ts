import { describe, expect, it } from 'vitest';
import { createHandler as healthHandler } from '../../../../functions/api/health.handler.js';
import { createHandler as listProvidersHandler } from '../../../../functions/api/list-providers.handler.js';
import { checkHealth, listProviders } from '../../../../functions/core/app/check-health.js';
import type { ProviderRegistry } from '../../../../functions/core/ports/pipeline.js';
import {
  HealthResponse,
  ProviderStatus,
  type Tier,
} from '../../../../functions/core/domain/schemas.js';
import { aBreakerRecord } from '../../../contract/breaker-store.contract.js';
import {
  API_KEY,
  FakePageProvider,
  T0,
  aGetEvent,
  anAppWorld,
  bodyOf,
  fakeDeps,
  lambdaContext,
  providerRegistry,
} from '../../../support/builders.js';
import type { FakeBreakerStore } from '../../../support/fake-breaker-store.js';

/** Stores an OPEN breaker for `id`, opened now (T0): it refuses calls for the whole cooldown. */
function openBreaker(store: FakeBreakerStore, id: string): void {
  store.seed(aBreakerRecord(id, { openedAt: T0.getTime(), lastUsedAt: T0.getTime() }));
}

/** Stores a HALF_OPEN breaker for `id`, with a probe admitted now. */
function halfOpenBreaker(store: FakeBreakerStore, id: string): void {
  store.seed(
    aBreakerRecord(id, {
      state: 'HALF_OPEN',
      openedAt: T0.getTime() - 60_000,
      probesInFlight: 1,
      probeStartedAt: T0.getTime(),
      lastUsedAt: T0.getTime(),
    }),
  );
}

/** Stores a CLOSED breaker for `id`, used now. */
function closedBreaker(store: FakeBreakerStore, id: string): void {
  store.seed(
    aBreakerRecord(id, {
      state: 'CLOSED',
      consecutiveFailures: 1,
      openedAt: null,
      lastUsedAt: T0.getTime(),
    }),
  );
}

/**
 * Three providers: `pdf-text` and `ocr` on fast, `vision` alone on pro, `vision` then `ocr` on
 * premium. Opening `vision` leaves pro with nothing, while fast and premium still have one.
 */
function perTierProviders(): ProviderRegistry {
  return providerRegistry(
    [
      { provider: new FakePageProvider('pdf-text'), needsTextLayer: true },
      { provider: new FakePageProvider('ocr'), needsTextLayer: false },
      { provider: new FakePageProvider('vision'), needsTextLayer: false },
    ],
    { fast: ['pdf-text', 'ocr'], pro: ['vision'], premium: ['vision', 'ocr'] },
  );
}

/** The ids of each tier's chain whose breaker reads as healthy, by tier. */
function healthyByTier(
  providers: ProviderRegistry,
  states: Awaited<ReturnType<typeof listProviders>>,
): Record<Tier, string[]> {
  const healthy = new Set(states.providers.filter((p) => p.healthy).map((p) => p.provider_id));
  const of = (tier: Tier) =>
    providers.chain(tier).flatMap((p) => (healthy.has(p.id) ? [p.id] : []));
  return { fast: of('fast'), pro: of('pro'), premium: of('premium') };
}

const ANONYMOUS = { withProviders: false, apiKey: undefined };
const WITH_PROVIDERS = { withProviders: true, apiKey: API_KEY };

describe('checkHealth with circuit breakers', () => {
  it('is healthy when no breaker is open', async () => {
    // Arrange
    const world = await anAppWorld();
    closedBreaker(world.breakerStore, 'pdf-text');
    // Act
    const health = await checkHealth(world, ANONYMOUS);
    // Assert
    expect(HealthResponse.parse(health).status).toBe('healthy');
  });

  it('is degraded when a provider is open but every tier has another one', async () => {
    // Arrange
    const world = await anAppWorld();
    openBreaker(world.breakerStore, 'pdf-text');
    // Act
    const health = await checkHealth(world, ANONYMOUS);
    // Assert
    expect(health.status).toBe('degraded');
  });

  it('is unhealthy when every provider of one tier is open, though the other tiers have one', async () => {
    // Arrange
    const world = await anAppWorld({ providers: perTierProviders() });
    openBreaker(world.breakerStore, 'vision');
    const states = await listProviders(world);
    // Act
    const health = await checkHealth(world, ANONYMOUS);
    // Assert
    expect(healthyByTier(world.providers, states)).toEqual({
      fast: ['pdf-text', 'ocr'],
      pro: [],
      premium: ['ocr'],
    });
    expect(health.status).toBe('unhealthy');
  });

  it('is unhealthy when both providers of a two-provider tier are open, though pro has its own', async () => {
    // Arrange
    const world = await anAppWorld({ providers: perTierProviders() });
    openBreaker(world.breakerStore, 'ocr');
    openBreaker(world.breakerStore, 'pdf-text');
    // Act
    const health = await checkHealth(world, ANONYMOUS);
    // Assert
    expect(health.status).toBe('unhealthy');
  });

  it('is unhealthy when every provider is open', async () => {
    // Arrange
    const world = await anAppWorld();
    openBreaker(world.breakerStore, 'pdf-text');
    openBreaker(world.breakerStore, 'ocr');
    // Act
    const health = await checkHealth(world, ANONYMOUS);
    // Assert
    expect(health.status).toBe('unhealthy');
  });

  it('counts a HALF_OPEN provider as healthy, so a tier of it alone is still up', async () => {
    // Arrange
    const world = await anAppWorld({ providers: perTierProviders() });
    halfOpenBreaker(world.breakerStore, 'vision');
    // Act
    const health = await checkHealth(world, WITH_PROVIDERS);
    // Assert
    expect(health.status).toBe('healthy');
    expect(health.providers?.vision).toEqual({ state: 'HALF_OPEN', healthy: true });
  });

  it('counts an open breaker whose cooldown is over as HALF_OPEN and healthy', async () => {
    // Arrange
    const world = await anAppWorld({ providers: perTierProviders() });
    openBreaker(world.breakerStore, 'vision');
    world.clock.advance(30_000);
    // Act
    const health = await checkHealth(world, WITH_PROVIDERS);
    // Assert
    expect(health.status).toBe('healthy');
    expect(health.providers?.vision).toEqual({ state: 'HALF_OPEN', healthy: true });
  });

  it('reports every provider healthy when the breaker store is down (breakers fail open)', async () => {
    // Arrange
    const world = await anAppWorld();
    openBreaker(world.breakerStore, 'pdf-text');
    world.breakerStore.failure = new Error('table unavailable');
    // Act
    const health = await checkHealth(world, WITH_PROVIDERS);
    // Assert
    expect(health.status).toBe('healthy');
    expect(health.providers).toEqual({
      'pdf-text': { state: 'IDLE', healthy: true },
      ocr: { state: 'IDLE', healthy: true },
    });
  });

  it('lists each provider with its breaker state for a caller with a valid key', async () => {
    // Arrange
    const world = await anAppWorld({ providers: perTierProviders() });
    openBreaker(world.breakerStore, 'pdf-text');
    closedBreaker(world.breakerStore, 'ocr');
    halfOpenBreaker(world.breakerStore, 'vision');
    // Act
    const health = await checkHealth(world, WITH_PROVIDERS);
    // Assert
    expect(health.status).toBe('degraded');
    expect(health.providers).toEqual({
      'pdf-text': { state: 'OPEN', healthy: false },
      ocr: { state: 'CLOSED', healthy: true },
      vision: { state: 'HALF_OPEN', healthy: true },
    });
  });

  it('omits the providers for a caller without a valid key, whatever their states', async () => {
    // Arrange
    const world = await anAppWorld();
    openBreaker(world.breakerStore, 'pdf-text');
    // Act
    const health = await checkHealth(world, { withProviders: true, apiKey: 'not-a-key' });
    // Assert
    expect(health.status).toBe('degraded');
    expect(health).not.toHaveProperty('providers');
  });
});

describe('listProviders', () => {
  it('gives each configured provider once, in configuration order, with its state and health', async () => {
    // Arrange
    const world = await anAppWorld({ providers: perTierProviders() });
    openBreaker(world.breakerStore, 'vision');
    closedBreaker(world.breakerStore, 'pdf-text');
    // Act
    const listed = await listProviders(world);
    // Assert
    expect(listed.providers.map((p) => ProviderStatus.parse(p))).toEqual([
      {
        provider_id: 'pdf-text',
        model_id: 'pdf-text-model',
        model_ids: ['pdf-text-model'],
        circuit_breaker_state: 'CLOSED',
        healthy: true,
      },
      {
        provider_id: 'ocr',
        model_id: 'ocr-model',
        model_ids: ['ocr-model'],
        circuit_breaker_state: 'IDLE',
        healthy: true,
      },
      {
        provider_id: 'vision',
        model_id: 'vision-model',
        model_ids: ['vision-model'],
        circuit_breaker_state: 'OPEN',
        healthy: false,
      },
    ]);
  });

  it('reports every provider IDLE and healthy without breakers', async () => {
    // Arrange
    const { providers } = await anAppWorld();
    // Act
    const listed = await listProviders({ providers });
    // Assert
    expect(listed.providers).toEqual([
      {
        provider_id: 'pdf-text',
        model_id: 'pdf-text-model',
        model_ids: ['pdf-text-model'],
        circuit_breaker_state: 'IDLE',
        healthy: true,
      },
      {
        provider_id: 'ocr',
        model_id: 'ocr-model',
        model_ids: ['ocr-model'],
        circuit_breaker_state: 'IDLE',
        healthy: true,
      },
    ]);
  });
});

describe('GET /v1/providers', () => {
  const list = (deps: Awaited<ReturnType<typeof fakeDeps>>, apiKey?: string | null) =>
    listProvidersHandler(() => Promise.resolve(deps))(
      aGetEvent('/v1/providers', apiKey === undefined ? {} : { apiKey }),
      lambdaContext('list-providers'),
    );

  it('fails with 401 without an API key', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const result = await list(deps, null);
    // Assert
    expect(result.statusCode).toBe(401);
  });

  it('fails with 401 with an unknown API key', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const result = await list(deps, 'not-a-registered-key');
    // Assert
    expect(result.statusCode).toBe(401);
  });

  it('answers 200 with the providers and their breaker states', async () => {
    // Arrange
    const deps = await fakeDeps();
    openBreaker(deps.breakerStore, 'ocr');
    // Act
    const result = await list(deps);
    // Assert
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({
      providers: [
        {
          provider_id: 'pdf-text',
          model_id: 'pdf-text-model',
          model_ids: ['pdf-text-model'],
          circuit_breaker_state: 'IDLE',
          healthy: true,
        },
        {
          provider_id: 'ocr',
          model_id: 'ocr-model',
          model_ids: ['ocr-model'],
          circuit_breaker_state: 'OPEN',
          healthy: false,
        },
      ],
    });
  });
});

describe('GET /v1/health with circuit breakers', () => {
  const health = (deps: Awaited<ReturnType<typeof fakeDeps>>) =>
    healthHandler(() => Promise.resolve(deps))(
      aGetEvent('/v1/health', { apiKey: API_KEY }),
      lambdaContext('health'),
    );

  it('answers 200 when degraded, listing the open provider', async () => {
    // Arrange
    const deps = await fakeDeps();
    openBreaker(deps.breakerStore, 'pdf-text');
    // Act
    const result = await health(deps);
    // Assert
    expect(result.statusCode).toBe(200);
    expect(HealthResponse.parse(bodyOf(result))).toMatchObject({
      status: 'degraded',
      providers: { 'pdf-text': { state: 'OPEN', healthy: false } },
    });
  });

  it('fails with 503 when every provider of a tier is open', async () => {
    // Arrange
    const deps = await fakeDeps({ providers: perTierProviders() });
    openBreaker(deps.breakerStore, 'vision');
    // Act
    const result = await health(deps);
    // Assert
    expect(result.statusCode).toBe(503);
    expect(HealthResponse.parse(bodyOf(result))).toMatchObject({
      status: 'unhealthy',
      providers: { vision: { state: 'OPEN', healthy: false } },
    });
  });
});
