import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../../../functions/adapters/local/data-dir-lock.js';
import { ConfigError } from '../../../../functions/config.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('lockDataDir', () => {
  it('refuses a directory another server holds, and frees it on release', async () => {
    // Arrange
    const dir = join(await mkdtemp(join(tmpdir(), 'data-lock-')), 'data');
    dirs.push(dir);
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
});
