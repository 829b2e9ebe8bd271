import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { ConfigError } from '../../config.js';

/** Milliseconds after which the lock of a process that died is taken over. */
const STALE_MS = 10_000;

/**
 * Claims `dir` for this process (`<dir>/server.lock`, kept fresh while the process runs; a lock
 * left by a process that died is taken over after 10 s), creating the directory if needed.
 *
 * @returns a function that releases the claim.
 * @throws {ConfigError} when another running server holds the directory.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const root = resolve(dir);
  await mkdir(root, { recursive: true });
  try {
    return await lockfile.lock(root, {
      lockfilePath: join(root, 'server.lock'),
      stale: STALE_MS,
      retries: 0,
      onCompromised: (error) => {
        console.error(`the lock on DATA_DIR ${root} was lost`, error);
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new ConfigError(
        `DATA_DIR ${root} is in use by another running server; stop it or set another DATA_DIR`,
        { cause: error },
      );
    }
    throw error;
  }
}
