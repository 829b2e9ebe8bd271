/**
 * The server side of the API load bench, in a process of its own so that the load generator does
 * not share its event loop: starts the local service on a temporary data directory, parses one
 * document, prints `READY {"url":…,"requestId":…}` on stdout, and serves until its stdin closes
 * (or SIGTERM / SIGINT), then deletes the data directory.
 *
 * The key's plan keeps a request rate limit, far above what the bench reaches
 * ({@link BENCH_REQUESTS_PER_MINUTE}), so that every request is counted as a limited plan's are.
 *
 *   node --import tsx bench/api-server.ts --file <document> --api-key <key>
 */
import './quiet-logs.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { READY_PREFIX, type ApiServerReady } from './api-load.js';
import { defineCommand, parseCommandLineOrExit } from './cli.js';
import { startBenchServer, uploadBytes } from './local-server.js';

const COMMAND = defineCommand({
  usage: 'node --import tsx bench/api-server.ts --file <document> --api-key <key>',
  summary: 'The service side of the API load bench (started by api-load.ts).',
  options: {
    file: { type: 'string', value: 'document', description: 'the document parsed first' },
    'api-key': { type: 'string', value: 'key', description: 'the one key the server accepts' },
  },
});
const { file, 'api-key': apiKey } = parseCommandLineOrExit(COMMAND);
if (!file || !apiKey) throw new Error(`usage: ${COMMAND.usage}`);

/** The bench key's requests per minute: counted like any plan's, never reached. */
const BENCH_REQUESTS_PER_MINUTE = 1_000_000_000;

const dataDir = mkdtempSync(join(tmpdir(), 'docparse-bench-api-'));
const server = await startBenchServer({
  dataDir,
  apiKey,
  env: {
    PLAN_LIMITS: JSON.stringify({
      scale: { requests_per_minute: BENCH_REQUESTS_PER_MINUTE, pages_per_day: null },
    }),
  },
}).catch((error: unknown) => {
  rmSync(dataDir, { recursive: true, force: true });
  throw error;
});
let closing: Promise<void> | undefined;
const shutdown = () => {
  closing ??= server.close().finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });
  return closing;
};
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void shutdown().then(() => process.exit(0));
  });
}

try {
  const { status, body } = await uploadBytes(
    server.url,
    apiKey,
    readFileSync(file),
    basename(file),
  );
  if (status !== 200 || typeof body.id !== 'string') {
    throw new Error(`parsing ${basename(file)} answered ${status}: ${JSON.stringify(body)}`);
  }
  const ready: ApiServerReady = {
    url: server.url,
    requestId: body.id,
    pages: body.pages?.length ?? 0,
  };
  process.stdout.write(`${READY_PREFIX}${JSON.stringify(ready)}\n`);
  process.stdin.resume();
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
} finally {
  await shutdown();
}
