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

/** What each request field means, as the API reference shows it. */
const FIELDS = {
  upload_id: 'An upload slot filled beforehand (POST /v1/uploads), in place of the `file` part.',
  operation_mode:
    '`ocr`: Markdown per page; `extract`: JSON filled from `extraction_schema`; `hybrid`: both. Default `ocr`.',
  maintain_format:
    'Keep the layout in the Markdown (headings, tables, lists, reading order). Default true.',
  max_pages: 'Parse at most this many pages from the start (1 to 100000); default all.',
  enable_verification:
    "Verify each page against independent evidence and re-route low-confidence pages one tier up; default: the document type's preset.",
  dpi: "Resolution of page images for OCR and vision providers (36 to 600); default: the document type's preset.",
  extraction_schema:
    'JSON Schema (2020-12, or draft-07 by `$schema`) of the object to extract; required for `extract` and `hybrid`.',
  legacy_events:
    'Streaming: leave out the `node.started` / `node.completed` events. Default false.',
  include_warnings: "Add each page's post-processing `warnings`. Default false.",
  extraction_strict:
    'Answer 422 with the list of failures when the extracted object fails its schema. Default false.',
  file_url: "The document's URL: https on port 443 at a public address; at most 3 redirects.",
  webhook_url:
    'Where to POST the end of the parse as well (Standard Webhooks signature, once); the answer is the same. `Prefer: respond-async` asks for a 202 at once instead.',
  compare_provider:
    'Also parse every page with this provider (its id, or its model as GET /v1/providers lists it) and add a `comparison` to each page.',
  preferred_model:
    "Send pages to this provider (its model as GET /v1/providers lists it, or its id) first; the tier's chain follows on failure.",
  providers:
    'JSON text: 1 to 4 configured providers as GET /v1/providers lists them (`provider_id`, `model_id`), e.g. `[{"id": "local-text", "model": "pdf-text-layout-1"}]`; `model` may be left out. A pair that is not configured is 422, listing the valid pairs.',
  model: 'The structure extractor; default `docparse-structured-1` (offline engines).',
  priority:
    'How fast the documents are released: `high` all at once, `normal` 10 every 2 s, `low` 10 every 30 s.',
  documents: '1 to 100 ParseURLRequests, each with `file_url` or `upload_id`.',
  invalidate_cache:
    'Parse afresh even when the result cache holds this document with these options, and replace the entry (as the header `Cache-Control: no-cache` does). Default false.',
} as const;

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
  upload_id: UploadId.optional().describe(FIELDS.upload_id),
  operation_mode: OperationMode.default('ocr').describe(FIELDS.operation_mode),
  maintain_format: formBoolean.default(true).describe(FIELDS.maintain_format),
  max_pages: formNullableInt(1, 100_000).default(null).describe(FIELDS.max_pages),
  enable_verification: formNullableBoolean.default(null).describe(FIELDS.enable_verification),
  dpi: formNullableInt(36, 600).default(null).describe(FIELDS.dpi),
  extraction_schema: ExtractionSchemaText.describe(FIELDS.extraction_schema),
  invalidate_cache: formBoolean.default(false).describe(FIELDS.invalidate_cache),
});

/** Upload query parameters (all boolean, default false). */
export const UploadQuery = z.object({
  legacy_events: formBoolean.default(false).describe(FIELDS.legacy_events),
  include_warnings: formBoolean.default(false).describe(FIELDS.include_warnings),
  extraction_strict: formBoolean.default(false).describe(FIELDS.extraction_strict),
});

/** A URL field (`file_url`, `webhook_url`); its address rules are checked where it is used. */
const UrlText = z.string().trim().min(1).max(2048);

/** A field naming a configured provider by id or model (`preferred_model`, `compare_provider`). */
const ProviderOrModel = z.string().trim().min(1).max(200).nullable().default(null);

/** Path parameters of the routes under `/v1/parse/{request_id}`. */
export const RequestIdParams = z.object({ request_id: z.string().min(1).max(200) });

/** Query of GET /v1/parse/{request_id} and the resume. */
export const ResultQuery = z.object({ include_warnings: formBoolean.default(false) });

