/**
 * Robustness bench: starts the local service and runs the shared bench kit's `hostile-check.mjs`
 * (`HOSTILE_CHECK` of `corpus.ts`) over the hostile corpus (`hostile/` of the test corpus),
 * uploading each file through the HTTP API (`bench/upload.mjs`). Prints the server's resident
 * set size (RSS) when idle (after one ordinary parse), its peak over the corpus and once the
 * corpus is done (right after, and once the engine workers have been idle long
 * enough to give their memory back), in MiB. The server runs in this process; the checker and the
 * uploads in child processes, so the figures are the server's own.
 *
 *   npm run bench:hostile      (no options; `-- --help` prints this summary)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer } from '../functions/local-server.js';
import { loadConfig } from '../functions/config.js';
import { corpusPath } from '../test/support/corpus.js';
import { defineCommand, parseCommandLineOrExit } from './cli.js';
import { HOSTILE_CHECK, ROOT } from './corpus.js';

parseCommandLineOrExit(
  defineCommand({
    usage: 'npm run bench:hostile',
    summary:
      "Runs the hostile corpus through the local service's HTTP API, prints each file's outcome " +
      "against its manifest, and the server's RSS: idle, peak, right after the corpus and once " +
      'the engine workers have been idle.',
    options: {},
  }),
);
const KEY = 'bench-key-0001';
const ENGINE_IDLE_MS = 5000;
const dataDir = mkdtempSync(join(tmpdir(), 'docparse-hostile-'));
const config = loadConfig({
  RUNTIME_MODE: 'local',
  DATA_DIR: dataDir,
  PORT: '0',
  API_KEYS: `${KEY}=bench:scale`,
  // Engine workers give their memory back after 5 s idle (60 s by default), so that the RSS
  // after the corpus is read without waiting a minute.
  ENGINE_IDLE_MS: String(ENGINE_IDLE_MS),
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
      corpusPath('dev/files/pypdf-minimal-document.pdf'),
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
      HOSTILE_CHECK,
      '--manifest',
      corpusPath('hostile/manifest.json'),
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
await new Promise((done) => setTimeout(done, ENGINE_IDLE_MS + 3000));
const settledRss = process.memoryUsage.rss();
const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
const delta = (bytes: number) =>
  `${bytes >= idleRss ? '+' : ''}${((bytes - idleRss) / MiB).toFixed(0)} MiB`;
console.log(
  `\nserver RSS: idle ${mib(idleRss)}, peak ${mib(peakRss)}, right after the corpus ${mib(afterRss)} (${delta(afterRss)}), once the engines were idle ${ENGINE_IDLE_MS / 1000} s ${mib(settledRss)} (${delta(settledRss)})`,
);
await server.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(status);
