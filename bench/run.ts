/**
 * The project's bench: quality and speed of the service against poppler's `pdftotext` and the
 * `tesseract` CLI on the dev corpus, memory on a 100-page PDF, batch throughput and API load.
 *
 *   npm run bench [-- options]
 *
 * 1. Corpus: parses every PDF, image and office document (docx, pptx, xlsx, xls, html, md) of the
 *    dev corpus through the service's own HTTP API and pipeline (the local server, in this
 *    process), scores the Markdown with the shared scorer, and runs `pdftotext` and the
 *    `tesseract` CLI (one thread) on the same PDFs and images. Prints per-document and mean text /
 *    heading / table / order / tests, the routing of each document (detected type; tier,
 *    complexity and confidence grades per page; also written to `service.routes.json`), pages per
 *    second of born-digital PDFs, OCR seconds per page against the CLI, and peak RSS.
 * 2. 100 pages: a separate process parses a generated 100-page born-digital PDF (time, peak RSS).
 * 3. Batch: documents/s and pages/s of one POST /v1/parse/batch (see `batch-throughput.ts`).
 * 4. API load: requests/s and latency of GET /v1/parse/{id} and GET /v1/live under autocannon,
 *    beside a bare Node http server sending the same bytes in the same run (see `api-load.ts`).
 *
 * A full run (no option below but `--out` and `--results`) then writes the scoreboard,
 * `bench/results/latest.{md,svg,json}` (see `report.ts`); partial runs only print, unless
 * `--report` is given.
 *
 * Options:
 *   --out <dir>             working files: Markdown of each tool, scores (default bench/out)
 *   --results <dir>         where the report goes (default bench/results)
 *   --report                write the report even for a partial run
 *   --only <id part>        only the corpus documents whose id contains this
 *   --only-api              only the API load
 *   --reader pdfium|pdfjs   the service's PDF text reader (default pdfium)
 *   --no-baselines          skip pdftotext and tesseract
 *   --no-100                skip the 100-page PDF
 *   --no-batch              skip the batch throughput
 *   --no-api                skip the API load
 *   --batch-count <n>       documents in the batch (default 30; `npm run bench:batch` runs 100)
 *   --api-duration <s>      length of the measured API load in seconds (default 10)
 *   --api-connections <n>   concurrent connections of the API load (default 50)
 *   --api-doc <id>          corpus document whose stored response is loaded (default zerox-0004)
 */
import './quiet-logs.js';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import { detectDocumentType } from '../functions/core/domain/document-type.js';
import type { StoredInspection } from '../functions/core/domain/pipeline/classify.js';
import { workKeys } from '../functions/core/domain/pipeline/pipeline-ports.js';
import type {
  DocumentFormat,
  DocumentTypeReport,
  QualityGrade,
  Tier,
} from '../functions/core/domain/schemas.js';
import { measureApiLoad, type ApiLoadResult, type EndpointLoad } from './api-load.js';
import { measureBatchThroughput, type BatchThroughputResult } from './batch-throughput.js';
import { parseCliArgs } from './cli.js';
import {
  CORPUS_DIR,
  MANIFEST,
  PARSEABLE_FORMATS,
  ROOT,
  SCORER,
  SHARED_BENCH_README,
  categoryOf,
  isOcrDoc,
  isOfficeDoc,
  loadManifest,
  type ManifestDoc,
} from './corpus.js';
import { startBenchServer, uploadBytes } from './local-server.js';
import { machineInfo, sourceInfo, toolVersions } from './machine.js';
import {
  METRICS,
  meanOf as mean,
  parseReferenceTable,
  summarizeQuality,
  TARGETS,
  writeReport,
  type BenchResults,
  type DocumentResult,
  type HundredPageResult,
  type MetricScores,
  type SpeedResults,
} from './report.js';

