import parsePreferHeader from 'parse-prefer-header';
import { BadRequestError } from '../core/domain/errors.js';
import type { ParseOptions } from '../core/domain/request.js';
import type { ApiKeyRecord } from '../core/ports/api-key-store.js';
import type { OutboundHttp } from '../outbound-http.js';

/*
 * What the parse endpoints read from a request the same way: who the parse is for, its options,
 * its document, and the headers that change how it is answered.
 */

/** Headers as the handlers receive them (names in lower case). */
type Headers = Readonly<Record<string, string | undefined>>;

/**
 * Who a parse is for: the caller's tenant, and its plan, which meters the daily pages.
 *
 * @example
 * submitterOf(caller) // { tenant: 'tenant-a', plan: 'pro' }
 */
export const submitterOf = (
  caller: ApiKeyRecord,
): { tenant: string; plan: ApiKeyRecord['plan'] } => ({
  tenant: caller.tenant,
  plan: caller.plan,
});

/** The parse fields of a request body or form (ParseURLRequest, the upload form). */
export type ParseFields = Pick<
  ParseOptions,
  'operation_mode' | 'maintain_format' | 'max_pages' | 'enable_verification' | 'dpi'
>;

/** The query flags of the parse endpoints (`UploadQuery`). */
export type ParseFlags = Pick<
  ParseOptions,
  'include_warnings' | 'extraction_strict' | 'legacy_events'
>;

/** The flags of a parse whose request has no query of its own (a document of a batch). */
export const NO_FLAGS: Readonly<ParseFlags> = Object.freeze({
  include_warnings: false,
  extraction_strict: false,
  legacy_events: false,
});

/**
 * The options of a parse: its request's parse fields (other fields of the body or form are left
 * out) and its query flags.
 *
 * @example
 * parseOptionsOf(body, query) // { operation_mode: 'ocr', ..., include_warnings: false, ... }
 */
export function parseOptionsOf(fields: ParseFields, flags: ParseFlags): ParseOptions {
  return {
    operation_mode: fields.operation_mode,
    maintain_format: fields.maintain_format,
    max_pages: fields.max_pages,
    enable_verification: fields.enable_verification,
    dpi: fields.dpi,
    include_warnings: flags.include_warnings,
    extraction_strict: flags.extraction_strict,
    legacy_events: flags.legacy_events,
  };
}

/**
 * The document of an upload form: the `file` part, or the `upload_id` of a file sent earlier to
 * POST /v1/uploads.
 * @throws {BadRequestError} when both or neither are given.
 */
export function documentOf(
  uploadId: string | undefined,
  file: { content: Uint8Array; filename: string | null } | undefined,
): { uploadId: string } | { bytes: Uint8Array; filename: string | null } {
  if (file && uploadId !== undefined) {
    throw new BadRequestError(
      'send either a "file" part or an "upload_id" field, not both: upload_id parses a file sent earlier to POST /v1/uploads',
    );
  }
  if (uploadId !== undefined) return { uploadId };
  if (file) return { bytes: file.content, filename: file.filename };
  throw new BadRequestError(
    'missing form field "file": attach the document as a file part named "file", or send the "upload_id" of a file uploaded through POST /v1/uploads',
  );
}

/**
 * The client asks to parse afresh rather than be answered from the result cache: a
 * `Cache-Control` header with the `no-cache` directive (RFC 9111 §5.2.1.4), or `invalidate_cache`
 * true for clients that cannot set headers.
 */
export function refreshesCache(headers: Headers, invalidateCache: boolean): boolean {
  if (invalidateCache) return true;
  return (headers['cache-control'] ?? '')
    .split(',')
    .some((directive) => directive.trim().toLowerCase().split('=')[0] === 'no-cache');
}

/** The client asks for Server-Sent Events (`Accept: text/event-stream`). */
export function wantsEventStream(headers: Headers): boolean {
  return (headers.accept ?? '').toLowerCase().includes('text/event-stream');
}

/**
 * The request's `Prefer` header (RFC 7240) holds the `respond-async` preference: preferences are
 * comma-separated, their tokens case-insensitive, and may carry parameters and other
 * preferences beside them (`Prefer: wait=10, Respond-Async`). `wait` is not honoured: the
 * asynchronous answer is given at once.
 */
export function prefersRespondAsync(headers: Headers): boolean {
  return parsePreferHeader(headers.prefer).respondAsync !== undefined;
}

/**
 * The webhook of a parse or batch: `webhook_url` once its scheme, host and addresses pass the
 * guard (the deliverer checks it again before every attempt: the name may resolve elsewhere by
 * then), with the API's base URL for the links of its events; undefined without a URL.
 * @throws {UrlRefusedError} (400) `webhook_url refused: ...`, saying why.
 */
export async function webhookOf(
  guard: OutboundHttp['webhookUrls'],
  url: string | null,
  apiBaseUrl: string,
): Promise<{ url: string; apiBaseUrl: string } | undefined> {
  if (url === null) return undefined;
  return { url: (await guard.check(url)).url.href, apiBaseUrl };
}
