import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startModuleWorker } from '../../../functions/engines/module-worker.js';
import { TURBOFAN_INVOCATIONS } from '../../../functions/engines/v8-tiering.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const BASE = pathToFileURL(join(ROOT, 'test/fixtures/workers/entry.ts')).href;
const CACHE = join(ROOT, 'node_modules/.cache/docparse-workers');

interface Echo {
  url: string;
  value: number;
  execArgv: string[];
}

/** The first message of `worker`, or its error; the worker is stopped either way. */
function firstMessage(worker: Worker): Promise<unknown> {
  return new Promise<unknown>((resolvePromise, reject) => {
    worker.once('message', resolvePromise);
    worker.once('error', reject);
  }).finally(() => void worker.terminate());
}

describe('startModuleWorker under TypeScript', () => {
  it("runs the entry's modules bundled under node_modules/.cache, without a loader", async () => {
    // Act
    const echo = (await firstMessage(startModuleWorker(BASE, 'echo-worker', {}))) as Echo;
    // Assert
    const file = fileURLToPath(echo.url);
    expect(dirname(file)).toBe(CACHE);
    expect(file).toMatch(/[/\\]echo-worker-[0-9a-f]{16}\.mjs$/);
    expect(echo.value).toBe(TURBOFAN_INVOCATIONS);
    expect(echo.execArgv.join(' ')).not.toMatch(/tsx/);
  });

  it('writes the bundle again for the next worker when it was removed meanwhile', async () => {
    // Arrange
    const first = (await firstMessage(startModuleWorker(BASE, 'echo-worker', {}))) as Echo;
    expect(dirname(fileURLToPath(first.url))).toBe(CACHE);
    rmSync(fileURLToPath(first.url));
    // Act
    const second = (await firstMessage(startModuleWorker(BASE, 'echo-worker', {}))) as Echo;
    // Assert
    expect(second.url).toBe(first.url);
    expect(second.value).toBe(TURBOFAN_INVOCATIONS);
    expect(statSync(fileURLToPath(second.url)).isFile()).toBe(true);
  });

  it("removes another entry version's bundle unused for over a week, and keeps a recent one", async () => {
    // Arrange: bundles of other code of an entry not bundled yet in this process.
    mkdirSync(CACHE, { recursive: true });
    const stale = join(CACHE, 'other-echo-worker-0000000000000000.mjs');
    const recent = join(CACHE, 'other-echo-worker-1111111111111111.mjs');
    writeFileSync(stale, 'export {};\n');
    writeFileSync(recent, 'export {};\n');
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3_600_000);
    utimesSync(stale, eightDaysAgo, eightDaysAgo);
    // Act
    const echo = (await firstMessage(startModuleWorker(BASE, 'other-echo-worker', {}))) as Echo;
    // Assert
    const left = readdirSync(CACHE).filter((file) => file.startsWith('other-echo-worker-'));
    expect(echo.value).toBe(TURBOFAN_INVOCATIONS);
    expect(left).not.toContain('other-echo-worker-0000000000000000.mjs');
    expect(left).toContain('other-echo-worker-1111111111111111.mjs');
    expect(left).toContain(fileURLToPath(echo.url).split(/[/\\]/).pop());
    rmSync(recent, { force: true });
  });

  it('reports the error of an entry that does not compile, through tsx', async () => {
    // Act
    const base = pathToFileURL(join(ROOT, 'test/fixtures/uncompiled-worker/entry.ts')).href;
    const outcome = firstMessage(startModuleWorker(base, 'broken-worker', {}));
    // Assert
    await expect(outcome).rejects.toThrow(/no-such-module/);
  });
});
