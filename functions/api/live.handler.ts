import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';

/** GET /v1/live: always 200 while the process is up (no auth, no dependencies touched). */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.live, () =>
    Promise.resolve({ statusCode: 200, body: { status: 'live' } }),
  );

export const handler = createHandler(deps);
