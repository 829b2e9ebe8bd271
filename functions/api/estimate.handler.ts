import { estimateDocument } from '../core/app/estimate.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import { documentOf } from './parse-request.js';

/**
 * POST /v1/parse/estimate: page count, tier mix, estimated cost, document type and the applied
 * preset, from ingestion and classification only (no provider is called). The upload is capped
 * at the upload size limit like a parse (413 above it).
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.estimateParse, async ({ form, file, caller, deps }) => ({
    statusCode: 200,
    body: await estimateDocument(deps, {
      tenant: caller.tenant,
      maxPages: form.max_pages,
      ...documentOf(form.upload_id, file),
    }),
  }));

export const handler = createHandler(deps);
