import type { IncomingMessage, ServerResponse } from 'node:http';
import { Busboy, type BusboyHeaders } from '@fastify/busboy';
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

function readForm(
  req: IncomingMessage,
  uploadId: string,
  signer: LocalUploadSigner,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let busboy: ReturnType<typeof Busboy>;
    try {
      busboy = Busboy({
        headers: req.headers as BusboyHeaders,
        limits: { files: 1, fields: 50, fieldSize: MAX_FIELD_BYTES },
        // A `file` part without a file name is still the file (as for S3).
        isPartAFile: (name: string | undefined) => name === 'file',
      });
    } catch (error) {
      resolve({
        status: 400,
        detail: `malformed upload: ${(error as Error).message}; send multipart/form-data with the fields returned by POST /v1/uploads, then the part "file"`,
      });
      return;
    }
    const fields: Record<string, string> = {};
    let sawFile = false;
    busboy.on('field', (name, value) => {
      if (!sawFile) fields[name] = value;
    });
    busboy.on('file', (name, stream, _filename, _encoding, mimeType) => {
      if (name !== 'file' || sawFile) {
        stream.resume();
        return;
      }
      sawFile = true;
      let upload: VerifiedUpload;
      try {
        upload = signer.verify(uploadId, fields);
      } catch (error) {
        stream.resume();
        if (error instanceof UploadSignatureError) resolve({ status: 403, detail: error.message });
        else reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      stream.on('data', (chunk: Buffer) => {
        if (over) return;
        size += chunk.length;
        if (size > upload.maxBytes) {
          over = true;
          chunks.length = 0;
          resolve({
            status: 413,
            detail: `the file exceeds the maximum upload size of ${upload.maxBytes} bytes`,
          });
          return;
        }
        chunks.push(chunk);
      });
      stream.on('end', () => {
        if (over) return;
        if (size === 0) {
          resolve({ status: 400, detail: 'the uploaded file is empty (0 bytes)' });
          return;
        }
        resolve({ status: 'stored', upload, bytes: Buffer.concat(chunks), mimeType });
      });
    });
    busboy.on('finish', () => {
      // With a file part, its stream's handlers answer.
      if (sawFile) return;
      resolve({
        status: 400,
        detail:
          'missing the part "file": send the fields returned by POST /v1/uploads, then the file as the part "file"',
      });
    });
    busboy.on('error', (error) => {
      resolve({
        status: 400,
        detail: `malformed upload: ${(error as Error).message}; send multipart/form-data with the fields returned by POST /v1/uploads, then the part "file"`,
      });
    });
    req.on('error', () => {
      resolve({ status: 400, detail: 'the upload was interrupted' });
    });
    req.pipe(busboy);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
