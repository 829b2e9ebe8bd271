import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SignedUpload, UploadPolicy, UploadSigner } from '../../core/ports/upload-signer.js';

/** Where the signing secret of local upload forms is kept, under `DATA_DIR`. */
export const uploadSecretFile = (dataDir: string): string => join(dataDir, 'upload-signing-key');

/** Path of the local server's upload endpoint for one slot (the stand-in for the S3 bucket URL). */
export const localUploadPath = (uploadId: string): string =>
  `/v1/uploads/${encodeURIComponent(uploadId)}`;

/** Matches {@link localUploadPath}; group 1 is the upload id. */
export const LOCAL_UPLOAD_PATH = /^\/v1\/uploads\/([^/]+)\/?$/;

/** A form the local server refuses (answered with 403 and the message as `detail`). */
export class UploadSignatureError extends Error {
  override readonly name = 'UploadSignatureError';
}

/** The signed policy, as carried base64-encoded in the `policy` field. */
interface SignedPolicy {
  upload_id: string;
  key: string;
  tenant: string;
  max_bytes: number;
  expires_at: string;
  content_type: string | null;
}

/** What a verified form allows. */
export interface VerifiedUpload {
  key: string;
  tenant: string;
  maxBytes: number;
  contentType: string | null;
}

/**
 * Local stand-in for S3 presigned POST: the form's fields are `key`, `policy` (base64 JSON of the
 * upload id, key, tenant, maximum size, expiry and content type), `signature` (hex HMAC-SHA256 of
 * the `policy` field with a secret only this data directory knows) and, when a content type was
 * given, `Content-Type`. The url is the local server's own `/v1/uploads/{upload_id}`, whose
 * handler calls {@link verify} before it reads the file.
 *
 * The secret is random per data directory and kept in `DATA_DIR/upload-signing-key` (see
 * {@link loadUploadSecret}), so forms stay valid across restarts until they expire, and forms of
 * another data directory are refused.
 */
export class LocalUploadSigner implements UploadSigner {
  readonly #secret: Uint8Array;
  readonly #now: () => Date;
  #baseUrl: string;

  /**
   * @param secret HMAC key (at least 32 bytes).
   * @param options.baseUrl URL of the local server (`http://host:port`), until {@link serveAt}.
   * @param options.now the clock expiry is checked against.
   */
  constructor(secret: Uint8Array, options: { baseUrl: string; now?: () => Date }) {
    if (secret.byteLength < 32) throw new Error('the upload signing secret needs 32 bytes or more');
    this.#secret = secret;
    this.#baseUrl = options.baseUrl;
    this.#now = options.now ?? (() => new Date());
  }

  /** Points the forms signed from now on at the server listening on `baseUrl`. */
  serveAt(baseUrl: string): void {
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
  }

  sign(policy: UploadPolicy): Promise<SignedUpload> {
    const signed: SignedPolicy = {
      upload_id: policy.uploadId,
      key: policy.key,
      tenant: policy.tenant,
      max_bytes: policy.maxBytes,
      expires_at: policy.expiresAt.toISOString(),
      content_type: policy.contentType,
    };
    const encoded = Buffer.from(JSON.stringify(signed)).toString('base64');
    return Promise.resolve({
      url: `${this.#baseUrl}${localUploadPath(policy.uploadId)}`,
      fields: {
        key: policy.key,
        ...(policy.contentType === null ? {} : { 'Content-Type': policy.contentType }),
        policy: encoded,
        signature: this.#signatureOf(encoded).toString('hex'),
      },
    });
  }

  /**
   * Checks the fields of a form posted to the upload url of `uploadId` (field names are
   * case-insensitive, as S3's are).
   * @returns what the form allows.
   * @throws {UploadSignatureError} when a field is missing, the signature does not match the
   *   policy, the policy is for another upload or key, or it has expired.
   */
  verify(uploadId: string, fields: Readonly<Record<string, string>>): VerifiedUpload {
    const field = (name: string) =>
      Object.entries(fields).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
    const encoded = field('policy');
    const signature = field('signature');
    if (encoded === undefined || signature === undefined) {
      throw new UploadSignatureError(
        'missing "policy" or "signature" field: send every field returned by POST /v1/uploads before the file',
      );
    }
    const given = Buffer.from(/^[0-9a-f]{64}$/i.test(signature) ? signature : '', 'hex');
    const expected = this.#signatureOf(encoded);
    if (given.byteLength !== expected.byteLength || !timingSafeEqual(given, expected)) {
      throw new UploadSignatureError(
        'the upload signature does not match its policy: send the fields exactly as returned by POST /v1/uploads',
      );
    }
    const policy = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as SignedPolicy;
    if (policy.upload_id !== uploadId) {
      throw new UploadSignatureError(
        `the form was signed for upload ${policy.upload_id}, not ${uploadId}: post it to the url returned with it`,
      );
    }
    if (field('key') !== policy.key) {
      throw new UploadSignatureError(
        'the "key" field does not match the signed policy: send the fields exactly as returned by POST /v1/uploads',
      );
    }
    if (policy.content_type !== null && field('Content-Type') !== policy.content_type) {
      throw new UploadSignatureError(
        'the "Content-Type" field does not match the signed policy: send the fields exactly as returned by POST /v1/uploads',
      );
    }
    if (this.#now().getTime() > Date.parse(policy.expires_at)) {
      throw new UploadSignatureError(
        `the upload form expired at ${policy.expires_at}: create a new one with POST /v1/uploads`,
      );
    }
    return {
      key: policy.key,
      tenant: policy.tenant,
      maxBytes: policy.max_bytes,
      contentType: policy.content_type,
    };
  }

  #signatureOf(encodedPolicy: string): Buffer {
    return createHmac('sha256', this.#secret).update(encodedPolicy, 'utf8').digest();
  }
}

/**
 * The data directory's upload signing secret: 32 random bytes created on first use and kept (hex)
 * in `DATA_DIR/upload-signing-key` with mode 0600; later starts reuse it.
 */
export async function loadUploadSecret(dataDir: string): Promise<Uint8Array> {
  const file = uploadSecretFile(dataDir);
  const read = async () => Buffer.from((await readFile(file, 'utf8')).trim(), 'hex');
  try {
    return await read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dirname(file), { recursive: true });
  try {
    await writeFile(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another start created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return read();
}
