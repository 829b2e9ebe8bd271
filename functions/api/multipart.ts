import type { Readable } from 'node:stream';
import { Busboy, Dicer } from '@fastify/busboy';
import { BadRequestError, PayloadTooLargeError } from '../core/domain/errors.js';

/** The one file part of a multipart form. */
export interface MultipartFile {
  /** The part's field name (`file`). */
  field: string;
  /** The part's `filename` parameter, or null when it has none (or an empty one). */
  filename: string | null;
  /** The part's `Content-Type`, lower case, `text/plain` when it has none (RFC 7578 §4.4). */
  mimetype: string;
  content: Buffer;
}

/** A parsed multipart form. */
export interface MultipartForm {
  /**
   * The text fields by name, in a null-prototype object: names such as `__proto__` or
   * `constructor[]` are plain keys. Values are decoded as UTF-8 unless the part names a charset.
   */
  fields: Record<string, string>;
  /** The file part, when there is one. */
  file: MultipartFile | undefined;
}

/** Options of {@link parseMultipart}. */
export interface MultipartOptions {
  /**
   * Largest file part in bytes; one byte more ends the parse with `PayloadTooLargeError` (413)
   * while the file is read. Callers pass `MAX_UPLOAD_BYTES`, or the signed upload's maximum.
   */
  maxFileBytes: number;
  /** Most text fields (default 50); one more is a 400. */
  maxFields?: number;
  /** Largest text field value in bytes (default 1 MiB, busboy's default); longer is a 400. */
  maxFieldBytes?: number;
  /** Most parts, fields and file together (default `maxFields` + 1); more is a 400. */
  maxParts?: number;
  /** The name of the file part (default `file`); a file part with another name is a 400. */
  fileField?: string;
  /**
   * Which parts are files: by default the part named `fileField`, and any part with a
   * `filename` parameter. `'named'`: only the part named `fileField` (S3's form upload, where
   * every other part is a field whatever its parameters).
   */
  fileParts?: 'named-or-filename' | 'named';
  /**
   * Fields after the file part are ignored (S3's form upload) rather than read (default false).
   */
  ignoreFieldsAfterFile?: boolean;
  /**
   * Called when the file part starts, with the fields read so far. It may throw (the parse ends
   * with that error, and the file is not read) or return a smaller byte limit for the file.
   */
  onFileStart?: (fields: Readonly<Record<string, string>>) => number | undefined;
  /**
   * Appended to every 400 detail after `; ` (what the client should send instead), e.g.
   * `send multipart/form-data with a "file" part`.
   */
  hint?: string;
  /** Start of every 400 detail (default `malformed request body`). */
  prefix?: string;
}

const DEFAULT_MAX_FIELDS = 50;
const DEFAULT_MAX_FIELD_BYTES = 1024 * 1024;
const MULTIPART_TYPE = /^multipart\/form-data\s*(;|$)/i;

/**
 * Parses a `multipart/form-data` body with busboy into its text fields and its one file part.
 * `body` is the whole body (an API Gateway event's, decoded) or a stream of it (a request being
 * received); `contentType` is the request's `Content-Type` header, with the boundary.
 *
 * Every failure of the stream settles the returned promise, never the process: busboy's errors
 * and those of every part are handled, and a stream `body` that errors or closes early is a
 * failure too. The promise resolves once the closing boundary is read, and rejects with
 * - `PayloadTooLargeError` (413) when the file passes `maxFileBytes` (or `onFileStart`'s limit);
 * - `BadRequestError` (400) whose message names the problem: a Content-Type that is not
 *   multipart/form-data or has no boundary; a body that ends before its closing boundary
 *   (truncated, or a boundary that does not match the body); a part without a
 *   `Content-Disposition: form-data` header; more than one file part, or a file part not named
 *   `fileField`; a field sent twice; more fields or parts than allowed, or a field too long;
 * - whatever `onFileStart` throws.
 *
 * Parsing stops at the first failure; a stream `body` is then unpiped (the caller decides whether
 * to drain or close it).
 */
