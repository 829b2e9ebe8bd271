/**
 * Robustness bench: starts the local service and runs `../shared/bench/hostile-check.mjs` over
 * the hostile corpus, uploading each file through the HTTP API (`bench/upload.mjs`). Prints the
 * server's resident set size (RSS) when idle (after one ordinary parse), its peak over the corpus
 * and once the corpus is done, in MiB. The server runs in this process; the checker and the
 * uploads in child processes, so the figures are the server's own.
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
const MiB = 1024 * 1024;
// Idle: after one ordinary parse, so that the engines are loaded as in service.
await new Promise<void>((done) => {
  spawn(
    process.execPath,
    [
      join(ROOT, 'bench/upload.mjs'),
      server.url,
      KEY,
      join(SHARED, 'corpus/dev/files/pypdf-minimal-document.pdf'),
    ],
    { stdio: 'ignore' },
  ).on('close', () => {
    done();
  });
});
const idleRss = process.memoryUsage.rss();
let peakRss = idleRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 100);
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
clearInterval(sampler);
// maxRSS (KiB) also catches peaks shorter than the sampling interval.
peakRss = Math.max(peakRss, process.resourceUsage().maxRSS * 1024);
const afterRss = process.memoryUsage.rss();
console.log(
  `\nserver RSS: idle ${(idleRss / MiB).toFixed(0)} MiB, peak ${(peakRss / MiB).toFixed(0)} MiB, after the corpus ${(afterRss / MiB).toFixed(0)} MiB (${afterRss >= idleRss ? '+' : ''}${((afterRss - idleRss) / MiB).toFixed(0)} MiB)`,
);
await server.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(status);
