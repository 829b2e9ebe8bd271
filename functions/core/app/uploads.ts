import { NotFoundError, ObjectNotFoundError } from '../domain/errors.js';
import type { AppDeps } from './app-deps.js';

/** How long the form returned by {@link createUpload} accepts the file, in minutes. */
export const UPLOAD_EXPIRY_MINUTES = 15;

/** Upload ids: `upl_` and letters or digits (24 of them as {@link createUpload} draws them). */
export const UPLOAD_ID_PATTERN = /^upl_[A-Za-z0-9]{1,64}$/;

/**
 * Object keys of an upload slot. They live under `uploads/` (so the bucket's expiry rule for
 * uploads covers them) but one level deeper than a request's `uploads/<req_id>/document`, under
 * `uploads/slots/`, so the two can never collide. The tenant is part of the key: another tenant's
 * upload id names an object that does not exist.
 */
export const uploadKeys = {
  /** The uploaded file, written by the client through the signed form. */
  document: (tenant: string, uploadId: string) => `uploads/slots/${tenant}/${uploadId}/document`,
  /** What the slot was created with (file name, content type, expiry), written by the API. */
  slot: (tenant: string, uploadId: string) => `uploads/slots/${tenant}/${uploadId}/slot.json`,
};

/** Request of POST /v1/uploads. */
export interface UploadSlotRequest {
  tenant: string;
  /** File name reported as `document.filename` when the upload is parsed. */
  filename: string | null;
  /** Content type stored with the uploaded object. */
  contentType: string | null;
}

/** Response of POST /v1/uploads (snake_case, as the API answers it). */
export interface UploadSlotView {
  upload_id: string;
  /** Where the client POSTs the multipart form. */
  url: string;
  /** Form fields to send, in any order, before the `file` part. */
  fields: Record<string, string>;
  /** Largest accepted file in bytes. */
  max_bytes: number;
  /** ISO-8601 instant after which the form is refused. */
  expires_at: string;
}

/** What a slot was created with, stored beside the uploaded file. */
interface SlotManifest {
  upload_id: string;
  tenant: string;
  filename: string | null;
  content_type: string | null;
  created_at: string;
  expires_at: string;
}

/**
 * Creates an upload slot for files above the API's request-size limit:
 * 1. draws a new upload id (`upl_` and `deps.newId()`: 24 letters or digits);
 * 2. stores the slot's manifest (file name, content type, expiry) under the tenant's key;
 * 3. signs a form that stores 1 to `maxUploadBytes` bytes under exactly the slot's key for
 *    {@link UPLOAD_EXPIRY_MINUTES} minutes.
 * The file is then parsed by reference with the returned `upload_id` (see `parseUpload`).
 */
export async function createUpload(
  deps: Pick<AppDeps, 'uploads' | 'objects' | 'clock' | 'newId' | 'limits'>,
  request: UploadSlotRequest,
): Promise<UploadSlotView> {
  const uploadId = `upl_${deps.newId()}`;
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + UPLOAD_EXPIRY_MINUTES * 60_000);
  const manifest: SlotManifest = {
    upload_id: uploadId,
    tenant: request.tenant,
    filename: request.filename,
    content_type: request.contentType,
    created_at: now.toISOString(),
    expires_at: expiresAt.toISOString(),
  };
  await deps.objects.put(
    uploadKeys.slot(request.tenant, uploadId),
    new TextEncoder().encode(JSON.stringify(manifest)),
    'application/json',
  );
  const maxBytes = deps.limits.maxUploadBytes;
  const { url, fields } = await deps.uploads.sign({
    uploadId,
    key: uploadKeys.document(request.tenant, uploadId),
    tenant: request.tenant,
    maxBytes,
    expiresAt,
    contentType: request.contentType,
  });
  return {
    upload_id: uploadId,
    url,
    fields,
    max_bytes: maxBytes,
    expires_at: expiresAt.toISOString(),
  };
}

/**
 * The file uploaded to a slot of `tenant`, with the file name the slot was created with.
 * @throws {NotFoundError} (404) when the upload id is unknown, its file was never sent, or it
 *   belongs to another tenant: the same answer for all three.
 */
export async function readUpload(
  deps: Pick<AppDeps, 'objects'>,
  tenant: string,
  uploadId: string,
): Promise<{ bytes: Uint8Array; filename: string | null }> {
  const notFound = () =>
    new NotFoundError(
      `upload ${uploadId} not found: create one with POST /v1/uploads and send the file to its url before parsing`,
    );
  if (!UPLOAD_ID_PATTERN.test(uploadId)) throw notFound();
  const [manifest, bytes] = await Promise.all([
    getIfStored(deps, uploadKeys.slot(tenant, uploadId)),
    getIfStored(deps, uploadKeys.document(tenant, uploadId)),
  ]);
  if (!manifest || !bytes) throw notFound();
  const slot = JSON.parse(new TextDecoder().decode(manifest)) as SlotManifest;
  return { bytes, filename: slot.filename };
}

/** The object under `key`, or undefined when none is stored; other failures propagate. */
async function getIfStored(
  deps: Pick<AppDeps, 'objects'>,
  key: string,
): Promise<Uint8Array | undefined> {
  try {
    return await deps.objects.get(key);
  } catch (error) {
    if (error instanceof ObjectNotFoundError) return undefined;
    throw error;
  }
}
