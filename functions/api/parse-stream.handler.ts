import { z } from 'zod';
import { deps, type Deps } from '../container.js';
import { httpHandler } from './http-handler.js';
import {
  documentOf,
  SSE_TIMING,
  streamParse,
  UploadForm,
  UploadQuery,
} from './parse-upload.handler.js';

/**
 * `extraction_schema` of the stream form (spec §4): JSON Schema text, or empty / `null` for none.
 * Must be a JSON object; it is checked here so that a broken schema is refused before the
 * stream starts.
 */
const ExtractionSchemaText = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const trimmed = text?.trim() ?? '';
    if (trimmed === '' || trimmed === 'null') return null;
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
        return parsed as Record<string, unknown>;
      }
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'must be a JSON Schema object (JSON text)' });
    return z.NEVER;
  });

const StreamForm = UploadForm.extend({ extraction_schema: ExtractionSchemaText });

/**
 * POST /v1/parse/stream: the upload form (a `file` part or an `upload_id`) plus
 * `extraction_schema`, answered with Server-Sent Events: every progress event of the parse as
 * it happens, then `result.final` with the full ParseResponse (spec §4, §6). A disconnecting
 * client loses nothing: the parse goes on and `GET /v1/parse/{id}` returns it.
 */
export const createHandler = (getDeps: () => Promise<Deps>, timing = SSE_TIMING) =>
  httpHandler(
    getDeps,
    { form: StreamForm, query: UploadQuery, streaming: true },
    async ({ form, query, file, caller, deps }) => {
      // The schema is validated by the form; schema-driven extraction (extract and hybrid modes)
      // is not wired to the pipeline yet, so the stream carries the Markdown result.
      const { upload_id: uploadId, ...rest } = form;
      const fields = {
        operation_mode: rest.operation_mode,
        maintain_format: rest.maintain_format,
        max_pages: rest.max_pages,
        enable_verification: rest.enable_verification,
        dpi: rest.dpi,
      };
      return streamParse(
        deps,
        {
          tenant: caller?.tenant ?? '',
          options: { ...fields, ...query },
          ...documentOf(uploadId, file),
        },
        timing,
      );
    },
  );

export const handler = createHandler(deps);
