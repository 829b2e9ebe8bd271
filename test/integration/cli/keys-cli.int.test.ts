import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoDbApiKeyStore } from '../../../functions/adapters/aws/dynamodb-api-key-store.js';
import { serviceTable } from '../../../functions/adapters/aws/service-table.js';
import { startEmbeddedDynamo } from '../../../functions/adapters/local/embedded-dynamo.js';
import { startLocalServer, type LocalServer } from '../../../functions/local-server.js';
import { loadConfig } from '../../../functions/config.js';
import { authenticate } from '../../../functions/core/app/authenticate.js';

/**
 * `npm run keys` as its users run it: `bin/keys.ts` in its own Node.js process (through tsx),
 * against a temporary data directory that a local server opens afterwards, and against a table
 * reached by endpoint as a deployed one would be.
 */

const ROOT = resolve(import.meta.dirname, '../../..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `bin/keys.ts` with `args` and waits for it to exit. */
function keys(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/keys.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', fail);
    child.once('close', (code) => {
      done({ code, stdout, stderr });
    });
  });
}

/** What `--json` prints for an issued key. */
interface Issued {
  id: string;
  key: string;
  tenant: string;
  plan: string;
  label: string | null;
  rotatedFrom: string | null;
}

const dirs: string[] = [];

async function aDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'docparse-keys-'));
  dirs.push(dir);
  return join(dir, 'data');
}

/** A local server on `dataDir`, with no API_KEYS (so only the demo key and the CLI's). */
async function serverOn(dataDir: string): Promise<LocalServer> {
  const config = loadConfig({ RUNTIME_MODE: 'local', DATA_DIR: dataDir, PORT: '0' });
  if (config.RUNTIME_MODE !== 'local') throw new Error('local config expected');
  return startLocalServer(config);
}

/** The status and detail of an authenticated GET /v1/providers with `key`. */
async function callWith(server: LocalServer, key: string) {
  const res = await fetch(`${server.url}/v1/providers`, { headers: { 'x-api-key': key } });
  const body = (await res.json()) as { detail?: unknown };
  return { status: res.status, detail: body.detail };
}

/** Starts a server on `dataDir`, runs `fn` against it, and stops it (releasing the directory). */
async function withServer<T>(dataDir: string, fn: (server: LocalServer) => Promise<T>): Promise<T> {
  const server = await serverOn(dataDir);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

beforeAll(() => {
  // The server only authenticates here: no document engines to load.
  vi.stubEnv('DOCPARSE_BUNDLE_ENGINES', 'off');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('npm run keys', () => {
  it('creates, lists, rotates and revokes keys that a local server accepts or refuses', async () => {
    // Arrange
    const dataDir = await aDataDir();
    const at = ['--data-dir', dataDir];

    // Act: create
    const created = await keys([
      'create',
      '--tenant',
      'acme',
      '--plan',
      'pro',
      '--label',
      'ci runner',
      '--json',
      ...at,
    ]);
    // Assert
    expect(created.code).toBe(0);
    const first = JSON.parse(created.stdout) as Issued;
    expect(first).toMatchObject({ tenant: 'acme', plan: 'pro', label: 'ci runner' });
    expect(first.id).toMatch(/^key_[0-9a-f]{12}$/);
    expect(first.key).toMatch(/^dp_/);

    // Act: list, as a table and as JSON
    const listed = await keys(['list', ...at]);
    const listedJson = await keys(['list', '--tenant', 'acme', '--json', ...at]);
    // Assert
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID +TENANT +PLAN +CREATED +REVOKED +LABEL\n/);
    expect(listed.stdout).toMatch(new RegExp(`${first.id} +acme +pro +\\S+ +- +ci runner`));
    expect(JSON.parse(listedJson.stdout)).toEqual([
      expect.objectContaining({ id: first.id, revokedAt: null }),
    ]);
    for (const run of [listed, listedJson]) {
      expect(run.stdout + run.stderr).not.toContain(first.key);
    }
    await withServer(dataDir, async (server) => {
      expect(await callWith(server, first.key)).toMatchObject({ status: 200 });
    });

    // Act: rotate
    const rotated = await keys(['rotate', first.id, '--json', ...at]);
    // Assert: both keys work until the old one is revoked
    expect(rotated.code).toBe(0);
    const second = JSON.parse(rotated.stdout) as Issued;
    expect(second).toMatchObject({
      tenant: 'acme',
      plan: 'pro',
      label: 'ci runner',
      rotatedFrom: first.id,
    });
    expect(second.key).not.toBe(first.key);
    await withServer(dataDir, async (server) => {
      expect(await callWith(server, first.key)).toMatchObject({ status: 200 });
      expect(await callWith(server, second.key)).toMatchObject({ status: 200 });
    });

    // Act: revoke the old key
    const revoked = await keys(['revoke', first.id, ...at]);
    // Assert: only the new key works
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked ${first.id}`);
    await withServer(dataDir, async (server) => {
      expect(await callWith(server, first.key)).toStrictEqual({
        status: 401,
        detail: 'API key revoked',
      });
      expect(await callWith(server, second.key)).toMatchObject({ status: 200 });
    });
    const after = JSON.parse((await keys(['list', '--json', ...at])).stdout) as {
      id: string;
      revokedAt: string | null;
    }[];
    expect(after.find((k) => k.id === first.id)?.revokedAt).toEqual(expect.any(String));
    expect(after.find((k) => k.id === second.id)?.revokedAt).toBeNull();
  });

  it('fails with exit code 1 while a local server holds the data directory', async () => {
    // Arrange
    const dataDir = await aDataDir();
    await withServer(dataDir, async () => {
      // Act
      const run = await keys(['create', '--tenant', 'acme', '--data-dir', dataDir]);
      // Assert
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        'the local server is running on this data directory; stop it first',
      );
      expect(run.stdout).toBe('');
    });
  });

  it('fails with exit code 1 for an unknown key id', async () => {
    // Arrange
    const dataDir = await aDataDir();
    await keys(['create', '--tenant', 'acme', '--data-dir', dataDir]);
    // Act
    const run = await keys(['revoke', 'key_000000000000', '--data-dir', dataDir]);
    // Assert
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no API key has the id key_000000000000');
  });

  it('fails with exit code 2 and prints the usage for a usage error', async () => {
    // Act
    const run = await keys(['create', '--plan', 'pro']);
    // Assert
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('create needs --tenant');
    expect(run.stderr).toContain('usage: npm run keys -- <command> [options]');
  });

  it('manages the keys of a deployed table with --table, --endpoint and --region', async () => {
    // Arrange
    const dynamo = await startEmbeddedDynamo();
    try {
      await dynamo.ensureTable(serviceTable('deployed'));
      const target = ['--table', 'deployed', '--endpoint', dynamo.endpoint, '--region', 'local'];
      const credentials = { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' };
      // Act
      const created = await keys(['create', '--tenant', 'beta', '--json', ...target], credentials);
      const issued = JSON.parse(created.stdout) as Issued;
      const revoked = await keys(['revoke', issued.id, ...target], credentials);
      // Assert
      expect([created.code, revoked.code]).toStrictEqual([0, 0]);
      const store = new DynamoDbApiKeyStore(dynamo.documentClient, 'deployed');
      await expect(authenticate(store, issued.key)).rejects.toThrow('API key revoked');
      expect(await store.list('beta')).toMatchObject([{ keyId: issued.id, plan: 'free' }]);
    } finally {
      await dynamo.stop();
    }
  });
});
