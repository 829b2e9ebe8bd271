import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { BadRequestError, ObjectNotFoundError } from '../../core/domain/errors.js';
import type { ObjectStore } from '../../core/ports/object-store.js';

/**
 * Objects in one S3 bucket: the AWS object store (uploads, intermediate work, results).
 *
 * Keys are used as given, with the filesystem store's rules so that both modes accept the same
 * keys: empty keys, keys starting with `/` and `.` or `..` segments are rejected.
 */
export class S3ObjectStore implements ObjectStore {
  readonly #client: S3Client;
  readonly #bucket: string;

  constructor(client: S3Client, bucket: string) {
    this.#client = client;
    this.#bucket = bucket;
  }

  /** @throws {BadRequestError} for a key the store does not accept. */
  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: checkedKey(key),
        Body: body,
        ContentType: contentType,
      }),
    );
  }

  /** @throws {ObjectNotFoundError} when nothing is stored under `key`. */
  async get(key: string): Promise<Uint8Array> {
    try {
      const { Body: body } = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: checkedKey(key) }),
      );
      if (!body) return new Uint8Array(0);
      return await body.transformToByteArray();
    } catch (error) {
      if (error instanceof NoSuchKey || isNotFound(error)) {
        throw new ObjectNotFoundError(key, { cause: error });
      }
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.#client.send(
        new HeadObjectCommand({ Bucket: this.#bucket, Key: checkedKey(key) }),
      );
      return true;
    } catch (error) {
      if (error instanceof NotFound || isNotFound(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.#client.send(
      new DeleteObjectCommand({ Bucket: this.#bucket, Key: checkedKey(key) }),
    );
  }
}

/** `key`, when every store accepts it. @throws {BadRequestError} otherwise. */
function checkedKey(key: string): string {
  const segments = key.split('/');
  if (
    key === '' ||
    key.startsWith('/') ||
    key.includes('\0') ||
    segments.some((s) => s === '.' || s === '..')
  ) {
    throw new BadRequestError(`object key escapes the store root: ${JSON.stringify(key)}`, {
      details: { key },
    });
  }
  return key;
}

/** A 404 answer (HEAD answers carry no error code, only the status). */
function isNotFound(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata
    ?.httpStatusCode;
  return status === 404;
}
