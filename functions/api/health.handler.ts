import { checkHealth } from '../core/app/check-health.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';

/**
 * GET /v1/health and /health: readiness. 200 for healthy or degraded, 503 for unhealthy. The
 * `providers` object is included only for a caller with a valid API key on `/v1/health`.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.health, async ({ headers, deps, path }) => {
    const health = await checkHealth(deps, {
      withProviders: path.startsWith('/v1/') && headers['x-api-key'] !== undefined,
      apiKey: headers['x-api-key'],
    });
    return { statusCode: health.status === 'unhealthy' ? 503 : 200, body: health };
  });

export const handler = createHandler(deps);
