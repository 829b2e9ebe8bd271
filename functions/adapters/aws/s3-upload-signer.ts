import type { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { SignedUpload, UploadPolicy, UploadSigner } from '../../core/ports/upload-signer.js';

/**
 * S3 presigned POST (the browser form upload) into one bucket. The signed policy fixes the exact
 * `key`, enforces `content-length-range` 1..`maxBytes` and, when a content type is given, the
 * `Content-Type` field; S3 answers 204 on success and 400 `EntityTooLarge`/`EntityTooSmall` or
 * 403 (expired, tampered policy) otherwise.
 *
 * The form is signed with the client's credentials: the principal needs `s3:PutObject` on the
 * key, and with temporary credentials the form stops working when they expire, even if the
 * policy's expiry is later.
 */
export class S3UploadSigner implements UploadSigner {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #now: () => number;

  /**
   * @param client S3 client whose credentials sign the form.
   * @param bucket bucket the file is stored in.
   * @param now epoch milliseconds; the policy's lifetime is counted from it (tests).
   */
  constructor(client: S3Client, bucket: string, now: () => number = Date.now) {
    this.#client = client;
    this.#bucket = bucket;
    this.#now = now;
  }

  async sign(policy: UploadPolicy): Promise<SignedUpload> {
    const contentType: Record<string, string> =
      policy.contentType === null ? {} : { 'Content-Type': policy.contentType };
    const { url, fields } = await createPresignedPost(this.#client, {
      Bucket: this.#bucket,
      Key: policy.key,
      Conditions: [['content-length-range', 1, policy.maxBytes]],
      Fields: contentType,
      // The SDK counts whole seconds from its own clock; never less than one.
      Expires: Math.max(1, Math.round((policy.expiresAt.getTime() - this.#now()) / 1000)),
    });
    return { url, fields };
  }
}
