import { listProviders } from '../core/app/check-health.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';

/**
 * GET /v1/providers: the registered providers with their circuit-breaker state
 * (`CLOSED`, `OPEN`, `HALF_OPEN`, `IDLE`) and whether they take calls. Requires an API key.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.listProviders, async ({ deps }) => ({
    statusCode: 200,
    body: await listProviders(deps),
  }));

export const handler = createHandler(deps);
