/**
 * The project's bench: quality and speed of the service against poppler's `pdftotext` and the
 * `tesseract` CLI on the dev corpus, memory on a 100-page PDF, batch throughput and API load.
 *
 *   npm run bench [-- options]      (`npm run bench -- --help` lists the options)
 *
 * 1. Corpus (`run-corpus.ts`, printed by `run-corpus-report.ts`): parses every PDF, image and
 *    office document (docx, pptx, xlsx, xls, html, md) of the dev corpus through the service's
 *    own HTTP API and pipeline (the local server, in this process), scores the Markdown with the
 *    shared scorer, and runs `pdftotext` and the `tesseract` CLI (one thread) on the same PDFs and
 *    images. Prints per-document and mean text / heading / table / order / tests, the routing of
 *    each document (detected type; tier, complexity and grades per page; also written to
 *    `service.routes.json`), pages per second of born-digital PDFs, OCR seconds per page against
 *    the CLI, and peak RSS.
 * 2. 100 pages (`run-hundred.ts`): a separate process (`hundred-pages.ts`) parses a generated
 *    100-page born-digital PDF (time, peak RSS).
 * 3. Batch: documents/s and pages/s of one POST /v1/parse/batch (see `batch-throughput.ts`).
 * 4. API load (`run-api.ts`): requests/s and latency of GET /v1/parse/{id} and GET /v1/live under
 *    autocannon, beside a bare Node http server sending the same bytes in the same run.
 *
 * A full run (no option but `--out` and `--results`) then writes the scoreboard,
 * `bench/results/latest.{md,svg,json}` (see `report.ts`, `run-results.ts`); partial runs only
 * print, unless `--report` is given. The flags and the run's context are in `run-options.ts`.
 */
import './quiet-logs.js';
import { relative } from 'node:path';
import { measureBatchThroughput } from './batch-throughput.js';
import { parseCommandLineOrExit } from './cli.js';
import { ROOT, loadManifest } from './corpus.js';
import { writeReport } from './report.js';
import { runApiLoad } from './run-api.js';
import { printCorpusReport, printRouting } from './run-corpus-report.js';
import { runCorpus } from './run-corpus.js';
import { runHundredPages } from './run-hundred.js';
import { BENCH_COMMAND, benchContext, benchPlan } from './run-options.js';
import type { BenchParts } from './run-results.js';
import { collectResults } from './run-results.js';

const startedAt = performance.now();
const argv = process.argv.slice(2);
const ctx = benchContext(
  benchPlan(parseCommandLineOrExit(BENCH_COMMAND, argv), argv),
  loadManifest(),
);
const parts: BenchParts = { corpus: undefined, hundredPages: null, batch: null, apiLoad: null };

if (ctx.runs.corpus) {
  parts.corpus = await runCorpus(ctx);
  printCorpusReport(ctx.docs, parts.corpus);
  printRouting(ctx.docs, parts.corpus.service);
}
if (ctx.runs.hundred) parts.hundredPages = runHundredPages(ctx);
if (ctx.runs.batch) {
  console.log(
    `\n## Batch throughput (${ctx.batchCount} documents; \`npm run bench:batch\` runs 100, and the sequential comparison)\n`,
  );
  parts.batch = await measureBatchThroughput({
    count: ctx.batchCount,
    concurrency: 4,
    priority: 'normal',
    sequential: false,
  });
}
if (ctx.runs.api) parts.apiLoad = await runApiLoad(ctx);

const runtimeSeconds = (performance.now() - startedAt) / 1000;
if (ctx.writeReport) {
  const files = await writeReport(ctx.resultsDir, collectResults(ctx, parts, runtimeSeconds));
  const shown = files.map((f) => (f.startsWith(`${ROOT}/`) ? relative(ROOT, f) : f));
  console.log(`\nreport: ${shown.join(', ')}`);
} else {
  console.log('\n(partial run: bench/results/ left as it was; add --report to write it)');
}
console.log(`bench runtime: ${(runtimeSeconds / 60).toFixed(1)} min`);
