import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { USAGE, runKeys } from '../../../bin/keys.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function aDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'keys-cli-'));
  dirs.push(dir);
  return join(dir, 'data');
}

/** Runs the CLI in this process, capturing what it prints. */
async function keys(argv: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const code = await runKeys(argv, {
    out: (text) => (out += `${text}\n`),
    err: (text) => (err += `${text}\n`),
    env,
    now: () => new Date('2026-01-02T03:04:05.000Z'),
  });
  return { code, out, err };
}

describe('runKeys (npm run keys)', () => {
  it.each([
    [[], 'name a command'],
    [['bogus'], 'unknown command "bogus"'],
    [['create'], 'create needs --tenant'],
    [['create', '--tenant', 'a/b'], '--tenant must be'],
    [['create', '--tenant', 'acme', '--plan', 'gold'], '--plan must be one of free, pro, scale'],
    [['create', '--tenant', 'acme', 'extra'], 'create takes no arguments'],
    [['list', '--plan', 'pro'], 'list takes no --plan'],
    [['list', '--nope'], "Unknown option '--nope'"],
    [['revoke'], 'revoke takes one key id'],
    [['rotate', 'key_000000000000', 'key_000000000001'], 'rotate takes one key id'],
    [['revoke', 'acme'], '"acme" is not a key id'],
    [['revoke', 'key_000000000000', '--label', 'x'], 'revoke takes no --label'],
    [['list', '--table', 'docparse', '--data-dir', '.data'], 'not both'],
    [['list', '--region', 'eu-west-1'], '--endpoint and --region go with --table'],
  ])('fails with exit code 2 and the usage for %j', async (argv, message) => {
    // Act
    const run = await keys(argv);
    // Assert
    expect(run.code).toBe(2);
    expect(run.err).toContain(message);
    expect(run.err).toContain(USAGE);
    expect(run.out).toBe('');
  });

  it('prints the usage and exits with 0 for --help', async () => {
    // Act
    const run = await keys(['revoke', '--help']);
    // Assert
    expect(run).toStrictEqual({ code: 0, out: `${USAGE}\n`, err: '' });
  });

  it('lists no keys, and creates nothing, for a data directory without a store', async () => {
    // Arrange
    const dataDir = await aDataDir();
    // Act
    const listed = await keys(['list', '--data-dir', dataDir]);
    const revoked = await keys(['revoke', 'key_000000000000', '--data-dir', dataDir]);
    // Assert
    expect(listed).toStrictEqual({ code: 0, out: 'no API keys\n', err: '' });
    expect(revoked.code).toBe(1);
    expect(revoked.err).toContain('no API key has the id key_000000000000');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('fails with exit code 2 for an invalid label, issuing no key', async () => {
    // Arrange
    const dataDir = await aDataDir();
    // Act
    const run = await keys(['create', '--tenant', 'acme', '--label', ' ', '--data-dir', dataDir]);
    // Assert
    expect(run.code).toBe(2);
    expect(run.err).toContain('label must be 1 to 100 characters');
    expect((await keys(['list', '--data-dir', dataDir])).out).toBe('no API keys\n');
  });

  it('uses DATA_DIR without --data-dir, printing a created key once and listing it without it', async () => {
    // Arrange
    const env = { DATA_DIR: await aDataDir() };
    // Act
    const created = await keys(['create', '--tenant', 'acme', '--label', 'ci'], env);
    const listed = await keys(['list', '--tenant', 'acme'], env);
    const other = await keys(['list', '--tenant', 'other'], env);
    // Assert
    expect(created.code).toBe(0);
    const id = /^id: +(key_[0-9a-f]{12})$/m.exec(created.out)?.[1];
    const key = /^key: +(dp_\S+)$/m.exec(created.out)?.[1];
    expect(created.out).toMatch(/^plan: +free$/m);
    expect(created.err).toContain('shown this once only');
    expect(listed.out).toBe(
      [
        'ID                TENANT  PLAN  CREATED                   REVOKED  LABEL',
        `${String(id)}  acme    free  2026-01-02T03:04:05.000Z  -        ci`,
        '',
      ].join('\n'),
    );
    expect(listed.out).not.toContain(String(key));
    expect(other.out).toBe('no API keys for tenant other\n');
  });

  it('says so when a key was revoked already, and rotates it into a replacement', async () => {
    // Arrange
    const at = ['--data-dir', await aDataDir()];
    const created = await keys(['create', '--tenant', 'acme', '--json', ...at]);
    const { id } = JSON.parse(created.out) as { id: string };
    await keys(['revoke', id, ...at]);
    // Act
    const again = await keys(['revoke', id, ...at]);
    const rotated = await keys(['rotate', id, ...at]);
    // Assert
    expect(again.out).toBe(`${id} was revoked already, at 2026-01-02T03:04:05.000Z\n`);
    expect(rotated.code).toBe(0);
    expect(rotated.out).toContain(`replaces: ${id}`);
    expect(rotated.err).not.toContain('keeps working');
  });
});