const startedAt = performance.now();
const argv = process.argv.slice(2);
const args = parseCliArgs(argv);
const OUT = resolve(ROOT, args.option('out', 'bench/out'));
const RESULTS = resolve(ROOT, args.option('results', 'bench/results'));
const API_KEY = 'bench-key-0001';
const READER = args.option('reader', 'pdfium');
const BATCH_COUNT = args.number('batch-count', 30);
const API_DURATION_S = args.number('api-duration', 10);
const API_CONNECTIONS = args.number('api-connections', 50);
const API_DOC = args.option('api-doc', 'zerox-0004');

if (args.flag('rss-100')) {
  await rss100(args.option('rss-json', ''));
  process.exit(0);
}

const only = args.option('only', '');
const onlyApi = args.flag('only-api');
const runs = {
  corpus: !onlyApi,
  baselines: !onlyApi && !args.flag('no-baselines'),
  hundred: !onlyApi && !args.flag('no-100'),
  batch: !onlyApi && !args.flag('no-batch'),
  api: !args.flag('no-api'),
};
const full = Object.values(runs).every(Boolean) && only === '' && READER === 'pdfium';
const manifest = loadManifest();
const docs = manifest.filter((d) => PARSEABLE_FORMATS.has(d.format) && d.id.includes(only));

let corpusResults: CorpusResults | undefined;
let hundredPages: HundredPageResult | null = null;
let batch: BatchThroughputResult | null = null;
let apiLoad: ApiLoadResult | null = null;

if (runs.corpus) {
  rmSync(OUT, { recursive: true, force: true });
  // 1. The service. Born-digital PDFs are timed back to back (as pdftotext runs them), then scans
  // and images, then office documents.
  const service = await runService([
    ...docs.filter((d) => !isOcrDoc(d) && !isOfficeDoc(d)),
    ...docs.filter((d) => isOcrDoc(d)),
    ...docs.filter((d) => isOfficeDoc(d)),
  ]);
  // 2. Baselines.
  const baselines = runs.baselines ? runBaselines(docs) : undefined;
  // 3. Scores.
  const scores = {
    service: score('service'),
    ...(baselines ? { pdftotext: score('pdftotext'), tesseract: score('tesseract') } : {}),
  };
  corpusResults = { service, baselines, scores };
  // 4. Report.
  report(corpusResults);
  routingReport(service);
}

// 5. Memory on a 100-page born-digital PDF, in a fresh process.
if (runs.hundred) {
  mkdirSync(OUT, { recursive: true });
  const json = join(OUT, 'rss-100.json');
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'bench/run.ts'),
      '--rss-100',
      '--rss-json',
      json,
      '--reader',
      READER,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  process.stdout.write(child.stdout);
  if (child.status !== 0) process.stderr.write(child.stderr);
  else if (existsSync(json))
    hundredPages = JSON.parse(readFileSync(json, 'utf8')) as HundredPageResult;
}

// 6. Batch throughput.
if (runs.batch) {
  console.log(
    `\n## Batch throughput (${BATCH_COUNT} documents; \`npm run bench:batch\` runs 100, and the sequential comparison)\n`,
  );
  batch = await measureBatchThroughput({
    count: BATCH_COUNT,
    concurrency: 4,
    priority: 'normal',
    sequential: false,
  });
}

// 7. API load.
if (runs.api) {
  console.log('\n## API load\n');
  const doc = manifest.find((d) => d.id === API_DOC);
  if (!doc) throw new Error(`--api-doc ${API_DOC}: no such corpus document`);
  apiLoad = await measureApiLoad({
    file: join(CORPUS_DIR, doc.file),
    durationSeconds: API_DURATION_S,
    connections: API_CONNECTIONS,
    warmUpSeconds: 2,
  });
  const a = apiLoad;
  const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
  const row = (who: string, e: EndpointLoad) =>
    `  ${who.padEnd(10)} ${e.requestsPerSecond.toFixed(0).padStart(7)} requests/s   ` +
    `latency p50 ${e.latencyP50Ms} ms, p99 ${e.latencyP99Ms} ms, max ${e.latencyMaxMs} ms   ` +
    `(${e.requests} requests; non-2xx ${e.non2xx}, errors ${e.errors}, timeouts ${e.timeouts})`;
  for (const { service, bare, ratio } of [{ service: a, bare: a.bare, ratio: a.ratio }, a.live]) {
    console.log(
      `${service.endpoint} (${service.responseBytes}-byte body), ${a.connections} connections, ${a.durationSeconds} s:`,
    );
    console.log(row('docparse', service));
    console.log(row('bare http', bare));
    console.log(
      `  ratio ${percent(ratio)} of the bare server's requests/s, p99 ${service.latencyP99Ms} ms` +
        (service.endpoint.startsWith('GET /v1/parse')
          ? ` (target: ratio >= ${percent(TARGETS.apiBareRatio)}, p99 < ${TARGETS.apiP99Ms} ms)`
          : ''),
    );
  }
}

