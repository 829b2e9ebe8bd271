import { createUpload } from '../core/app/uploads.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';

/**
 * POST /v1/uploads: creates an upload slot for files above the API's request-size limit.
 * 201 with `{ upload_id, url, fields, max_bytes, expires_at }`; the client POSTs a multipart form
 * to `url` with every entry of `fields` and then the file as the part `file`, and parses it with
 * POST /v1/parse/upload and the form field `upload_id`. 422 for an invalid body, 400 for one that
 * is not JSON.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.createUpload, async ({ body, caller, deps }) => {
    const slot = await createUpload(deps, {
      tenant: caller.tenant,
      filename: body.filename,
      contentType: body.content_type,
    });
    return { statusCode: 201, body: slot };
  });

export const handler = createHandler(deps);
