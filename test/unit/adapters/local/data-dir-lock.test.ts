import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../../../functions/adapters/local/data-dir-lock.js';
import { ConfigError } from '../../../../functions/config.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function newDir(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'data-lock-')), 'data');
  dirs.push(dir);
  return dir;
}

/** A lock as a server killed with SIGKILL leaves it: fresh (just written), with its owner file. */
async function leftLock(dir: string, owner: { pid: number; hostname: string }): Promise<void> {
  await mkdir(join(dir, 'server.lock'), { recursive: true });
  await writeFile(
    join(dir, 'server.lock.owner.json'),
    JSON.stringify({ ...owner, lockedAt: new Date().toISOString() }),
  );
}

/** The pid of a process that has exited (and was reaped). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid;
}

describe('lockDataDir', () => {
  it('refuses a directory another server holds, and frees it on release', async () => {
    // Arrange
    const dir = await newDir();
    const release = await lockDataDir(dir);
    // Act
    const second = lockDataDir(dir);
    // Assert
    await expect(second).rejects.toBeInstanceOf(ConfigError);
    await expect(second).rejects.toThrow(/is in use by another running server/);
    await release();
    const again = await lockDataDir(dir);
    await again();
  });

  it('takes over at once a fresh lock whose holder process no longer exists', async () => {
    // Arrange: the lock is seconds old, far from proper-lockfile's 10 s staleness.
    const dir = await newDir();
    const pid = deadPid();
    await leftLock(dir, { pid, hostname: hostname() });
    // Act
    const release = await lockDataDir(dir);
    // Assert: this process is now the recorded holder, and others are refused.
    const owner = JSON.parse(await readFile(join(dir, 'server.lock.owner.json'), 'utf8')) as {
      pid: number;
    };
    expect(owner.pid).toBe(process.pid);
    await expect(lockDataDir(dir)).rejects.toThrow(/is in use by another running server/);
    await release();
  });

  it('takes over when the liveness check says the holder is gone', async () => {
    // Arrange
    const dir = await newDir();
    await leftLock(dir, { pid: 424242, hostname: hostname() });
    // Act
    const release = await lockDataDir(dir, { isAlive: (pid) => pid !== 424242 });
    // Assert
    expect((await stat(join(dir, 'server.lock'))).isDirectory()).toBe(true);
    await release();
  });

  it('refuses a fresh lock whose holder is alive, naming its pid', async () => {
    // Arrange: the parent of this test process is running.
    const dir = await newDir();
    await leftLock(dir, { pid: process.ppid, hostname: hostname() });
    // Act
    const attempt = lockDataDir(dir);
    // Assert
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(`pid ${String(process.ppid)}`);
  });

  it('refuses a fresh lock held from another host, whose pid cannot be checked', async () => {
    // Arrange
    const dir = await newDir();
    await leftLock(dir, { pid: deadPid(), hostname: `${hostname()}-elsewhere` });
    // Act
    const attempt = lockDataDir(dir, { isAlive: () => false });
    // Assert
    await expect(attempt).rejects.toThrow(/is in use by another running server/);
  });
});
