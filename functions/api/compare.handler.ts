import { z } from 'zod';
import { ComparedProviders, compareProviders } from '../core/app/compare.js';
import { OperationMode } from '../core/domain/schemas.js';
import { deps, type Deps } from '../container.js';
import { formNullableInt, httpHandler } from './http-handler.js';
import {
  documentOf,
  ExtractionSchemaText,
  LONG_PARSE,
  replyWhenDone,
  UploadId,
  type LongParseTiming,
} from './parse-upload.handler.js';

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
const CompareForm = z.object({
  upload_id: UploadId.optional(),
  providers: ProvidersText,
  operation_mode: OperationMode.default('ocr'),
  max_pages: formNullableInt(1, 100_000).default(null),
  extraction_schema: ExtractionSchemaText,
});

/**
 * POST /v1/compare: the document parsed by each of 1 to 4 configured providers at once (see
 * `compareProviders`): `compare_id`, `filename`, `providers_requested`, `runs` (`status`
 * `completed`, `failed` or `cancelled`, each with its request id and ParseResponse), and
 * `page_agreement` per page. Answers like a synchronous upload, with the same keepalive when
 * the runs take long.
 */
export const createHandler = (getDeps: () => Promise<Deps>, timing: LongParseTiming = LONG_PARSE) =>
  httpHandler(
    getDeps,
    { form: CompareForm, streaming: true },
    async ({ form, file, caller, deps, requestId }) => {
      const source = documentOf(form.upload_id, file);
      const comparing = compareProviders(deps, {
        tenant: caller?.tenant ?? '',
        ...(caller ? { plan: caller.plan } : {}),
        source: { tenant: caller?.tenant ?? '', ...source },
        filename: 'filename' in source ? source.filename : null,
        providers: form.providers,
        extractionSchema: form.extraction_schema,
        options: {
          operation_mode: form.operation_mode,
          maintain_format: true,
          max_pages: form.max_pages,
          enable_verification: null,
          dpi: null,
          include_warnings: false,
          extraction_strict: false,
          legacy_events: false,
        },
      });
      return replyWhenDone(comparing, timing, requestId);
    },
  );

export const handler = createHandler(deps);