export function parseMultipart(
  body: Buffer | Readable,
  contentType: string | undefined,
  options: MultipartOptions,
): Promise<MultipartForm> {
  const fileField = options.fileField ?? 'file';
  const maxFields = options.maxFields ?? DEFAULT_MAX_FIELDS;
  const maxFieldBytes = options.maxFieldBytes ?? DEFAULT_MAX_FIELD_BYTES;
  const fail = (problem: string, cause?: unknown): BadRequestError =>
    new BadRequestError(
      `${options.prefix ?? 'malformed request body'}: ${problem}${options.hint ? `; ${options.hint}` : ''}`,
      cause === undefined ? undefined : { cause },
    );

  return new Promise<MultipartForm>((resolve, reject) => {
    const source = Buffer.isBuffer(body) ? undefined : body;
    let settled = false;
    let busboy: ReturnType<typeof Busboy> | undefined;
    const settle = (outcome: Error | MultipartForm): void => {
      if (settled) return;
      settled = true;
      if (source && busboy) source.unpipe(busboy);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };

    if (contentType === undefined || !MULTIPART_TYPE.test(contentType)) {
      settle(
        fail(`expected Content-Type multipart/form-data, got ${contentType ?? 'no Content-Type'}`),
      );
      return;
    }
    try {
      busboy = Busboy({
        headers: { 'content-type': contentType },
        limits: {
          fields: maxFields,
          fieldSize: maxFieldBytes,
          parts: options.maxParts ?? maxFields + 1,
          // Counted below against the limit in force for this file (see onFileStart).
          fileSize: Infinity,
        },
        isPartAFile: (name, _type, filename) =>
          name === fileField || (options.fileParts !== 'named' && filename !== undefined),
      });
    } catch (error) {
      const missing = /boundary not found/i.test((error as Error).message);
      settle(
        fail(
          missing
            ? 'the Content-Type multipart/form-data has no boundary parameter'
            : `unreadable Content-Type (${(error as Error).message})`,
          error,
        ),
      );
      return;
    }

    const fields = Object.create(null) as Record<string, string>;
    let file: MultipartFile | undefined;
    let fileDone = false;
    let partNumber = 0;

    // busboy skips a part without a form-data Content-Disposition without a word; its part parser
    // (Dicer) shows each part's headers, so such a part is refused instead of silently dropped.
    const dicer = (busboy as unknown as { _parser?: { parser?: unknown } })._parser?.parser;
    if (dicer instanceof Dicer) {
      dicer.on('part', (part) => {
        partNumber += 1;
        const n = partNumber;
        part.on('error', () => {
          // Reported through busboy's own 'error' (unexpected end of multipart data).
        });
        part.once('header', (header: Record<string, string[] | undefined>) => {
          const disposition = header['content-disposition']?.[0];
          if (disposition === undefined) {
            settle(
              fail(
                `part ${n} has no Content-Disposition header; each part needs Content-Disposition: form-data; name="..."`,
              ),
            );
          } else if (!/^\s*form-data\s*(;|$)/i.test(disposition)) {
            settle(
              fail(
                `part ${n} has Content-Disposition "${disposition.slice(0, 100)}"; each part needs Content-Disposition: form-data; name="..."`,
              ),
            );
          }
        });
      });
    }

    busboy.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (settled || (file && options.ignoreFieldsAfterFile)) return;
      if (valueTruncated) {
        settle(fail(`the field "${name.slice(0, 100)}" is longer than ${maxFieldBytes} bytes`));
      } else if (name in fields) {
        settle(fail(`the field "${name.slice(0, 100)}" is sent more than once`));
      } else {
        fields[name] = value;
      }
    });

    busboy.on('file', (name, stream, filename, _encoding, mimetype) => {
      // Every file stream gets an error listener: busboy emits "Part terminated early" on it
      // when the body ends inside the file, which would otherwise be thrown as unhandled.
      stream.on('error', (error: Error) => {
        settle(fail(truncatedProblem(), error));
      });
      if (settled) {
        stream.resume();
        return;
      }
      if (file !== undefined) {
        stream.resume();
        settle(fail(`more than one file part: send exactly one file, as the part "${fileField}"`));
        return;
      }
      if (name !== fileField) {
        stream.resume();
        settle(
          fail(
            `the file part is named "${name.slice(0, 100)}": send exactly one file, as the part "${fileField}"`,
          ),
        );
        return;
      }
      let limit = options.maxFileBytes;
      try {
        limit = Math.min(limit, options.onFileStart?.(fields) ?? limit);
      } catch (error) {
        stream.resume();
        settle(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      const current: MultipartFile = {
        field: name,
        // Typed as a string, but undefined for the part `fileField` sent without a file name.
        filename: typeof filename === 'string' && filename !== '' ? filename : null,
        mimetype,
        content: Buffer.alloc(0),
      };
      file = current;
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > limit) {
          chunks.length = 0;
          settle(
            new PayloadTooLargeError(
              `the file exceeds the maximum upload size of ${limit} bytes (${(limit / 1048576).toFixed(1)} MB)`,
            ),
          );
          return;
        }
        chunks.push(chunk);
      });
      stream.on('end', () => {
        current.content = Buffer.concat(chunks);
        fileDone = true;
      });
    });

    busboy.on('filesLimit', () => {
      settle(fail(`more than one file part: send exactly one file, as the part "${fileField}"`));
    });
    busboy.on('fieldsLimit', () => {
      settle(fail(`more than ${maxFields} form fields`));
    });
    busboy.on('partsLimit', () => {
      settle(fail(`more than ${options.maxParts ?? maxFields + 1} parts`));
    });
    busboy.on('error', (error: Error) => {
      const ended = /unexpected end/i.test(error.message);
      settle(
        fail(ended ? truncatedProblem() : `unreadable multipart body (${error.message})`, error),
      );
    });
    busboy.on('finish', () => {
      // A file's 'end' comes before busboy's 'finish'; without it the body ended inside the file.
      if (file !== undefined && !fileDone) settle(fail(truncatedProblem()));
      else settle({ fields, file });
    });

    if (source === undefined) {
      busboy.end(body);
      return;
    }
    source.on('error', (error: Error) => {
      settle(fail('the request body was interrupted', error));
    });
    source.on('close', () => {
      if (!source.readableEnded) settle(fail('the request body was interrupted'));
    });
    source.pipe(busboy);
  });
}

function truncatedProblem(): string {
  return 'the body ends before its closing boundary (truncated, or the boundary in Content-Type does not match the body)';
}

/** The body of an API Gateway event as bytes: base64-decoded when `isBase64Encoded`, else UTF-8. */
export function eventBodyBytes(body: string | null | undefined, isBase64Encoded: boolean): Buffer {
  if (body === null || body === undefined) return Buffer.alloc(0);
  return Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
}