// 8. Scoreboard.
const runtimeSeconds = (performance.now() - startedAt) / 1000;
if (full || args.flag('report')) {
  const results = collectResults(runtimeSeconds);
  const files = await writeReport(RESULTS, results);
  const shown = files.map((f) => (f.startsWith(`${ROOT}/`) ? relative(ROOT, f) : f));
  console.log(`\nreport: ${shown.join(', ')}`);
} else {
  console.log('\n(partial run: bench/results/ left as it was; add --report to write it)');
}
console.log(`bench runtime: ${(runtimeSeconds / 60).toFixed(1)} min`);

// ------------------------------------------------------------------------------------------------

interface ServiceRow {
  /** Wall time of the request, in seconds. */
  seconds: number;
  pages: number;
  status: number;
  /** OCR provider latency of each OCR page, in milliseconds. */
  ocrPageMs: number[];
  routing: DocumentRouting | undefined;
}

interface ServiceRun {
  rows: Record<string, ServiceRow>;
  /** Peak RSS of this process after the corpus, in MiB. */
  peakRssMb: number;
}

interface Baselines {
  /** pdftotext wall time per PDF, in seconds. */
  pdfTimes: Record<string, number>;
  /** Rasterising and tesseract wall time per document, in seconds. */
  tessTimes: Record<string, number>;
  /** tesseract time per page per document, in seconds. */
  tessOcrSeconds: Record<string, number>;
}

interface CorpusResults {
  service: ServiceRun;
  baselines: Baselines | undefined;
  scores: {
    service: Map<string, ScoreRow>;
    pdftotext?: Map<string, ScoreRow>;
    tesseract?: Map<string, ScoreRow>;
  };
}

async function runService(list: ManifestDoc[]): Promise<ServiceRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'docparse-bench-'));
  const server = await startBenchServer({
    dataDir,
    apiKey: API_KEY,
    env: { PDF_TEXT_READER: READER },
  });
  const dir = join(OUT, 'service');
  mkdirSync(dir, { recursive: true });
  const timings: Record<string, number> = {};
  const rows: Record<string, ServiceRow> = {};
  try {
    // Warm-up: one image and one generated PDF, so that the OCR workers, the PDF readers and
    // the pipeline code are loaded and compiled, as in a service that has been running.
    const warm = manifest.find((d) => d.format === 'png');
    if (warm) await upload(server.url, join(CORPUS_DIR, warm.file));
    await uploadBytes(server.url, API_KEY, await warmUpPdf(), 'warm-up.pdf');
    for (const d of list) {
      const t0 = performance.now();
      const { status, body } = await upload(server.url, join(CORPUS_DIR, d.file));
      const seconds = (performance.now() - t0) / 1000;
      const pages = (body.pages ?? []) as ResponsePage[];
      writeFileSync(join(dir, `${d.id}.md`), pages.map((p) => p.content_markdown).join('\n\n'));
      timings[d.id] = seconds;
      rows[d.id] = {
        seconds,
        pages: pages.length,
        status,
        ocrPageMs: pages.filter((p) => p.provider === 'local-ocr').map((p) => p.latency_ms),
        routing: routingOf(dataDir, body, pages),
      };
      console.error(`service  ${String(status)}  ${seconds.toFixed(2).padStart(6)}s  ${d.id}`);
    }
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  writeFileSync(join(dir, 'timings.json'), JSON.stringify(timings));
  writeFileSync(
    join(OUT, 'service.routes.json'),
    JSON.stringify(
      Object.fromEntries(Object.entries(rows).map(([id, r]) => [id, r.routing ?? null])),
      null,
      1,
    ),
  );
  return { rows, peakRssMb: process.resourceUsage().maxRSS / 1024 };
}

