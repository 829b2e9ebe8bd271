import type { CircuitBreakerState, HealthResponse } from '../domain/schemas.js';
import { hashApiKey } from './authenticate.js';
import type { AppDeps } from './app-deps.js';

/** Service version reported by the health probe (spec §9). */
export const SERVICE_VERSION = '0.1.0';

const startedAt = Date.now();

/**
 * Readiness: `healthy` when the request store answers and every tier has a provider,
 * `unhealthy` when the store fails or some tier has none. Providers are listed only for a caller
 * whose API key is valid.
 */
export async function checkHealth(
  deps: Pick<AppDeps, 'requests' | 'apiKeys' | 'providers'>,
  options: { withProviders: boolean; apiKey: string | undefined },
): Promise<HealthResponse> {
  let storeUp = true;
  try {
    await deps.requests.get('req_health_probe');
  } catch {
    storeUp = false;
  }
  const ids = new Set<string>();
  let everyTierServed = true;
  for (const tier of ['fast', 'pro', 'premium'] as const) {
    const chain = deps.providers.chain(tier);
    if (chain.length === 0) everyTierServed = false;
    for (const p of chain) ids.add(p.id);
  }
  const response: HealthResponse = {
    status: storeUp && everyTierServed ? 'healthy' : 'unhealthy',
    version: SERVICE_VERSION,
    uptime_seconds: Math.round((Date.now() - startedAt) / 100) / 10,
  };
  if (options.withProviders && options.apiKey && storeUp) {
    const caller = await deps.apiKeys.get(hashApiKey(options.apiKey.trim()));
    if (caller) {
      const providers: Record<string, { state: CircuitBreakerState; healthy: boolean }> = {};
      for (const id of ids) providers[id] = { state: 'CLOSED', healthy: true };
      response.providers = providers;
    }
  }
  return response;
}
