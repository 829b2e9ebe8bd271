import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseMultipart } from '../../api/multipart.js';
import { AppError, PayloadTooLargeError } from '../../core/domain/errors.js';
import type { ObjectStore } from '../../core/ports/object-store.js';
import {
  UploadSignatureError,
  type LocalUploadSigner,
  type VerifiedUpload,
} from './local-upload-signer.js';

/** Largest form field accepted before the file (the signed policy is well under 1 KiB). */
const MAX_FIELD_BYTES = 64 * 1024;

type Outcome =
  | { status: 'stored'; upload: VerifiedUpload; bytes: Buffer; mimeType: string }
  | { status: 400 | 403 | 413; detail: string };

/**
 * The local server's stand-in for S3's form upload: handles `POST /v1/uploads/{upload_id}` with
 * the fields returned by POST /v1/uploads followed by the part `file`. The signed policy is the
 * credential (no API key). The file is counted while it is read and refused as soon as it passes
 * the policy's maximum.
 *
 * Answers 204 once stored (S3's default), 403 for a missing, tampered, foreign or expired
 * signature, 413 above the maximum, 400 for a body that is not such a form or an empty file;
 * errors carry `{ detail }`. Fields after the file are ignored, as S3 does.
 */
export async function receiveUpload(
  req: IncomingMessage,
  res: ServerResponse,
  uploadId: string,
  signer: LocalUploadSigner,
  objects: ObjectStore,
): Promise<void> {
  const outcome = await readForm(req, uploadId, signer);
  // A timeout has answered (408) and closed the connection, or the client went away.
  if (res.headersSent || res.destroyed) return;
  if (outcome.status !== 'stored') {
    // Stop parsing but drain what the client still sends, so it reads the answer.
    req.unpipe();
    req.resume();
    res.setHeader('connection', 'close');
    send(res, outcome.status, { detail: outcome.detail });
    return;
  }
  const { upload, bytes, mimeType } = outcome;
  await objects.put(upload.key, bytes, upload.contentType ?? mimeType);
  res.writeHead(204);
  res.end();
}

/** What a 400 tells the client to send. */
const FORM_HINT =
  'send multipart/form-data with the fields returned by POST /v1/uploads, then the part "file"';

async function readForm(
  req: IncomingMessage,
  uploadId: string,
  signer: LocalUploadSigner,
): Promise<Outcome> {
  let upload: VerifiedUpload | undefined;
  try {
    const { file } = await parseMultipart(req, req.headers['content-type'], {
      // The signed policy's maximum replaces it when the file starts (onFileStart).
      maxFileBytes: Number.MAX_SAFE_INTEGER,
      maxFieldBytes: MAX_FIELD_BYTES,
      // As S3: only the part `file` is the file (with or without a file name), and fields after
      // it are ignored.
      fileParts: 'named',
      ignoreFieldsAfterFile: true,
      onFileStart: (fields) => {
        upload = signer.verify(uploadId, fields);
        return upload.maxBytes;
      },
      prefix: 'malformed upload',
      hint: FORM_HINT,
    });
    if (file === undefined || upload === undefined) {
      return { status: 400, detail: `missing the part "file": ${FORM_HINT}` };
    }
    if (file.content.length === 0) {
      return { status: 400, detail: 'the uploaded file is empty (0 bytes)' };
    }
    return { status: 'stored', upload, bytes: file.content, mimeType: file.mimetype };
  } catch (error) {
    if (error instanceof UploadSignatureError) return { status: 403, detail: error.message };
    if (error instanceof PayloadTooLargeError && upload !== undefined) {
      return {
        status: 413,
        detail: `the file exceeds the maximum upload size of ${upload.maxBytes} bytes`,
      };
    }
    if (error instanceof AppError && error.kind === 'invalid') {
      return { status: 400, detail: error.message };
    }
    throw error;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
