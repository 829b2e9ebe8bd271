/** Byte storage for uploads, page images, intermediate work and results, addressed by opaque `/`-separated keys. */
export interface ObjectStore {
  /** Stores `body` under `key`, replacing what was there (idempotent). */
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** @throws {ObjectNotFoundError} when nothing is stored under `key`. */
  get(key: string): Promise<Uint8Array>;
  /** True when an object is stored under `key`. */
  exists(key: string): Promise<boolean>;
  /** Removes the object; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
}