/** The fields of a ParseResponse page the bench reads. */
interface ResponsePage {
  page_number: number;
  content_markdown: string;
  provider: string;
  /** Provider latency, in milliseconds. */
  latency_ms: number;
  tier_used: Tier;
  confidence: { mean_grade: QualityGrade; low_grade: QualityGrade };
}

/** How the service routed one document: its type, and per page tier, complexity and grades. */
interface DocumentRouting {
  /** `detectDocumentType` on the features Classify measured. */
  document_type: DocumentTypeReport | null;
  /** The ParseResponse's own `document_type`, when the service fills it. */
  response_document_type: unknown;
  pages: {
    page: number;
    tier: Tier;
    provider: string;
    complexity: number | null;
    mean_grade: QualityGrade;
    low_grade: QualityGrade;
  }[];
}

/**
 * Routing of a parsed document from its ParseResponse pages, with the complexity and features
 * Classify stored under the local server's data directory (`objects/` is where the local
 * runtime keeps its object store).
 */
function routingOf(
  dataDir: string,
  body: Record<string, unknown>,
  pages: ResponsePage[],
): DocumentRouting | undefined {
  if (typeof body.id !== 'string' || pages.length === 0) return undefined;
  let inspection: StoredInspection | undefined;
  try {
    const file = join(dataDir, 'objects', workKeys.inspection(body.id));
    inspection = JSON.parse(readFileSync(file, 'utf8')) as StoredInspection;
  } catch {
    // A cached response reuses an earlier request's work; only the response is known then.
    inspection = undefined;
  }
  const format = (body.document as { format?: DocumentFormat } | undefined)?.format;
  return {
    document_type:
      inspection && format ? detectDocumentType({ format, pages: inspection.pages }) : null,
    response_document_type: body.document_type ?? null,
    pages: pages.map((p) => ({
      page: p.page_number,
      tier: p.tier_used,
      provider: p.provider,
      complexity: inspection?.complexity[p.page_number] ?? null,
      mean_grade: p.confidence.mean_grade,
      low_grade: p.confidence.low_grade,
    })),
  };
}

async function upload(url: string, file: string) {
  return uploadBytes(url, API_KEY, readFileSync(file), basename(file));
}

