/**
 * Result cache bench: uploads one document to the local service (in this process) and then the
 * same bytes again, and prints the time of each upload as the client sees it (request sent to
 * JSON parsed), whether the second was answered from the cache, and the daily pages the tenant
 * used before and after it. The second upload is repeated `--repeat` times (each a cache hit) to
 * give the median and worst. Default document: the 18-page `docling-redp5110_sampled.pdf` of
 * the dev corpus (`DOCPARSE_CORPUS_DIR`); target for the second upload: under 50 ms.
 *
 *   npm run bench:cache [-- --file path/to/document.pdf] [-- --repeat 20]
 */
import './quiet-logs.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { utcDay } from '../functions/core/domain/page-quota.js';
import { defineCommand, parseCommandLineOrExit } from './cli.js';
import { startBenchServer, uploadBytes } from './local-server.js';
import { corpusPath } from '../test/support/corpus.js';

const DEFAULT_FILE = corpusPath('dev/files/docling-redp5110_sampled.pdf');
const TARGET_MS = 50;
const API_KEY = 'bench-cache-key';

const COMMAND = defineCommand({
  usage: 'npm run bench:cache [-- options]',
  summary:
    'Uploads one document twice to the local service, and times the second upload, answered ' +
    'from the result cache.',
  options: {
    file: {
      type: 'string',
      value: 'path',
      default: DEFAULT_FILE,
      description: 'the document uploaded',
    },
    repeat: {
      type: 'number',
      value: 'n',
      default: 20,
      description: 'cached uploads timed, for the median and worst',
    },
  },
});
const flags = parseCommandLineOrExit(COMMAND);
const { file, repeat } = flags;
const bytes = readFileSync(file);
const dataDir = mkdtempSync(join(tmpdir(), 'docparse-bench-cache-'));
const server = await startBenchServer({ dataDir, apiKey: API_KEY, env: { RESULT_CACHE: 'on' } });

/** One upload of the document, timed from the request to the parsed JSON. */
async function timedUpload() {
  const started = performance.now();
  const result = await uploadBytes(server.url, API_KEY, bytes, basename(file));
  const ms = performance.now() - started;
  if (result.status !== 200) throw new Error(`upload answered ${result.status}`);
  const document = result.body.document as { cached?: boolean; pages?: number };
  const usage = result.body.usage as { estimated_cost_usd?: number };
  return {
    ms,
    cached: document.cached === true,
    pages: document.pages,
    cost: usage.estimated_cost_usd,
  };
}

const pagesUsed = () => server.deps.usage?.pagesUsed('bench', utcDay(new Date())) ?? 0;

try {
  await server.deps.warmUp();
  const first = await timedUpload();
  const usedAfterFirst = await pagesUsed();
  const second = await timedUpload();
  const usedAfterSecond = await pagesUsed();
  const more: number[] = [];
  for (let i = 1; i < repeat; i++) more.push((await timedUpload()).ms);
  const all = [second.ms, ...more].sort((a, b) => a - b);
  const median = all[Math.floor(all.length / 2)] ?? second.ms;
  const worst = all.at(-1) ?? second.ms;
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(`document: ${basename(file)} (${String(first.pages)} pages, ${bytes.length} bytes)`);
  console.log(`first upload (parsed):       ${ms(first.ms)}, cost ${String(first.cost)} USD`);
  console.log(
    `second upload (cached=${String(second.cached)}): ${ms(second.ms)}, cost ${String(second.cost)} USD (target < ${TARGET_MS} ms: ${second.ms < TARGET_MS ? 'met' : 'missed'})`,
  );
  console.log(`cache hits over ${all.length} uploads: median ${ms(median)}, worst ${ms(worst)}`);
  console.log(
    `daily pages used: ${usedAfterFirst} after the first, ${usedAfterSecond} after the second`,
  );
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
