import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { BadRequestError, ObjectNotFoundError } from '../../core/domain/errors.js';
import type { ObjectStore } from '../../core/ports/object-store.js';
import { RecentlyUsed } from '../recently-used.js';
import { countStorageCall } from '../storage-calls.js';

/** Largest object kept in memory by an only-writer store, and the most kept in all. */
const MAX_KEPT_OBJECT = 256 * 1024;
const MAX_KEPT_BYTES = 32 * 1024 * 1024;

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
  /** Recently written small objects, when this store is the only writer of its directory. */
  readonly #recent: RecentlyUsed<string, Uint8Array> | undefined;

  /**
   * @param root directory holding the objects; created on the first write.
   * @param options.onlyWriter this store makes every write under `root` (one process): it then
   *   answers reads of the objects it recently wrote (up to 256 KiB each, 32 MiB in all) from
   *   memory. Never set it where other processes write the directory.
   */
  constructor(root: string, options: { onlyWriter?: boolean } = {}) {
    this.#root = resolve(root);
    this.#recent =
      options.onlyWriter === true
        ? new RecentlyUsed({ maxWeight: MAX_KEPT_BYTES, weigh: (bytes) => bytes.byteLength })
        : undefined;
  }

  /** Keeps a copy of a small object just written; the least recent ones go first. */
  #keep(key: string, body: Uint8Array | undefined): void {
    if (body && body.byteLength <= MAX_KEPT_OBJECT) this.#recent?.set(key, body.slice());
    else this.#recent?.delete(key);
  }

  /** Writes `body` atomically; the content type is not kept (files carry none). */
  async put(key: string, body: Uint8Array): Promise<void> {
    countStorageCall('object put');
    const file = this.#fileFor(key);
    await mkdir(dirname(file), { recursive: true });
    const temp = join(dirname(file), `.${basename(file)}.${randomUUID()}.tmp`);
    try {
      // The retention sweep removes directories it empties: one may go between mkdir and open.
      const handle = await open(temp, 'wx').catch(async (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        await mkdir(dirname(file), { recursive: true });
        return open(temp, 'wx');
      });
      try {
        await handle.writeFile(body);
      } finally {
        await handle.close();
      }
      await rename(temp, file);
      this.#keep(key, body);
    } catch (error) {
      await rm(temp, { force: true });
      this.#keep(key, undefined);
      throw error;
    }
  }

  async get(key: string): Promise<Uint8Array> {
    const file = this.#fileFor(key);
    const kept = this.#recent?.get(key);
    if (kept) {
      countStorageCall('object get (kept in memory)');
      return kept.slice();
    }
    countStorageCall('object get');
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
    this.#keep(key, undefined);
    if (await this.exists(key)) await rm(file, { force: true });
  }

  /**
   * Deletes the objects under `prefix` (a key prefix ending in `/`, e.g. `uploads/`) last written
   * before `cutoff`, and the directories that leaves empty: the local stand-in for an S3
   * lifecycle expiration rule. Temporary files of writes abandoned by a crash count as objects.
   * Files that vanish meanwhile are skipped.
   * @returns how many objects were deleted.
   * @throws {BadRequestError} when the prefix would leave the root.
   */
  async deleteOlderThan(prefix: string, cutoff: Date): Promise<number> {
    const dir = this.#fileFor(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
    return this.#sweep(dir, cutoff.getTime());
  }

  /** Deletes the files of `dir` (recursively) modified before `cutoffMs`; removes it if emptied. */
  async #sweep(dir: string, cutoffMs: number): Promise<number> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isNotFound(error)) return 0;
      throw error;
    }
    let deleted = 0;
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        deleted += await this.#sweep(path, cutoffMs);
        continue;
      }
      try {
        if ((await stat(path)).mtimeMs >= cutoffMs) continue;
        this.#recent?.delete(relative(this.#root, path).split(sep).join('/'));
        await rm(path, { force: true });
        deleted += 1;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    // Only an empty directory goes (a write may have just created it: that is fine, put
    // recreates its directory).
    if (dir !== this.#root) {
      await rmdir(dir).catch(() => undefined);
    }
    return deleted;
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
