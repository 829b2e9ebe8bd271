import { z } from 'zod';
import { createUpload } from '../core/app/uploads.js';
import { deps, type Deps } from '../container.js';
import { httpHandler } from './http-handler.js';

/** A media type such as `application/pdf` (parameters allowed). */
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;.*)?$/;

/** True when `s` holds a C0 control character or DEL. */
function hasControlCharacters(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Body of POST /v1/uploads; optional, and every field may be null. */
export const CreateUploadBody = z.object({
  filename: z
    .string()
    .min(1)
    .max(255)
    .refine((s) => !hasControlCharacters(s), { message: 'must not contain control characters' })
    .nullable()
    .default(null),
  content_type: z
    .string()
    .max(255)
    .regex(MEDIA_TYPE, { message: 'must be a media type such as application/pdf' })
    .nullable()
    .default(null),
});

/**
 * POST /v1/uploads: creates an upload slot for files above the API's request-size limit.
 * 201 with `{ upload_id, url, fields, max_bytes, expires_at }`; the client POSTs a multipart form
 * to `url` with every entry of `fields` and then the file as the part `file`, and parses it with
 * POST /v1/parse/upload and the form field `upload_id`. 422 for an invalid body, 400 for one that
 * is not JSON.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, { body: CreateUploadBody }, async ({ body, caller, deps }) => {
    const slot = await createUpload(deps, {
      tenant: caller?.tenant ?? '',
      filename: body.filename,
      contentType: body.content_type,
    });
    return { statusCode: 201, body: slot };
  });

export const handler = createHandler(deps);
