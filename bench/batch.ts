/**
 * Batch bench: 100 documents of the dev corpus (born-digital PDFs and images, cycled), served by
 * a local origin, parsed twice by the local service in this process:
 * 1. one after the other through POST /v1/parse (each request waits for its result);
 * 2. as one batch through POST /v1/parse/batch, polling GET /v1/batch/{id} until it ends.
 * Prints both wall times, the batch's totals and the speed-up. One document is parsed first so
 * that both runs find the engines warm.
 *
 *   npm run bench:batch [-- --concurrency 4] [-- --priority normal|high|low] [-- --count 100]
 */
import '../functions/polyfills.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';

interface ManifestDoc {
  id: string;
  file: string;
  format: string;
  pages: number;
  categories: string[];
}

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
};
const COUNT = Number(option('count', '100'));
const CONCURRENCY = option('concurrency', '4');
const PRIORITY = option('priority', 'normal');
const API_KEY = 'bench-batch-key-0001';
const CORPUS = resolve(import.meta.dirname, '../../shared/corpus/dev');

// The handlers' logger reads its level when first loaded: quiet before anything imports it.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
const { startLocalServer } = await import('../functions/adapters/local/server.js');
const { loadConfig } = await import('../functions/config.js');

const manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as {
  documents: ManifestDoc[];
};
const IMAGES = new Set(['png', 'jpg', 'jpeg', 'webp', 'tiff', 'heic']);
const corpus = manifest.documents.filter(
  (d) => (d.format === 'pdf' && d.categories.includes('born-digital')) || IMAGES.has(d.format),
);
const files = new Map(corpus.map((d) => [basename(d.file), readFileSync(join(CORPUS, d.file))]));
const names = Array.from({ length: COUNT }, (_, i) => basename(corpus[i % corpus.length]!.file));

const origin: Server = createServer((req, res) => {
  const name = decodeURIComponent((req.url ?? '/').slice('/files/'.length).split('?')[0] ?? '');
  const body = files.get(name);
  if (!body) {
    res.writeHead(404);
    res.end();
    return;
  }
  const type = name.endsWith('.pdf')
    ? 'application/pdf'
    : name.endsWith('.png')
      ? 'image/png'
      : 'image/jpeg';
  res.writeHead(200, { 'content-type': type, 'content-length': body.byteLength });
  res.end(body);
});
await new Promise<void>((ready) => origin.listen(0, '127.0.0.1', ready));
const originPort = (origin.address() as AddressInfo).port;
// A query string per position, so that every document of the 100 is its own download.
const urls = names.map((name, i) => `http://127.0.0.1:${originPort}/files/${name}?n=${i + 1}`);

const dataDir = mkdtempSync(join(tmpdir(), 'docparse-bench-batch-'));
const config = loadConfig({
  RUNTIME_MODE: 'local',
  DATA_DIR: dataDir,
  PORT: '0',
  API_KEYS: `${API_KEY}=bench:scale`,
  LOG_LEVEL: 'ERROR',
  URL_FETCH_ALLOWLIST: `127.0.0.1:${originPort}`,
  BATCH_CONCURRENCY: CONCURRENCY,
});
if (config.RUNTIME_MODE !== 'local') throw new Error('local mode expected');
const service = await startLocalServer(config);

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

try {
  const pdfs = names.filter((n) => n.endsWith('.pdf')).length;
  console.log(
    `${COUNT} documents (${pdfs} born-digital PDFs, ${COUNT - pdfs} images) cycled over ${corpus.length} corpus files; ` +
      `batch concurrency ${CONCURRENCY}, priority ${PRIORITY}, ${availableParallelism()} CPUs`,
  );
  await call('POST', '/v1/parse', { file_url: urls[0] });

  // 1. One after the other.
  const sequentialStart = Date.now();
  let sequentialFailed = 0;
  for (const url of urls) {
    const { status } = await call('POST', '/v1/parse', { file_url: url });
    if (status !== 200) sequentialFailed += 1;
  }
  const sequentialMs = Date.now() - sequentialStart;
  console.log(
    `POST /v1/parse one after the other: ${seconds(sequentialMs)} s (${sequentialFailed} failed)`,
  );

  // 2. One batch.
  const batchStart = Date.now();
  const accepted = await call('POST', '/v1/parse/batch', {
    documents: urls.map((file_url) => ({ file_url })),
    priority: PRIORITY,
  });
  if (accepted.status !== 200) throw new Error(`batch refused: ${JSON.stringify(accepted.body)}`);
  const acceptedMs = Date.now() - batchStart;
  let batch: Record<string, unknown>;
  for (;;) {
    batch = (await call('GET', `/v1/batch/${String(accepted.body.batch_id)}`)).body;
    if (batch.status === 'completed' || batch.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const batchMs = Date.now() - batchStart;
  console.log(
    `POST /v1/parse/batch (answered in ${acceptedMs} ms) until ${batch.status}: ${seconds(batchMs)} s, totals ${JSON.stringify(batch.totals)}`,
  );
  const failures = new Map<string, number>();
  for (const item of batch.items as { status: string; file_url: string; error?: unknown }[]) {
    if (item.status !== 'failed') continue;
    const key = `${basename(new URL(item.file_url).pathname)}: ${JSON.stringify(item.error)}`;
    failures.set(key, (failures.get(key) ?? 0) + 1);
  }
  for (const [failure, count] of failures) console.log(`  failed ${count}x ${failure}`);
  console.log(`speed-up: ${(sequentialMs / batchMs).toFixed(2)}x`);
} finally {
  await service.close();
  origin.close();
  rmSync(dataDir, { recursive: true, force: true });
}