/** Path parameters of GET /docs/{asset} (none for GET /docs). */
export const DocsAssetParams = z.object({ asset: z.string().min(1).max(100).optional() });

/** Path parameters of GET /v1/batch/{batch_id}. */
export const BatchIdParams = z.object({ batch_id: z.string().min(1).max(200) });

/**
 * ParseURLRequest (spec §4 POST /v1/parse). `extraction_schema` must be a JSON object when given
 * (checked against `operation_mode` before the download). `preferred_model` and
 * `compare_provider` name a configured provider by id or model (`resolveProviderModel`; 422
 * otherwise).
 */
export const ParseUrlRequest = z.strictObject({
  file_url: UrlText.describe(FIELDS.file_url),
  operation_mode: OperationMode.default('ocr').describe(FIELDS.operation_mode),
  extraction_schema: z
    .record(z.string(), z.unknown())
    .nullable()
    .default(null)
    .describe(FIELDS.extraction_schema),
  maintain_format: z.boolean().default(true).describe(FIELDS.maintain_format),
  webhook_url: UrlText.nullable().default(null).describe(FIELDS.webhook_url),
  max_pages: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .nullable()
    .default(null)
    .describe(FIELDS.max_pages),
  compare_provider: ProviderOrModel.describe(FIELDS.compare_provider),
  preferred_model: ProviderOrModel.describe(FIELDS.preferred_model),
  enable_verification: z.boolean().nullable().default(null).describe(FIELDS.enable_verification),
  dpi: z.number().int().min(36).max(600).nullable().default(null).describe(FIELDS.dpi),
  invalidate_cache: z.boolean().default(false).describe(FIELDS.invalidate_cache),
});

/**
 * One document of a batch: a ParseURLRequest without a webhook of its own (the batch has one).
 * Instead of `file_url`, a document may name an upload slot filled beforehand (`upload_id` from
 * POST /v1/uploads), so that local files can be batched too; exactly one of the two is required.
 */
export const BatchDocument = ParseUrlRequest.extend({
  file_url: ParseUrlRequest.shape.file_url.optional().describe(FIELDS.file_url),
  upload_id: UploadId.optional().describe(FIELDS.upload_id),
})
  .refine((document) => (document.file_url === undefined) !== (document.upload_id === undefined), {
    path: ['file_url'],
    message: 'give exactly one of file_url (a URL to download) and upload_id (an upload slot)',
  })
  .refine((document) => !document.invalidate_cache, {
    path: ['invalidate_cache'],
    message:
      'a document of a batch is always looked up in the result cache: to parse it afresh, send it to POST /v1/parse with invalidate_cache, which replaces the entry',
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
    .max(MAX_BATCH_DOCUMENTS, { error: documentsMessage })
    .describe(FIELDS.documents),
  webhook_url: UrlText.nullable()
    .default(null)
    .describe('Where to POST one `batch.completed` event when every document has ended.'),
  priority: BatchPriority.default('normal').describe(FIELDS.priority),
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
  upload_id: UploadId.optional().describe(FIELDS.upload_id),
  max_pages: formNullableInt(1, 100_000).default(null).describe(FIELDS.max_pages),
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
  upload_id: UploadId.optional().describe(FIELDS.upload_id),
  providers: ProvidersText.describe(FIELDS.providers),
  operation_mode: OperationMode.default('ocr').describe(FIELDS.operation_mode),
  max_pages: formNullableInt(1, 100_000).default(null).describe(FIELDS.max_pages),
  extraction_schema: ExtractionSchemaText.describe(FIELDS.extraction_schema),
});

/**
 * Form fields of POST /v1/parse/structured (spec §4): `max_pages`, `model` (default
 * {@link DEFAULT_STRUCTURED_MODEL}), and `upload_id` as on the upload form.
 */
export const StructuredForm = z.object({
  upload_id: UploadId.optional().describe(FIELDS.upload_id),
  max_pages: formNullableInt(1, 100_000).default(null).describe(FIELDS.max_pages),
  model: z.string().trim().min(1).max(200).default(DEFAULT_STRUCTURED_MODEL).describe(FIELDS.model),
});
