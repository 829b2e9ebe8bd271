import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { ConfigError } from '../../config.js';

/**
 * Milliseconds after which a lock whose holder cannot be checked (another host, no owner file)
 * is taken over: proper-lockfile refreshes the lock's mtime every `STALE_MS / 2` while its holder
 * runs.
 */
const STALE_MS = 10_000;

/** The lock directory (proper-lockfile's atomic `mkdir`) and its holder's description beside it. */
const LOCK_NAME = 'server.lock';
const OWNER_NAME = 'server.lock.owner.json';

/** Who holds the lock, written beside it once it is taken. */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** ISO-8601 instant the holder took the lock. */
  lockedAt: string;
}

/** Options of {@link lockDataDir}; tests replace the liveness check. */
export interface LockDataDirOptions {
  /**
   * Whether process `pid` of this host is running.
   * @default - `process.kill(pid, 0)`: false on ESRCH, true otherwise (EPERM: it runs as another user)
   */
  isAlive?: (pid: number) => boolean;
}

/**
 * Claims `dir` for this process, creating the directory if needed: `<dir>/server.lock` (an
 * atomic `mkdir` by proper-lockfile, kept fresh while the process runs) and beside it
 * `<dir>/server.lock.owner.json` naming the holder (`{ pid, hostname, lockedAt }`).
 *
 * When the directory is locked already, the holder is checked at once: if it ran on this host
 * and its pid no longer exists (a server killed with SIGKILL, a crash), the lock is taken over
 * immediately. A holder that is alive, or that cannot be checked (another host, no owner file),
 * keeps the directory; such a lock is taken over only once stale (not refreshed for 10 s).
 *
 * @returns a function that releases the claim.
 * @throws {ConfigError} when another running server holds the directory.
 */
export async function lockDataDir(
  dir: string,
  options: LockDataDirOptions = {},
): Promise<() => Promise<void>> {
  const root = resolve(dir);
  const isAlive = options.isAlive ?? processIsAlive;
  await mkdir(root, { recursive: true });
  const lockPath = join(root, LOCK_NAME);
  const ownerPath = join(root, OWNER_NAME);
  let release: () => Promise<void>;
  try {
    release = await lock(root, lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    const owner = await readOwner(ownerPath);
    if (owner === undefined || owner.hostname !== hostname() || isAlive(owner.pid)) {
      const holder = owner === undefined ? '' : ` (pid ${owner.pid} on ${owner.hostname})`;
      throw new ConfigError(
        `DATA_DIR ${root} is in use by another running server${holder}; stop it or set another DATA_DIR`,
        { cause: error },
      );
    }
    // The holder is dead: its lock is removed and taken again. The removal is a rename first,
    // so that of two servers starting together only one removes it.
    const tomb = `${lockPath}.dead-${String(owner.pid)}-${String(process.pid)}`;
    try {
      await rename(lockPath, tomb);
    } catch (renameError) {
      if ((renameError as NodeJS.ErrnoException).code !== 'ENOENT') throw renameError;
    }
    await rm(tomb, { recursive: true, force: true });
    try {
      release = await lock(root, lockPath);
    } catch (retryError) {
      if ((retryError as NodeJS.ErrnoException).code !== 'ELOCKED') throw retryError;
      throw new ConfigError(
        `DATA_DIR ${root} is in use by another running server; stop it or set another DATA_DIR`,
        { cause: retryError },
      );
    }
  }
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    lockedAt: new Date().toISOString(),
  };
  const temp = `${ownerPath}.${String(process.pid)}.tmp`;
  await writeFile(temp, JSON.stringify(owner));
  await rename(temp, ownerPath);
  return async () => {
    await rm(ownerPath, { force: true });
    await release();
  };
}

function lock(root: string, lockPath: string): Promise<() => Promise<void>> {
  return lockfile.lock(root, {
    lockfilePath: lockPath,
    stale: STALE_MS,
    retries: 0,
    onCompromised: (error) => {
      console.error(`the lock on DATA_DIR ${root} was lost`, error);
    },
  });
}

/** The recorded holder of the lock, or undefined when there is no readable record. */
async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(path, 'utf8')) as Partial<LockOwner>;
    if (!Number.isSafeInteger(owner.pid) || typeof owner.hostname !== 'string') return undefined;
    return owner as LockOwner;
  } catch {
    return undefined;
  }
}

/** `process.kill(pid, 0)`: ESRCH means no such process; EPERM means one runs as another user. */
function processIsAlive(pid: number): boolean {
  if (pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
