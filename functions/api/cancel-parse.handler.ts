import { cancelParse } from '../core/app/parse-control.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';

/**
 * POST /v1/parse/{request_id}/cancel: stops the caller's in-flight parse, deletes its
 * checkpoints, gives the pages it never parsed back to the tenant's daily quota (pages parsed or
 * being parsed stay counted), and answers 202 `{request_id, status: "cancelled", detail}`. 404
 * for unknown ids, other tenants' ids, and parses that are not in flight (completed, failed,
 * cancelled).
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.cancelParse, async ({ params, caller, deps }) => ({
    statusCode: 202,
    body: await cancelParse(deps, caller.tenant, params.request_id),
  }));

export const handler = createHandler(deps);
