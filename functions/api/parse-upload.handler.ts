import { z } from 'zod';
import { parseUpload } from '../core/app/parse-upload.js';
import { UPLOAD_ID_PATTERN } from '../core/app/uploads.js';
import { BadRequestError } from '../core/domain/errors.js';
import { OperationMode } from '../core/domain/schemas.js';
import { deps, type Deps } from '../container.js';
import { formBoolean, formNullableBoolean, formNullableInt, httpHandler } from './http-handler.js';

/** An upload slot's id, as returned by POST /v1/uploads. */
export const UploadId = z.string().trim().regex(UPLOAD_ID_PATTERN, {
  message: 'must be an upload_id returned by POST /v1/uploads (upl_ and letters or digits)',
});

/**
 * Upload form fields (spec §4 POST /v1/parse/upload), plus `upload_id`: a file sent beforehand
 * to an upload slot, parsed by reference instead of a `file` part.
 */
export const UploadForm = z.object({
  upload_id: UploadId.optional(),
  operation_mode: OperationMode.default('ocr'),
  maintain_format: formBoolean.default(true),
  max_pages: formNullableInt(1, 100_000).default(null),
  enable_verification: formNullableBoolean.default(null),
  dpi: formNullableInt(36, 600).default(null),
});

/** Upload query parameters (all boolean, default false). */
export const UploadQuery = z.object({
  legacy_events: formBoolean.default(false),
  include_warnings: formBoolean.default(false),
  extraction_strict: formBoolean.default(false),
});

/**
 * POST /v1/parse/upload: multipart upload, synchronous ParseResponse. The document is either the
 * `file` part or, for files above the gateway's limit, the `upload_id` of an upload slot
 * (POST /v1/uploads) the file was sent to; exactly one of the two (400 otherwise). An unknown,
 * unsent or foreign `upload_id` answers 404.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(
    getDeps,
    { form: UploadForm, query: UploadQuery },
    async ({ form, query, file, caller, deps }) => {
      const { upload_id: uploadId, ...fields } = form;
      if (file && uploadId !== undefined) {
        throw new BadRequestError(
          'send either a "file" part or an "upload_id" field, not both: upload_id parses a file sent earlier to POST /v1/uploads',
        );
      }
      const document =
        uploadId !== undefined
          ? { uploadId }
          : file && { bytes: file.content, filename: file.filename };
      if (!document)
        throw new BadRequestError(
          'missing form field "file": attach the document as a file part named "file", or send the "upload_id" of a file uploaded through POST /v1/uploads',
        );
      const response = await parseUpload(deps, {
        tenant: caller?.tenant ?? '',
        options: { ...fields, ...query },
        ...document,
      });
      return { statusCode: 200, body: response };
    },
  );

export const handler = createHandler(deps);
