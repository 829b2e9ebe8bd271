import { z } from 'zod';
import { ComparedProviders } from '../core/app/compare.js';
import { DEFAULT_STRUCTURED_MODEL } from '../core/app/structured.js';
import { UPLOAD_ID_PATTERN } from '../core/app/uploads.js';
import { BatchPriority, MAX_BATCH_DOCUMENTS } from '../core/domain/batch.js';
import { OperationMode } from '../core/domain/schemas.js';

/*
 * The request schemas of every route: path parameters, query strings, multipart form fields and
 * JSON bodies. The handlers validate with them and the OpenAPI document is generated from them
 * (see openapi.ts), so the two cannot drift apart. Forms and query strings arrive as strings:
 * their schemas take strings and transform them.
 */

/** Form and query booleans: true/false, 1/0, yes/no, on/off (case-insensitive). */
export const formBoolean = z
  .string()
  .trim()
  .toLowerCase()
  .refine((s) => ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'].includes(s), {
    message: 'must be a boolean (true or false)',
  })
  .transform((s) => ['true', '1', 'yes', 'on'].includes(s));

/** Form integers where an empty value or `null` means null. */
export const formNullableInt = (min: number, max: number) =>
  z
    .string()
    .trim()
    .transform((s, ctx) => {
      if (s === '' || s.toLowerCase() === 'null') return null;
      if (!/^[+-]?\d+$/.test(s)) {
        ctx.addIssue({ code: 'custom', message: 'must be an integer or null' });
        return z.NEVER;
      }
      const n = Number(s);
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });

/** Form booleans where an empty value or `null` means null (auto). */
export const formNullableBoolean = z
  .string()
  .trim()
  .toLowerCase()
  .transform((s, ctx) => {
    if (s === '' || s === 'null' || s === 'auto') return null;
    const parsed = formBoolean.safeParse(s);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: 'must be a boolean (true or false) or null' });
      return z.NEVER;
    }
    return parsed.data;
  });

/** An upload slot's id, as returned by POST /v1/uploads. */
export const UploadId = z.string().trim().regex(UPLOAD_ID_PATTERN, {
  message: 'must be an upload_id returned by POST /v1/uploads (upl_ and letters or digits)',
});

/**
 * `extraction_schema` as a form field (spec §4 stream form; the upload form takes it too): JSON
 * Schema text, or empty / `null` for none. Must be JSON; the schema itself is checked with the
 * operation mode before anything is stored (`checkedExtractionSchema`).
 */
export const ExtractionSchemaText = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const trimmed = text?.trim() ?? '';
    if (trimmed === '' || trimmed === 'null') return null;
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON Schema object (JSON text)' });
      return z.NEVER;
    }
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
  extraction_schema: ExtractionSchemaText,
});

/** Upload query parameters (all boolean, default false). */
export const UploadQuery = z.object({
  legacy_events: formBoolean.default(false),
  include_warnings: formBoolean.default(false),
  extraction_strict: formBoolean.default(false),
});

/** Path parameters of the routes under `/v1/parse/{request_id}`. */
export const RequestIdParams = z.object({ request_id: z.string().min(1).max(200) });

/** Query of GET /v1/parse/{request_id} and the resume. */
export const ResultQuery = z.object({ include_warnings: formBoolean.default(false) });

/** Path parameters of GET /v1/batch/{batch_id}. */
export const BatchIdParams = z.object({ batch_id: z.string().min(1).max(200) });

/**
 * ParseURLRequest (spec §4 POST /v1/parse). `extraction_schema` must be a JSON object when given
 * (checked against `operation_mode` before the download). `preferred_model` and
 * `compare_provider` name a configured provider by id or model (422 otherwise).
 */
export const ParseUrlRequest = z.strictObject({
  file_url: z.string().trim().min(1).max(2048),
  operation_mode: OperationMode.default('ocr'),
  extraction_schema: z.record(z.string(), z.unknown()).nullable().default(null),
  maintain_format: z.boolean().default(true),
  webhook_url: z.string().trim().min(1).max(2048).nullable().default(null),
  max_pages: z.number().int().min(1).max(100_000).nullable().default(null),
  compare_provider: z.string().trim().min(1).max(200).nullable().default(null),
  preferred_model: z.string().trim().min(1).max(200).nullable().default(null),
  enable_verification: z.boolean().nullable().default(null),
  dpi: z.number().int().min(36).max(600).nullable().default(null),
});

/**
 * One document of a batch: a ParseURLRequest without a webhook of its own (the batch has one).
 * Instead of `file_url`, a document may name an upload slot filled beforehand (`upload_id` from
 * POST /v1/uploads), so that local files can be batched too; exactly one of the two is required.
 */
export const BatchDocument = ParseUrlRequest.extend({
  file_url: ParseUrlRequest.shape.file_url.optional(),
  upload_id: UploadId.optional(),
})
  .refine((document) => (document.file_url === undefined) !== (document.upload_id === undefined), {
    path: ['file_url'],
    message: 'give exactly one of file_url (a URL to download) and upload_id (an upload slot)',
  })
  .refine((document) => document.webhook_url === null, {
    path: ['webhook_url'],
    message:
      'a document of a batch cannot have its own webhook_url: set webhook_url on the batch, which is called once when every document has ended',
  });

const documentsMessage = `send 1 to ${MAX_BATCH_DOCUMENTS} documents`;

/** POST /v1/parse/batch body (spec §4). */
export const ParseBatchRequest = z.strictObject({
  documents: z
    .array(BatchDocument)
    .min(1, { error: documentsMessage })
    .max(MAX_BATCH_DOCUMENTS, { error: documentsMessage }),
  webhook_url: z.string().trim().min(1).max(2048).nullable().default(null),
  priority: BatchPriority.default('normal'),
});

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

/** The estimate form (spec §4): the document and `max_pages`. */
export const EstimateForm = z.object({
  upload_id: UploadId.optional(),
  max_pages: formNullableInt(1, 100_000).default(null),
});

/** `providers` of the compare form: JSON text of an array of 1 to 4 `{id, model}`. */
const ProvidersText = z.string().transform((text, ctx) => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a JSON array of {"id", "model"} objects' });
    return z.NEVER;
  }
  const parsed = ComparedProviders.safeParse(value);
  if (parsed.success) return parsed.data;
  ctx.addIssue({
    code: 'custom',
    message: `must be a JSON array of 1 to 4 {"id", "model"} objects: ${z.prettifyError(parsed.error)}`,
  });
  return z.NEVER;
});

/** The compare form (spec §4), plus `upload_id` and `extraction_schema` as on the upload form. */
export const CompareForm = z.object({
  upload_id: UploadId.optional(),
  providers: ProvidersText,
  operation_mode: OperationMode.default('ocr'),
  max_pages: formNullableInt(1, 100_000).default(null),
  extraction_schema: ExtractionSchemaText,
});

/**
 * Form fields of POST /v1/parse/structured (spec §4): `max_pages`, `model` (default
 * {@link DEFAULT_STRUCTURED_MODEL}), and `upload_id` as on the upload form.
 */
export const StructuredForm = z.object({
  upload_id: UploadId.optional(),
  max_pages: formNullableInt(1, 100_000).default(null),
  model: z.string().trim().min(1).max(200).default(DEFAULT_STRUCTURED_MODEL),
});