function runBaselines(list: ManifestDoc[]): Baselines {
  const pdfDir = join(OUT, 'pdftotext');
  const tessDir = join(OUT, 'tesseract');
  mkdirSync(pdfDir, { recursive: true });
  mkdirSync(tessDir, { recursive: true });
  const pdfTimes: Record<string, number> = {};
  const tessTimes: Record<string, number> = {};
  const tessOcrSeconds: Record<string, number> = {};
  const work = mkdtempSync(join(tmpdir(), 'docparse-baseline-'));
  for (const d of list) {
    const file = join(CORPUS_DIR, d.file);
    if (d.format === 'pdf') {
      const t0 = performance.now();
      const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
      pdfTimes[d.id] = (performance.now() - t0) / 1000;
      writeFileSync(join(pdfDir, `${d.id}.md`), text);
    }
    if (!isOcrDoc(d)) continue;
    const t0 = performance.now();
    let images = [file];
    if (d.format === 'pdf') {
      execFileSync('pdftoppm', ['-r', '300', '-png', file, join(work, d.id)]);
      images = readdirSync(work)
        .sort()
        .filter((f) => f.startsWith(d.id))
        .map((f) => join(work, f));
    }
    const t1 = performance.now();
    const texts = images.map((img) =>
      execFileSync('tesseract', [img, '-'], {
        encoding: 'utf8',
        env: { ...process.env, OMP_THREAD_LIMIT: '1' },
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
    const t2 = performance.now();
    tessTimes[d.id] = (t2 - t0) / 1000;
    tessOcrSeconds[d.id] = (t2 - t1) / 1000 / images.length;
    writeFileSync(join(tessDir, `${d.id}.md`), texts.join('\n\n'));
    console.error(`tesseract       ${tessTimes[d.id]!.toFixed(2).padStart(6)}s  ${d.id}`);
  }
  rmSync(work, { recursive: true, force: true });
  writeFileSync(join(pdfDir, 'timings.json'), JSON.stringify(pdfTimes));
  writeFileSync(join(tessDir, 'timings.json'), JSON.stringify(tessTimes));
  return { pdfTimes, tessTimes, tessOcrSeconds };
}

/** One document's figures from the scorer's JSON (0–1; null or missing where not applicable). */
interface ScoreRow {
  id: string;
  text?: number | null;
  heading?: number | null;
  table?: number | null;
  order?: number | null;
  tests?: number | null;
}

function score(name: string): Map<string, ScoreRow> {
  const json = join(OUT, `${name}.scores.json`);
  execFileSync(
    process.execPath,
    [SCORER, '--manifest', MANIFEST, '--pred', join(OUT, name), '--json', json, '--quiet'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const parsed = JSON.parse(readFileSync(json, 'utf8')) as { documents: ScoreRow[] };
  return new Map(parsed.documents.map((r) => [r.id, r]));
}

/** The document sets the console report and the scoreboard share. */
function idsOf() {
  return {
    pdfsAndImages: docs.filter((d) => !isOfficeDoc(d)).map((d) => d.id),
    ocr: docs.filter(isOcrDoc).map((d) => d.id),
    digital: docs.filter((d) => !isOcrDoc(d) && !isOfficeDoc(d)).map((d) => d.id),
    office: docs.filter(isOfficeDoc).map((d) => d.id),
  };
}

function report({ service, baselines, scores }: CorpusResults) {
  const f = (v: number | null | undefined) =>
    (typeof v === 'number' ? v.toFixed(3) : '  -  ').padStart(7);
  const ids = idsOf();
  console.log(
    `\n## Quality (dev corpus, ${ids.pdfsAndImages.length} PDFs and images, ${ids.office.length} office documents; scorer ../shared/bench/score.mjs)\n`,
  );
  console.log(
    `${'document'.padEnd(38)} ${METRICS.map((m) => m.padStart(7)).join(' ')}   s/doc  pages  status`,
  );
  for (const d of docs) {
    const r = scores.service.get(d.id);
    const s = service.rows[d.id]!;
    console.log(
      `${d.id.slice(0, 38).padEnd(38)} ${METRICS.map((m) => f(r?.[m])).join(' ')} ${s.seconds.toFixed(2).padStart(7)} ${String(s.pages).padStart(6)}  ${s.status}`,
    );
  }
  const line = (label: string, table: Map<string, ScoreRow>, list: string[]) => {
    console.log(
      `${label.padEnd(38)} ${METRICS.map((m) => f(mean(list.map((id) => table.get(id)?.[m])))).join(' ')}`,
    );
  };
  // The PDF and image lines keep their meaning; office documents have their own line.
  console.log('');
  line('MEAN service (all)', scores.service, ids.pdfsAndImages);
  line('MEAN service (born-digital PDFs)', scores.service, ids.digital);
  line('MEAN service (scans and images)', scores.service, ids.ocr);
  if (ids.office.length > 0) {
    line('MEAN service (office documents)', scores.service, ids.office);
    const officeText = mean(ids.office.map((id) => scores.service.get(id)?.text));
    console.log(
      `office documents: mean text ${officeText === null ? '-' : officeText.toFixed(3)} (bar ≥ ${TARGETS.officeText.toFixed(2)}: ${officeText !== null && officeText >= TARGETS.officeText ? 'met' : 'NOT met'})`,
    );
  }
  if (scores.pdftotext) line('MEAN pdftotext (all)', scores.pdftotext, ids.pdfsAndImages);
  if (scores.tesseract) line('MEAN tesseract CLI (scans and images)', scores.tesseract, ids.ocr);

  console.log('\n## Speed\n');
  const speed = speedOf({ service, baselines, scores });
  const b = speed.bornDigital;
  console.log(
    `service, born-digital PDFs: ${b.pages} pages in ${b.docparseSeconds.toFixed(2)} s = ${b.docparsePagesPerSecond.toFixed(1)} pages/s`,
  );
  if (b.pdftotextSeconds !== null && b.pdftotextPagesPerSecond !== null) {
    console.log(
      `pdftotext, same files:      ${b.pages} pages in ${b.pdftotextSeconds.toFixed(2)} s = ${b.pdftotextPagesPerSecond.toFixed(1)} pages/s`,
    );
    console.log(
      `ratio service / pdftotext:  ${(b.docparsePagesPerSecond / b.pdftotextPagesPerSecond).toFixed(2)} (target ≥ ${TARGETS.pdftotextRatio})`,
    );
  }
  const ourOcr = speed.ocr.docparseSecondsPerPage ?? 0;
  console.log(
    `service OCR: ${speed.ocr.pages} pages, mean ${ourOcr.toFixed(2)} s/page (provider latency)`,
  );
  if (baselines) {
    const cli = speed.ocr.tesseractSecondsPerPage ?? 0;
    console.log(`tesseract CLI (OMP_THREAD_LIMIT=1, 300 dpi): mean ${cli.toFixed(2)} s/page`);
    console.log(`ratio service / CLI: ${(ourOcr / cli).toFixed(2)} (target ≤ ${TARGETS.ocrRatio})`);
    for (const id of ids.ocr) {
      const ours = mean(service.rows[id]!.ocrPageMs) ?? 0;
      const t = scores.tesseract?.get(id)?.text;
      console.log(
        `  ${id.padEnd(36)} ours ${(ours / 1000).toFixed(2)} s text ${f(scores.service.get(id)?.text)} | CLI ${(baselines.tessOcrSeconds[id] ?? 0).toFixed(2)} s text ${f(t)}`,
      );
    }
  }
  console.log(
    `\npeak RSS of the bench process (server, pdf.js, OCR worker): ${service.peakRssMb.toFixed(0)} MB`,
  );
}

/** Pages/s of born-digital PDFs and OCR s/page of the service and the references. */
function speedOf({ service, baselines }: CorpusResults): SpeedResults {
  const ids = idsOf();
  const pages = ids.digital.reduce((n, id) => n + service.rows[id]!.pages, 0);
  const seconds = ids.digital.reduce((n, id) => n + service.rows[id]!.seconds, 0);
  const pdfSeconds = baselines
    ? ids.digital.reduce((n, id) => n + (baselines.pdfTimes[id] ?? 0), 0)
    : null;
  const ocrMs = ids.ocr.flatMap((id) => service.rows[id]!.ocrPageMs);
  const ours = mean(ocrMs);
  return {
    bornDigital: {
      documents: ids.digital.length,
      pages,
      docparseSeconds: seconds,
      docparsePagesPerSecond: pages / seconds,
      pdftotextSeconds: pdfSeconds,
      pdftotextPagesPerSecond: pdfSeconds === null ? null : pages / pdfSeconds,
    },
    ocr: {
      documents: ids.ocr.length,
      pages: ocrMs.length,
      docparseSecondsPerPage: ours === null ? null : ours / 1000,
      tesseractSecondsPerPage: baselines
        ? mean(ids.ocr.map((id) => baselines.tessOcrSeconds[id]))
        : null,
    },
    benchPeakRssMb: service.peakRssMb,
  };
}

/** Every number of this run, for the scoreboard. */
function collectResults(runtime: number): BenchResults {
  const toScores = (r: ScoreRow | undefined): MetricScores | undefined => {
    if (!r) return undefined;
    const out = {} as MetricScores;
    for (const m of METRICS) out[m] = r[m] ?? null;
    return out;
  };
  const documents: DocumentResult[] = corpusResults
    ? docs.map((d) => {
        const { service, baselines, scores } = corpusResults;
        const row = service.rows[d.id]!;
        const ocr = mean(row.ocrPageMs);
        const tess = baselines?.tessTimes[d.id];
        const docScores: DocumentResult['scores'] = {};
        const ours = toScores(scores.service.get(d.id));
        if (ours) docScores.docparse = ours;
        // A reference counts where it ran: pdftotext on PDFs, tesseract on scans and images.
        const pdf = d.format === 'pdf' ? toScores(scores.pdftotext?.get(d.id)) : undefined;
        if (pdf) docScores.pdftotext = pdf;
        const cli = isOcrDoc(d) ? toScores(scores.tesseract?.get(d.id)) : undefined;
        if (cli) docScores['tesseract CLI'] = cli;
        return {
          id: d.id,
          format: d.format,
          category: categoryOf(d),
          pages: d.pages,
          docparse: {
            status: row.status,
            pages: row.pages,
            seconds: row.seconds,
            ocrSecondsPerPage: ocr === null ? null : ocr / 1000,
          },
          pdftotextSeconds: baselines?.pdfTimes[d.id] ?? null,
          tesseract:
            tess === undefined
              ? null
              : { seconds: tess, ocrSecondsPerPage: baselines!.tessOcrSeconds[d.id]! },
          scores: docScores,
        };
      })
    : [];
  const counts = { 'born-digital': 0, ocr: 0, office: 0 };
  for (const d of docs) counts[categoryOf(d)] += 1;
  const readme = existsSync(SHARED_BENCH_README) ? readFileSync(SHARED_BENCH_README, 'utf8') : '';
  return {
    run: {
      date: new Date().toISOString(),
      runtimeSeconds: runtime,
      command: ['npm run bench', ...(argv.length ? ['--', ...argv] : [])].join(' '),
      full,
      machine: machineInfo(),
      source: sourceInfo(),
      tools: toolVersions(),
      corpus:
        `dev corpus (\`../shared/corpus/dev\`), ${docs.length} documents: ${counts['born-digital']} ` +
        `born-digital PDFs, ${counts.ocr} scans and images, ${counts.office} office documents`,
      settings: {
        'PDF reader': READER,
        'batch documents': runs.batch ? BATCH_COUNT : 'not run',
        'API load': runs.api ? `${API_CONNECTIONS} connections × ${API_DURATION_S} s` : 'not run',
      },
    },
    documents,
    quality: corpusResults ? summarizeQuality(documents) : null,
    speed: corpusResults ? speedOf(corpusResults) : null,
    hundredPages,
    apiLoad,
    batch,
    references: parseReferenceTable(readme, '../shared/bench/README.md') ?? null,
  };
}

/**
 * Per document: the detected type (from Classify's features) and, per page, the tier chosen,
 * the complexity score and the confidence grades (mean/low), twelve pages to a block.
 */
function routingReport(service: ServiceRun) {
  const letter: Record<QualityGrade, string> = {
    excellent: 'E',
    good: 'G',
    fair: 'F',
    poor: 'P',
  };
  const cell = (v: string) => v.padStart(8);
  console.log('\n## Routing per document (detected type; tier, complexity and grades per page)\n');
  console.log('grades: mean/low, E excellent, G good, F fair, P poor\n');
  for (const d of docs) {
    const routing = service.rows[d.id]?.routing;
    if (!routing) {
      console.log(`${d.id.slice(0, 38).padEnd(38)} (no pages)`);
      continue;
    }
    const t = routing.document_type;
    const type = t
      ? `${t.detected} ${t.confidence.toFixed(2)}, ${t.suggested_dpi} DPI, verification ${t.suggested_enable_verification ? 'on' : 'off'}`
      : 'type not measured';
    const answered =
      routing.response_document_type && typeof routing.response_document_type === 'object'
        ? ` (response: ${String((routing.response_document_type as { detected?: unknown }).detected)})`
        : '';
    console.log(`${d.id.slice(0, 38).padEnd(38)} ${type}${answered}`);
    for (let i = 0; i < routing.pages.length; i += 12) {
      const block = routing.pages.slice(i, i + 12);
      const row = (label: string, values: string[]) => {
        console.log(`  ${label.padEnd(11)}${values.map(cell).join('')}`);
      };
      row(
        'page',
        block.map((p) => String(p.page)),
      );
      row(
        'tier',
        block.map((p) => p.tier),
      );
      row(
        'complexity',
        block.map((p) => (p.complexity === null ? '-' : p.complexity.toFixed(3))),
      );
      row(
        'grades',
        block.map((p) => `${letter[p.mean_grade]}/${letter[p.low_grade]}`),
      );
    }
  }
}

/** A generated four-page PDF: headings, paragraphs in two fonts, and a ruled table per page. */
async function warmUpPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const fonts = await Promise.all(
    [StandardFonts.Helvetica, StandardFonts.TimesRoman, StandardFonts.HelveticaBold].map((f) =>
      doc.embedFont(f),
    ),
  );
  const [sans, serif, bold] = fonts as [PDFFont, PDFFont, PDFFont];
  for (let p = 0; p < 4; p++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Section ${p + 1}. A heading`, { x: 72, y: 740, size: 16, font: bold });
    for (let i = 0; i < 25; i++) {
      const text = `Line ${i} of a paragraph of the warm-up document, with numbers ${i * 3}.`;
      page.drawText(text, { x: 72, y: 710 - i * 14, size: 10, font: i % 2 ? serif : sans });
    }
    for (let r = 0; r <= 5; r++) {
      const y = 300 - r * 20;
      page.drawLine({ start: { x: 72, y }, end: { x: 472, y }, thickness: 0.5 });
    }
    for (let c = 0; c <= 4; c++) {
      const x = 72 + c * 100;
      page.drawLine({ start: { x, y: 300 }, end: { x, y: 200 }, thickness: 0.5 });
    }
    for (let r = 0; r < 5; r++) {
      for (let c = 0; c < 4; c++) {
        page.drawText(`r${r}c${c}`, { x: 80 + c * 100, y: 285 - r * 20, size: 9, font: sans });
      }
    }
  }
  return doc.save();
}

/**
 * Parses a generated 100-page born-digital PDF in this fresh process, prints time and peak RSS,
 * and writes them as a {@link HundredPageResult} to `jsonFile` when one is given.
 */
async function rss100(jsonFile: string) {
  const source = await PDFDocument.load(
    readFileSync(join(CORPUS_DIR, 'files/docling-redp5110_sampled.pdf')),
  );
  const out = await PDFDocument.create();
  const indices = source.getPageIndices();
  while (out.getPageCount() < 100) {
    const copied = await out.copyPages(source, indices.slice(0, 100 - out.getPageCount()));
    copied.forEach((p) => out.addPage(p));
  }
  const dir = mkdtempSync(join(tmpdir(), 'docparse-100-'));
  const file = join(dir, 'hundred-pages.pdf');
  writeFileSync(file, await out.save());
  const server = await startBenchServer({
    dataDir: join(dir, 'data'),
    apiKey: API_KEY,
    env: { PDF_TEXT_READER: READER },
  });
  const t0 = performance.now();
  const { status, body } = await upload(server.url, file);
  const seconds = (performance.now() - t0) / 1000;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  const pages = body.pages?.length ?? 0;
  const result: HundredPageResult = {
    status,
    pages,
    seconds,
    pagesPerSecond: pages / seconds,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
  console.log(`\n## 100-page born-digital PDF (fresh process)\n`);
  console.log(
    `status ${status}, ${pages} pages in ${seconds.toFixed(2)} s (${result.pagesPerSecond.toFixed(1)} pages/s), peak RSS ${result.peakRssMb.toFixed(0)} MB (target < ${TARGETS.hundredPageRssMb} MB)`,
  );
  if (jsonFile) writeFileSync(jsonFile, JSON.stringify(result));
}
