import type { CircuitBreakers, ProviderRegistry } from '../ports/pipeline.js';
import type { CircuitBreakerState, HealthResponse, ProviderStatus } from '../domain/schemas.js';
import { hashApiKey } from './authenticate.js';
import type { AppDeps } from './app-deps.js';
import { providerModels } from './provider-models.js';

/** Service version reported by the health probe (spec §9). */
export const SERVICE_VERSION = '0.1.0';

const startedAt = Date.now();

const TIERS = ['fast', 'pro', 'premium'] as const;

/** Each configured provider's breaker state and health, in configuration order. */
async function providerStates(deps: {
  providers: ProviderRegistry;
  breakers?: CircuitBreakers | undefined;
}): Promise<Map<string, { state: CircuitBreakerState; healthy: boolean }>> {
  const ids = deps.providers.ids();
  const states = deps.breakers ? await deps.breakers.states(ids) : new Map();
  return new Map(
    ids.map((id) => [id, states.get(id) ?? { state: 'IDLE' as const, healthy: true }]),
  );
}

/**
 * Readiness (spec §4, §3): `unhealthy` when the request store does not answer, or when every
 * provider of some tier is circuit-broken (that tier's pages would get 503); `degraded` when
 * some provider's circuit is open but every tier still has one to fall over to; `healthy`
 * otherwise. Providers are listed (`{ state, healthy }` by id) only for a caller whose API key
 * is valid.
 */
export async function checkHealth(
  deps: Pick<AppDeps, 'requests' | 'apiKeys' | 'providers' | 'breakers'>,
  options: { withProviders: boolean; apiKey: string | undefined },
): Promise<HealthResponse> {
  let storeUp = true;
  try {
    await deps.requests.get('req_health_probe');
  } catch {
    storeUp = false;
  }
  const states = await providerStates(deps);
  const tierDown = TIERS.some((tier) => {
    const chain = deps.providers.chain(tier);
    return chain.length === 0 || chain.every((p) => states.get(p.id)?.healthy === false);
  });
  const someOpen = [...states.values()].some((s) => !s.healthy);
  const response: HealthResponse = {
    status: !storeUp || tierDown ? 'unhealthy' : someOpen ? 'degraded' : 'healthy',
    version: SERVICE_VERSION,
    uptime_seconds: Math.round((Date.now() - startedAt) / 100) / 10,
  };
  if (options.withProviders && options.apiKey && storeUp) {
    const caller = await deps.apiKeys.get(hashApiKey(options.apiKey.trim()));
    if (caller && caller.revokedAt === undefined) {
      response.providers = Object.fromEntries(states);
    }
  }
  return response;
}

/**
 * GET /v1/providers: every provider of some tier with its model (the `model` its pages report,
 * the name compare, `preferred_model` and `compare_provider` take) and its circuit-breaker
 * state (spec §4).
 */
export async function listProviders(
  deps: Pick<AppDeps, 'providers' | 'breakers'>,
): Promise<{ providers: ProviderStatus[] }> {
  const states = await providerStates(deps);
  const models = new Map(providerModels(deps.providers).map((p) => [p.id, p]));
  return {
    providers: [...states].map(([id, s]) => ({
      provider_id: id,
      model_id: models.get(id)?.model ?? id,
      model_ids: [models.get(id)?.model ?? id, ...(models.get(id)?.otherModels ?? [])],
      circuit_breaker_state: s.state,
      healthy: s.healthy,
    })),
  };
}
