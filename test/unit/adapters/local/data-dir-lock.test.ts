import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { once } from 'node:events';
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

  it("lets exactly one of two servers starting together take over a dead holder's directory", async () => {
    // The second server starts 0 to 12 ms after the first: anywhere in the first one's takeover.
    for (let round = 0; round < 26; round++) {
      // Arrange
      const dir = await newDir();
      await leftLock(dir, { pid: deadPid(), hostname: hostname() });
      const lag = round % 13;
      // Act
      const attempts = await Promise.allSettled([
        lockDataDir(dir),
        new Promise((resolve) => setTimeout(resolve, lag)).then(() => lockDataDir(dir)),
      ]);
      // Assert
      const won = attempts.filter((attempt) => attempt.status === 'fulfilled');
      const lost = attempts.filter((attempt) => attempt.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]?.reason).toBeInstanceOf(ConfigError);
      expect((lost[0]?.reason as Error).message).toMatch(/is in use by another running server/);
      await won[0]?.value();
    }
  });

  it('takes the directory past a claim left by a process that died while starting', async () => {
    // Arrange: a claim a minute old (a live claimer refreshes it every 1.5 s)
    const dir = await newDir();
    const claim = join(dir, 'server.lock.claim');
    await mkdir(claim, { recursive: true });
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(claim, minuteAgo, minuteAgo);
    // Act
    const release = await lockDataDir(dir);
    // Assert
    expect((await stat(join(dir, 'server.lock'))).isDirectory()).toBe(true);
    await release();
  });

  it('tells onCompromised when the lock it holds is removed', async () => {
    // Arrange: refreshed every second
    const dir = await newDir();
    let compromised: (error: Error) => void = () => undefined;
    const reported = new Promise<Error>((resolve) => (compromised = resolve));
    const release = await lockDataDir(dir, { staleMs: 2000, onCompromised: compromised });
    // Act
    await rm(join(dir, 'server.lock'), { recursive: true });
    const error = await reported;
    // Assert
    expect(error).toHaveProperty('code', 'ECOMPROMISED');
    await expect(release()).resolves.toBeUndefined();
  });

  it('fails the holding process (exit code 1, an error logged) when its lock is compromised', async () => {
    // Arrange
    const dir = await newDir();
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, '../../../support/hold-data-dir-lock.ts'), dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    holder.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(holder, 'exit') as Promise<[number | null, string | null]>;
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('locked')) resolve();
        });
        void exited.then(() => {
          reject(new Error(`the holder exited before locking: ${stderr}`));
        });
      });
      // Act
      await rm(join(dir, 'server.lock'), { recursive: true });
      const [code] = await exited;
      // Assert
      expect(code).toBe(1);
      expect(stderr).toMatch(/the lock on DATA_DIR .* was lost/);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
