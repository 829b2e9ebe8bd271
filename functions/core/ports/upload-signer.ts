/** What a signed upload form allows: one object, at one exact key, within a size range, until a time. */
export interface UploadPolicy {
  /** The upload slot's id (`upl_…`); signers that address uploads by id put it in the url. */
  uploadId: string;
  /** The object key the upload is stored under; the form allows no other. */
  key: string;
  /** Tenant the upload slot belongs to (also part of `key`). */
  tenant: string;
  /** Largest accepted file in bytes; the smallest is 1 byte. */
  maxBytes: number;
  /** After this instant the form is refused. */
  expiresAt: Date;
  /** Content type stored with the object, fixed by the form when given. */
  contentType: string | null;
}

/**
 * A browser-style form upload: the client sends a `multipart/form-data` POST to `url` with every
 * entry of `fields` first and the file last, as the part named `file`.
 */
export interface SignedUpload {
  url: string;
  fields: Record<string, string>;
}

/**
 * Signs direct uploads that bypass the API's own request-size limit (S3 presigned POST on AWS,
 * an HMAC-signed form the local server verifies in local mode). The signature is the only
 * credential the upload needs; the stored object is then read through the `ObjectStore`.
 */
export interface UploadSigner {
  /** Signs a form that stores one file of 1 to `policy.maxBytes` bytes under exactly `policy.key`. */
  sign(policy: UploadPolicy): Promise<SignedUpload>;
}
