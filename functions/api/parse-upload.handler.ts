import { z } from 'zod';
import { parseUpload } from '../core/app/parse-upload.js';
import { BadRequestError } from '../core/domain/errors.js';
import { OperationMode } from '../core/domain/schemas.js';
import { deps, type Deps } from '../container.js';
import { formBoolean, formNullableBoolean, formNullableInt, httpHandler } from './http-handler.js';

/** Upload form fields (spec §4 POST /v1/parse/upload). */
export const UploadForm = z.object({
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

/** POST /v1/parse/upload: multipart upload, synchronous ParseResponse. */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(
    getDeps,
    { form: UploadForm, query: UploadQuery },
    async ({ form, query, file, caller, deps }) => {
      if (!file)
        throw new BadRequestError(
          'missing form field "file": attach the document as a file part named "file"',
        );
      const response = await parseUpload(deps, {
        tenant: caller?.tenant ?? '',
        bytes: file.content,
        filename: file.filename,
        options: { ...form, ...query },
      });
      return { statusCode: 200, body: response };
    },
  );

export const handler = createHandler(deps);
