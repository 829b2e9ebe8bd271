/**
 * Robustness bench: starts the local service and runs `../shared/bench/hostile-check.mjs` over
 * the hostile corpus, uploading each file through the HTTP API (`bench/upload.mjs`).
 *
 *   npm run bench:hostile
 */
import '../functions/polyfills.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLocalServer } from '../functions/adapters/local/server.js';
import { loadConfig } from '../functions/config.js';

const ROOT = resolve(import.meta.dirname, '..');
const SHARED = resolve(ROOT, '../shared');
const KEY = 'bench-key-0001';
const dataDir = mkdtempSync(join(tmpdir(), 'docparse-hostile-'));
const config = loadConfig({
  RUNTIME_MODE: 'local',
  DATA_DIR: dataDir,
  PORT: '0',
  API_KEYS: `${KEY}=bench:scale`,
});
if (config.RUNTIME_MODE !== 'local') throw new Error('local mode expected');
const server = await startLocalServer(config);
// The checker runs in a child process while this process serves the uploads.
const status = await new Promise<number>((done) => {
  const checker = spawn(
    process.execPath,
    [
      join(SHARED, 'bench/hostile-check.mjs'),
      '--manifest',
      join(SHARED, 'corpus/hostile/manifest.json'),
      '--cmd',
      `node ${join(ROOT, 'bench/upload.mjs')} ${server.url} ${KEY} {file}`,
      '--timeout',
      '60',
    ],
    { stdio: 'inherit' },
  );
  checker.on('close', (code) => {
    done(code ?? 1);
  });
});
await server.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(status);
