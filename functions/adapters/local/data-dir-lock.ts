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
/**
 * A second, short-lived lock held while the main lock is checked, taken (or taken over) and its
 * owner file written, so that two servers starting together never both take it.
 */
const CLAIM_NAME = 'server.lock.claim';
/**
 * A claim left by a process that died while holding it (it holds it for milliseconds) is stale
 * after this; proper-lockfile's minimum is 2 s.
 */
const CLAIM_STALE_MS = 3_000;
/** How a starting server waits for another's claim: about 6 s in all, past CLAIM_STALE_MS. */
const CLAIM_RETRIES = { retries: 30, factor: 1.3, minTimeout: 20, maxTimeout: 400 };

/** Who holds the lock, written beside it once it is taken. */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** ISO-8601 instant the holder took the lock. */
  lockedAt: string;
}

/** Options of {@link lockDataDir}; tests replace the liveness check and shorten the staleness. */
export interface LockDataDirOptions {
  /**
   * Whether process `pid` of this host is running.
   * @default - `process.kill(pid, 0)`: false on ESRCH, true otherwise (EPERM: it runs as another user)
   */
  isAlive?: (pid: number) => boolean;
  /**
   * Called when the lock is found compromised while held: its directory was removed, or its
   * mtime changed under this process (another process took it over after this one failed to
   * refresh it for `staleMs`, a suspended machine, a busy event loop). From then on another
   * server may be writing to the directory, so this one must stop writing.
   * @default - logs the error and ends the process with exit code 1
   */
  onCompromised?: (error: Error) => void;
  /**
   * Milliseconds without a refresh (every `staleMs / 2`) after which the lock is stale, for a
   * holder that cannot be checked; proper-lockfile's minimum is 2000.
   * @default 10000
   */
  staleMs?: number;
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
 * All of this (the check, the takeover, the owner file) runs under a second lock,
 * `<dir>/server.lock.claim`, held for milliseconds: of two servers starting together on a dead
 * holder's directory, exactly one takes it over and the other is refused as for a live holder.
 *
 * While held, the lock is refreshed; if proper-lockfile finds it compromised (removed, or taken
 * over by another process), `onCompromised` runs: by default the process logs it and exits with
 * code 1 rather than go on writing beside another server.
 *
 * @returns a function that releases the claim.
 * @throws {ConfigError} when another running server holds the directory (or is claiming it).
 */
export async function lockDataDir(
  dir: string,
  options: LockDataDirOptions = {},
): Promise<() => Promise<void>> {
  const root = resolve(dir);
  await mkdir(root, { recursive: true });
  const lockPath = join(root, LOCK_NAME);
  const ownerPath = join(root, OWNER_NAME);
  const releaseClaim = await claim(root);
  let release: () => Promise<void>;
  try {
    release = await takeLock(root, lockPath, ownerPath, options);
    const owner: LockOwner = {
      pid: process.pid,
      hostname: hostname(),
      lockedAt: new Date().toISOString(),
    };
    const temp = `${ownerPath}.${String(process.pid)}.tmp`;
    await writeFile(temp, JSON.stringify(owner));
    await rename(temp, ownerPath);
  } finally {
    await releaseClaim();
  }
  return async () => {
    await rm(ownerPath, { force: true });
    try {
      await release();
    } catch (error) {
      // A compromised lock is released already; onCompromised has said so.
      if ((error as NodeJS.ErrnoException).code !== 'ERELEASED') throw error;
    }
  };
}

/** Takes `<root>/server.lock.claim`, waiting a few seconds for another server's claim. */
async function claim(root: string): Promise<() => Promise<void>> {
  const claimPath = join(root, CLAIM_NAME);
  try {
    return await lockfile.lock(claimPath, {
      realpath: false,
      lockfilePath: claimPath,
      stale: CLAIM_STALE_MS,
      retries: CLAIM_RETRIES,
      // Held for milliseconds; the main lock is what protects the directory.
      onCompromised: () => undefined,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    throw new ConfigError(
      `DATA_DIR ${root} is being claimed by another server starting now; stop it or set another DATA_DIR`,
      { cause: error },
    );
  }
}

/** Takes the main lock, at once over a dead holder of this host; run under the claim. */
async function takeLock(
  root: string,
  lockPath: string,
  ownerPath: string,
  options: LockDataDirOptions,
): Promise<() => Promise<void>> {
  const isAlive = options.isAlive ?? processIsAlive;
  try {
    return await lock(root, lockPath, options);
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
  }
  // The holder is dead: its lock is removed and taken again. Under the claim no other server is
  // between the check above and this; one that does not claim (an older version) could still
  // take the lock first, and then this lock() fails as for any live holder.
  await rm(lockPath, { recursive: true, force: true });
  try {
    return await lock(root, lockPath, options);
  } catch (retryError) {
    if ((retryError as NodeJS.ErrnoException).code !== 'ELOCKED') throw retryError;
    throw new ConfigError(
      `DATA_DIR ${root} is in use by another running server; stop it or set another DATA_DIR`,
      { cause: retryError },
    );
  }
}

function lock(
  root: string,
  lockPath: string,
  options: LockDataDirOptions,
): Promise<() => Promise<void>> {
  return lockfile.lock(root, {
    lockfilePath: lockPath,
    stale: options.staleMs ?? STALE_MS,
    retries: 0,
    onCompromised: options.onCompromised ?? ((error) => stopServing(root, error)),
  });
}

/**
 * The default reaction to a compromised lock: another server may now write to `root`, so this
 * process stops at once rather than write beside it (exit code 1, as for a DATA_DIR in use).
 */
function stopServing(root: string, error: Error): never {
  console.error(
    `docparse: the lock on DATA_DIR ${root} was lost (${error.message}); another server may be using the directory, so this one stops`,
  );
  process.exit(1);
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
