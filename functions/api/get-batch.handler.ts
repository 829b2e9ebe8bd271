import { getBatch } from '../core/app/batch.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';

/**
 * GET /v1/batch/{batch_id}: the batch's status, totals, `completed_documents` /
 * `total_documents` and items (see `getBatch`); 404 for unknown ids and other tenants' alike.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.getBatch, async ({ params, caller, deps }) => ({
    statusCode: 200,
    body: await getBatch(deps, caller.tenant, params.batch_id),
  }));

export const handler = createHandler(deps);
