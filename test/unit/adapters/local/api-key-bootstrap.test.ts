import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bootstrapApiKeys,
  demoKeyFile,
} from '../../../../functions/adapters/local/api-key-bootstrap.js';
import { apiKeyId } from '../../../../functions/core/app/api-keys.js';
import { authenticate, hashApiKey } from '../../../../functions/core/app/authenticate.js';
import { InMemoryApiKeyStore } from '../../../support/fakes.js';

const T0 = new Date('2026-01-02T03:04:05.000Z');
const T1 = new Date('2026-02-03T04:05:06.000Z');

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function aDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'key-bootstrap-'));
  dirs.push(dir);
  return dir;
}

describe('bootstrapApiKeys', () => {
  it('registers the configured keys with their ids, labelled API_KEYS', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    // Act
    const { demoKey } = await bootstrapApiKeys(
      store,
      [{ key: 'key-alpha', tenant: 'alpha', plan: 'pro' }],
      await aDataDir(),
      T0,
    );
    // Assert
    expect(demoKey).toBeUndefined();
    expect(await store.list()).toStrictEqual([
      {
        keyId: apiKeyId(hashApiKey('key-alpha')),
        keyHash: hashApiKey('key-alpha'),
        tenant: 'alpha',
        plan: 'pro',
        createdAt: T0.toISOString(),
        label: 'API_KEYS',
      },
    ]);
  });

  it('revokes the demo key of an earlier start once API_KEYS is set, and removes its file', async () => {
    // Arrange: a first start without API_KEYS made a demo key.
    const store = new InMemoryApiKeyStore();
    const dataDir = await aDataDir();
    const { demoKey } = await bootstrapApiKeys(store, undefined, dataDir, T0);
    // Act
    await bootstrapApiKeys(
      store,
      [{ key: 'key-alpha', tenant: 'alpha', plan: 'pro' }],
      dataDir,
      T1,
    );
    // Assert
    await expect(authenticate(store, demoKey)).rejects.toThrow(/revoked/);
    await expect(readFile(demoKeyFile(dataDir), 'utf8')).rejects.toThrow(/ENOENT/);
    expect((await authenticate(store, 'key-alpha')).tenant).toBe('alpha');
  });

  it('keeps a configured key revoked on the next start, and its id and creation time', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const dataDir = await aDataDir();
    const alpha = { key: 'key-alpha', tenant: 'alpha', plan: 'pro' as const };
    await bootstrapApiKeys(store, [alpha], dataDir, T0);
    await store.revoke(apiKeyId(hashApiKey('key-alpha')), T0);
    // Act
    await bootstrapApiKeys(store, [{ ...alpha, plan: 'scale' }], dataDir, T1);
    // Assert
    await expect(authenticate(store, 'key-alpha')).rejects.toThrow('API key revoked');
    expect(await store.get(hashApiKey('key-alpha'))).toMatchObject({
      plan: 'scale',
      createdAt: T0.toISOString(),
      revokedAt: T0.toISOString(),
    });
  });

  it('creates a demo key once, keeps it in the data directory and reuses it', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const dataDir = await aDataDir();
    // Act
    const first = await bootstrapApiKeys(store, undefined, dataDir, T0);
    const second = await bootstrapApiKeys(store, [], dataDir, T1);
    // Assert
    expect(second.demoKey).toBe(first.demoKey);
    expect((await readFile(demoKeyFile(dataDir), 'utf8')).trim()).toBe(first.demoKey);
    expect(await authenticate(store, first.demoKey)).toMatchObject({
      tenant: 'demo',
      plan: 'pro',
      label: 'demo',
      createdAt: T0.toISOString(),
    });
  });

  it('replaces a revoked demo key with a new one', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const dataDir = await aDataDir();
    const { demoKey: revoked } = await bootstrapApiKeys(store, undefined, dataDir, T0);
    await store.revoke(apiKeyId(hashApiKey(String(revoked))), T0);
    // Act
    const { demoKey } = await bootstrapApiKeys(store, undefined, dataDir, T1);
    // Assert
    expect(demoKey).not.toBe(revoked);
    expect((await readFile(demoKeyFile(dataDir), 'utf8')).trim()).toBe(demoKey);
    expect(await authenticate(store, demoKey)).toMatchObject({ tenant: 'demo' });
    await expect(authenticate(store, revoked)).rejects.toThrow('API key revoked');
  });
});
