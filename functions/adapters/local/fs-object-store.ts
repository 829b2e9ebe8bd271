import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { BadRequestError, ObjectNotFoundError } from '../../core/domain/errors.js';
import type { ObjectStore } from '../../core/ports/object-store.js';

/** Error codes meaning "no file under this key" (a missing path, or a directory on the way). */
const NOT_FOUND_CODES: ReadonlySet<string> = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

/**
 * Files under `root`: the local-mode stand-in for S3.
 *
 * A key's `/`-separated segments become directories. Keys that would resolve outside `root`
 * (absolute keys, `..` segments) are rejected. Writes go to a temporary file in the same
 * directory, renamed over the target once complete, so a crashed process leaves either the old
 * object or the new one, never a partial file. Like the embedded table beside it, writes are
 * left to the operating system to flush (no fsync per object): they survive the process, not a
 * power cut of the machine. The content type is not kept.
 */
export class FsObjectStore implements ObjectStore {
  readonly #root: string;

  /** @param root directory holding the objects; created on the first write. */
  constructor(root: string) {
    this.#root = resolve(root);
  }

  /** Writes `body` atomically; the content type is not kept (files carry none). */
  async put(key: string, body: Uint8Array): Promise<void> {
    const file = this.#fileFor(key);
    await mkdir(dirname(file), { recursive: true });
    const temp = join(dirname(file), `.${basename(file)}.${randomUUID()}.tmp`);
    try {
      const handle = await open(temp, 'wx');
      try {
        await handle.writeFile(body);
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Uint8Array> {
    const file = this.#fileFor(key);
    try {
      const data = await readFile(file);
      return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      throw new ObjectNotFoundError(key, { cause: error });
    }
  }

  async exists(key: string): Promise<boolean> {
    const file = this.#fileFor(key);
    try {
      return (await stat(file)).isFile();
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.#fileFor(key);
    if (await this.exists(key)) await rm(file, { force: true });
  }

  /** The file of `key`. @throws {BadRequestError} when the key would leave the root. */
  #fileFor(key: string): string {
    const file = resolve(this.#root, key);
    if (key.includes('\0') || !file.startsWith(this.#root + sep)) {
      throw new BadRequestError(`object key escapes the store root: ${JSON.stringify(key)}`, {
        details: { key },
      });
    }
    return file;
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && NOT_FOUND_CODES.has(code);
}
