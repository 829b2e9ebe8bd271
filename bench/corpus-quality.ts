/**
 * Quality of docparse on any corpus with Markdown ground truth (`<name>` in the test corpus that
 * `DOCPARSE_CORPUS_DIR` locates): each PDF, image and office document is parsed through the local
 * service's HTTP API, its pages' Markdown joined and scored by the shared scorer (`SCORER` of
 * `corpus.ts`), beside `pdftotext` on the PDFs
 * when poppler is installed. Prints the scorer's means (text, heading F1, table F1, reading
 * order, olmOCR tests), pages/s of each tool on the PDFs, and the Spearman rank correlation
 * between a document's mean page confidence (the mean of a page's layout, OCR, verbatim and,
 * when present, table scores) and its overall score: a confidence that tells the truth ranks
 * documents as the scorer does. Lists the documents whose overall is under 0.75 while most of
 * their pages are graded excellent, and writes each page's ConfidenceReport to `confidence.json`.
 *
 * Speed: pages/s of docparse on the born-digital PDFs and of `pdftotext` on the same files, their
 * ratio (pdftotext reads each PDF just before docparse parses it, so that both are timed under the
 * same load of a shared machine), and a time profile of the docparse run: the main thread's CPU
 * time by stage (layout stage modules, scoring, pipeline, storage, validation, HTTP), the PDF
 * worker's time per call (reading pages, opening documents, rendering) and the round trips'
 * overhead, the storage calls (DynamoDB operations, object reads and writes) per page and per
 * document, and the pages and summed latency of each provider (a page sent to OCR, first or on
 * re-routing, shows there).
 *
 * The born-digital PDFs are parsed once more after the scored pass (`--warm-passes n`, default 1,
 * 0 to skip) and timed apart: the first pass includes the server's one-time costs (code compiled
 * on first use, caches filled), the later ones measure a running service's throughput. Both are
 * printed beside pdftotext's.
 *
 *   npm run bench:quality -- --corpus papers     (default: dev; `-- --help` lists the options)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { resetStorageCalls, storageCalls } from '../functions/adapters/storage-calls.js';
import { PDF_WORKER_CPU, resetStageTimes, stageTimes } from '../functions/engines/stage-timings.js';
import { corpusPath } from '../test/support/corpus.js';
import { defineCommand, parseCommandLineOrExit } from './cli.js';
import { IMAGE_FORMATS, PARSEABLE_FORMATS, ROOT, SCORER } from './corpus.js';
import { reportFormulas } from './formula-count.js';
import { startBenchServer, uploadBytes } from './local-server.js';
import { profileRows, stageCpuTimes, startCpuProfile } from './time-profile.js';

interface Doc {
  id: string;
  file: string;
  format: string;
  pages: number;
  categories?: string[];
}

/** What `score.mjs --json` writes: means in `summary`, one row per document. */
interface Scores {
  summary: Record<string, number | null | undefined>;
  documents: { id: string; overall?: number | null }[];
}

const COMMAND = defineCommand({
  usage: 'npm run bench:quality [-- options]',
  summary:
    'Scores docparse on a corpus with ground truth beside pdftotext, with pages/s, a time ' +
    'profile, and how well page confidence ranks documents as the scorer does.',
  options: {
    corpus: {
      type: 'string',
      value: 'name',
      default: 'dev',
      description: 'the corpus, a folder of the test corpus (dev, papers)',
    },
    only: {
      type: 'string',
      value: 'id1,id2',
      description: 'run just these documents (the means are then over them alone)',
    },
    out: {
      type: 'string',
      value: 'dir',
      description: 'where Markdown, scores and reports go (default bench/out/quality/<corpus>)',
    },
    'warm-passes': {
      type: 'number',
      value: 'n',
      default: 1,
      min: 0,
      description: 'born-digital PDFs parsed again n times after the scored pass, timed apart',
    },
  },
});
const flags = parseCommandLineOrExit(COMMAND);
const corpusDir = corpusPath(flags.corpus);
const manifestPath = join(corpusDir, 'manifest.json');
/** `--only id1,id2`: run just these documents (the means are then over them alone). */
const only = flags.only?.split(',');
const docs = (JSON.parse(readFileSync(manifestPath, 'utf8')) as { documents: Doc[] }).documents
  .filter((d) => PARSEABLE_FORMATS.has(d.format))
  .filter((d) => !only || only.includes(d.id));
/** `--out dir`: where Markdown, scores and reports go (default bench/out/quality/<corpus>). */
const out = flags.out ?? join(ROOT, 'bench/out/quality', basename(corpusDir));
const KEY = 'bench-key-0001';
/** The manifest the scorer reads: with `--only`, one listing just those documents. */
const scoredManifest = only ? join(out, 'manifest.json') : manifestPath;
if (only) {
  mkdirSync(out, { recursive: true });
  const full = JSON.parse(readFileSync(manifestPath, 'utf8')) as { documents: Doc[] };
  // The scorer reads ground-truth paths relative to the manifest's folder.
  const documents = full.documents
    .filter((d) => only.includes(d.id))
    .map((d) =>
      Object.fromEntries(
        Object.entries(d).map(([k, v]) => [
          k,
          typeof v === 'string' && /^(files|gt)\//.test(v) ? relative(out, join(corpusDir, v)) : v,
        ]),
      ),
    );
  writeFileSync(scoredManifest, JSON.stringify({ ...full, documents }));
}
/** The scorer's overall below which a document is not good (the `good` grade's bound). */
const GOOD_OVERALL = 0.75;

/** Spearman's rho of two equally long series (average ranks for ties). */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  const ranks = (values: readonly number[]) => {
    const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(values.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
      for (let k = i; k <= j; k++) r[order[k]![1]] = (i + j) / 2 + 1;
      i = j + 1;
    }
    return r;
  };
  const rx = ranks(xs);
  const ry = ranks(ys);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(rx);
  const my = mean(ry);
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < rx.length; i++) {
    num += (rx[i]! - mx) * (ry[i]! - my);
    dx += (rx[i]! - mx) ** 2;
    dy += (ry[i]! - my) ** 2;
  }
  return dx === 0 || dy === 0 ? 0 : num / Math.sqrt(dx * dy);
}

function score(predDir: string, name: string): Scores {
  const json = join(predDir, 'scores.json');
  spawnSync(
    process.execPath,
    [
      SCORER,
      '--manifest',
      scoredManifest,
      '--pred',
      predDir,
      '--json',
      json,
      '--name',
      name,
      '--quiet',
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  return JSON.parse(readFileSync(json, 'utf8')) as Scores;
}

const fmt = (v: number | null | undefined) => (typeof v === 'number' ? v.toFixed(3) : '–');
const row = (name: string, s: Scores, pagesPerSecond: string) =>
  `| ${name} | ${fmt(s.summary.text)} | ${fmt(s.summary.heading)} | ${fmt(s.summary.table)} | ${fmt(s.summary.order)} | ${fmt(s.summary.tests)} | ${pagesPerSecond} |`;

const dataDir = mkdtempSync(join(tmpdir(), 'docparse-quality-'));
const server = await startBenchServer({ dataDir, apiKey: KEY });
const mine = join(out, 'docparse');
mkdirSync(mine, { recursive: true });
/** Per document: mean page confidence, and the share of its pages graded excellent (mean_grade). */
const confidence: Record<string, number> = {};
const excellentShare: Record<string, number> = {};
/** Per document and page: the ConfidenceReport, for looking into disagreements. */
const reports: Record<string, Record<string, unknown>[]> = {};
let pdfPages = 0;
let pdfSeconds = 0;
/** Born-digital PDFs: pages and seconds (the speed compared with pdftotext). */
let digitalPages = 0;
let digitalSeconds = 0;
const hasPdftotext = spawnSync('pdftotext', ['-v']).status === 0;
/**
 * Seconds pdftotext takes to read `file` (0 without poppler). Run just before docparse parses
 * the same file: a shared machine's speed drifts by tens of percent over a run, and timing the
 * two tools apart (minutes apart) made their ratio swing with it.
 */
const pdftotextSeconds = (file: string): number => {
  if (!hasPdftotext) return 0;
  const started = performance.now();
  spawnSync('pdftotext', [file, join(tmpdir(), 'docparse-pdftotext.txt')]);
  return (performance.now() - started) / 1000;
};
/** pdftotext's seconds on the born-digital PDFs, beside docparse's first pass and warm passes. */
let baselineSeconds = 0;
let warmBaselineSeconds = 0;
/** Per provider: pages it answered, their summed latency (ms), and pages re-routed. */
const byProvider = new Map<string, { pages: number; ms: number; reRouted: number }>();
const isBornDigital = (d: Doc) =>
  d.format === 'pdf' && (d.categories ?? []).includes('born-digital');
resetStageTimes();
resetStorageCalls();
/** `--warm-passes n`: born-digital PDFs parsed again n times after the scored pass, timed apart. */
const warmPasses = flags['warm-passes'];
// The sampling profiler slows the main thread and keeps V8's background threads busy: it
// samples the warm passes when there are any, so that the first pass is timed without it.
const profiling = warmPasses > 0 ? undefined : await startCpuProfile();
/** Milliseconds of wall time the main thread's profile covers. */
let profiledMs = 0;
const runStarted = performance.now();
let runSeconds = 0;
/** CPU milliseconds of a pass: the whole process, its main thread, and the PDF workers' calls. */
interface PassCpu {
  process: number;
  main: number;
  pdfWorkers: number;
}
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
const workerCpuMs = () => stageTimes().get(PDF_WORKER_CPU)?.ms ?? 0;
/** Starts measuring a pass's CPU; the function returned ends it. */
const measureCpu = (): (() => PassCpu) => {
  const [processAt, mainAt, workersAt] = [
    process.cpuUsage(),
    process.threadCpuUsage(),
    workerCpuMs(),
  ];
  return () => ({
    process: cpuMs(process.cpuUsage(processAt)),
    main: cpuMs(process.threadCpuUsage(mainAt)),
    pdfWorkers: workerCpuMs() - workersAt,
  });
};
const firstPassCpu = measureCpu();
let firstCpu: PassCpu = { process: 0, main: 0, pdfWorkers: 0 };
let warmCpu: PassCpu | undefined;
let warmPages = 0;
let warmSeconds = 0;
let cpu: ReturnType<typeof stageCpuTimes> = new Map();
let workerTimes: ReturnType<typeof stageTimes> = new Map();
let storage: ReturnType<typeof storageCalls> = new Map();
try {
  for (const d of docs) {
    const bytes = readFileSync(join(corpusDir, d.file));
    if (isBornDigital(d)) baselineSeconds += pdftotextSeconds(join(corpusDir, d.file));
    const started = performance.now();
    const res = await uploadBytes(server.url, KEY, bytes, basename(d.file));
    const seconds = (performance.now() - started) / 1000;
    const pages = (res.body.pages ?? []) as {
      content_markdown: string;
      confidence: Record<string, unknown>;
      provider?: string;
      latency_ms?: number;
      re_route_result?: unknown;
    }[];
    if (d.format === 'pdf') {
      pdfPages += d.pages;
      pdfSeconds += seconds;
    }
    if (isBornDigital(d)) {
      digitalPages += d.pages;
      digitalSeconds += seconds;
    }
    for (const p of pages) {
      const key = p.provider ?? '?';
      const entry = byProvider.get(key) ?? { pages: 0, ms: 0, reRouted: 0 };
      entry.pages++;
      entry.ms += p.latency_ms ?? 0;
      if (p.re_route_result) entry.reRouted++;
      byProvider.set(key, entry);
    }
    writeFileSync(join(mine, `${d.id}.md`), pages.map((p) => p.content_markdown).join('\n\n'));
    const perPage = pages.map((p) => {
      const parts = ['layout_score', 'ocr_score', 'verbatim_score', 'table_score']
        .map((k) => p.confidence[k])
        .filter((v): v is number => typeof v === 'number');
      return parts.reduce((a, b) => a + b, 0) / Math.max(1, parts.length);
    });
    confidence[d.id] = perPage.reduce((a, b) => a + b, 0) / Math.max(1, perPage.length);
    excellentShare[d.id] =
      pages.filter((p) => p.confidence.mean_grade === 'excellent').length /
      Math.max(1, pages.length);
    reports[d.id] = pages.map((p) => p.confidence);
    console.log(`${String(res.status)} ${seconds.toFixed(2).padStart(6)} s  ${d.id}`);
  }
  runSeconds = (performance.now() - runStarted) / 1000;
  firstCpu = firstPassCpu();
  if (profiling) {
    cpu = stageCpuTimes(await profiling.stop());
    profiledMs = runSeconds * 1000;
  }
  workerTimes = stageTimes();
  storage = storageCalls();
  const warmProfiling = warmPasses > 0 ? await startCpuProfile() : undefined;
  const warmPassesCpu = measureCpu();
  for (let pass = 0; pass < warmPasses; pass++) {
    for (const d of docs.filter(isBornDigital)) {
      // A comment after the end of the file makes the bytes (and their hash) new, so that no
      // cache keyed by the document's hash (the PDF reader's open documents and pages) helps.
      const bytes = Buffer.concat([
        readFileSync(join(corpusDir, d.file)),
        Buffer.from(`\n% warm pass ${String(pass + 1)}\n`),
      ]);
      warmBaselineSeconds += pdftotextSeconds(join(corpusDir, d.file));
      const started = performance.now();
      const res = await uploadBytes(server.url, KEY, bytes, basename(d.file));
      if (res.status !== 200) throw new Error(`${d.id}: ${String(res.status)} on a warm pass`);
      warmSeconds += (performance.now() - started) / 1000;
      warmPages += d.pages;
    }
  }
  if (warmProfiling) {
    warmCpu = warmPassesCpu();
    cpu = stageCpuTimes(await warmProfiling.stop());
    profiledMs = warmSeconds * 1000;
  }
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
/** Pages of every document parsed, the denominator of the storage calls per page. */
const pagesParsed = [...byProvider.values()].reduce((n, p) => n + p.pages, 0);
const scores = score(mine, 'docparse');
const scored = scores.documents.filter(
  (d): d is { id: string; overall: number } => typeof d.overall === 'number',
);
const rhoOf = (subset: readonly { id: string; overall: number }[]) =>
  spearman(
    subset.map((d) => confidence[d.id] ?? 0),
    subset.map((d) => d.overall),
  );
const formatOf = new Map(docs.map((d) => [d.id, d.format]));
const pdfsAndImages = scored.filter(
  (d) => formatOf.get(d.id) === 'pdf' || IMAGE_FORMATS.has(formatOf.get(d.id) ?? ''),
);
/** Documents the confidence gets wrong: overall under good while most pages are graded excellent. */
const overconfident = scored.filter(
  (d) => d.overall < GOOD_OVERALL && (excellentShare[d.id] ?? 0) > 0.5,
);
writeFileSync(
  join(out, 'confidence.json'),
  JSON.stringify(
    scored.map((d) => ({
      id: d.id,
      format: formatOf.get(d.id),
      overall: d.overall,
      confidence: confidence[d.id],
      excellent: excellentShare[d.id],
      pages: reports[d.id],
    })),
    null,
    1,
  ),
);

// pdftotext on the PDFs, when poppler is installed.
const pdfs = docs.filter((d) => d.format === 'pdf');
let baseline: string | undefined;
if (hasPdftotext) {
  const dir = join(out, 'pdftotext');
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  for (const d of pdfs) {
    spawnSync('pdftotext', [join(corpusDir, d.file), join(dir, `${d.id}.md`)]);
  }
  const seconds = (performance.now() - started) / 1000;
  const total = pdfs.reduce((n, d) => n + d.pages, 0);
  baseline = row(
    'pdftotext (PDFs only; others empty)',
    score(dir, 'pdftotext'),
    (total / seconds).toFixed(1),
  );
}

console.log(`\n## Quality on ${basename(corpusDir)} (${String(docs.length)} documents)\n`);
console.log('| tool | text | heading F1 | table F1 | reading order | olmOCR tests | PDF pages/s |');
console.log('| --- | --: | --: | --: | --: | --: | --: |');
console.log(row('docparse', scores, pdfSeconds > 0 ? (pdfPages / pdfSeconds).toFixed(1) : '–'));
if (baseline) console.log(baseline);
console.log(
  `\nSpearman rho, mean page confidence vs overall score: ${rhoOf(scored).toFixed(2)} over all ${String(scored.length)} documents, ${rhoOf(pdfsAndImages).toFixed(2)} over the ${String(pdfsAndImages.length)} PDFs and images`,
);
console.log(
  `\nDocuments with overall < ${String(GOOD_OVERALL)} whose pages are mostly graded excellent: ${String(overconfident.length)}`,
);
for (const d of overconfident) {
  console.log(
    `- ${d.id}: overall ${d.overall.toFixed(3)}, mean confidence ${(confidence[d.id] ?? 0).toFixed(3)}, ${String(Math.round((excellentShare[d.id] ?? 0) * 100))}% of pages excellent`,
  );
}
console.log(`(per-page confidence reports: ${join(out, 'confidence.json')})`);
reportFormulas(mine, basename(corpusDir));

const digitalRate = digitalSeconds > 0 ? digitalPages / digitalSeconds : 0;
console.log(`\n## Speed and time profile on ${basename(corpusDir)}\n`);
/** ` (0.21 × pdftotext, at 120.3 pages/s)`: docparse's `rate` against pdftotext's beside it. */
const versus = (rate: number, pages: number, pdftotext: number) =>
  pdftotext > 0
    ? ` (${(rate / (pages / pdftotext)).toFixed(2)} × pdftotext, at ${(pages / pdftotext).toFixed(1)} pages/s)`
    : '';
const warmRate = warmSeconds > 0 ? warmPages / warmSeconds : 0;
console.log(
  `Born-digital PDFs (${String(digitalPages)} pages) through the HTTP API: docparse ${digitalRate.toFixed(1)} pages/s on the first pass${versus(digitalRate, digitalPages, baselineSeconds)}${warmSeconds > 0 ? `, ${warmRate.toFixed(1)} pages/s warm (${String(warmPasses)} more pass${warmPasses > 1 ? 'es' : ''})${versus(warmRate, warmPages, warmBaselineSeconds)}` : ''}`,
);
/** Prints the CPU each kind of thread used per pass. */
const printCpuByThread = (): void => {
  // Per pass over the same pages; the warm passes' sum divided by their number.
  const passes: [string, PassCpu][] = [['first pass', firstCpu]];
  if (warmCpu) {
    const n = Math.max(1, warmPasses);
    passes.push([
      'warm pass',
      { process: warmCpu.process / n, main: warmCpu.main / n, pdfWorkers: warmCpu.pdfWorkers / n },
    ]);
  }
  console.log(
    `\nCPU by thread per pass, in ms (the first pass parses every document, a warm pass the born-digital PDFs${warmPasses > 0 ? '; the warm passes run under the sampling profiler' : ', under the sampling profiler'}):\n`,
  );
  console.log(`| thread | ${passes.map(([name]) => name).join(' | ')} |`);
  console.log(`| --- | ${passes.map(() => '--:').join(' | ')} |`);
  const rows: [string, (c: PassCpu) => number][] = [
    ['all threads of the process', (c) => c.process],
    ['main thread (HTTP, pipeline, storage, scoring)', (c) => c.main],
    ['PDF workers, on their calls (text layer, inspection, layout)', (c) => c.pdfWorkers],
    [
      "other threads (V8's background compiler and garbage collector, libuv's pool; workers between calls)",
      (c) => c.process - c.main - c.pdfWorkers,
    ],
  ];
  for (const [name, of] of rows) {
    console.log(`| ${name} | ${passes.map(([, c]) => of(c).toFixed(0)).join(' | ')} |`);
  }
};
printCpuByThread();
console.log(
  `\nMain thread CPU by stage over ${warmPasses > 0 ? `the warm pass${warmPasses > 1 ? 'es' : ''}` : 'the whole docparse run'} (${(profiledMs / 1000).toFixed(1)} s wall; layout stages by module; sampled):\n`,
);
console.log('| stage | calls | ms | share of wall |');
console.log('| --- | --: | --: | --: |');
for (const line of profileRows(cpu, profiledMs)) console.log(line);
console.log(
  '\nEngine workers (time inside the PDF worker per call, and the round trips around it):\n',
);
console.log('| stage | calls | ms | share of wall |');
console.log('| --- | --: | --: | --: |');
for (const line of profileRows(workerTimes, runSeconds * 1000)) console.log(line);
console.log(
  `\nStorage calls over the run (${String(docs.length)} documents, ${String(pagesParsed)} pages; objects kept in memory are not read from disk):\n`,
);
console.log('| call | count | per page | per document |');
console.log('| --- | --: | --: | --: |');
for (const [kind, count] of [...storage].sort((a, b) => b[1] - a[1])) {
  console.log(
    `| ${kind} | ${String(count)} | ${(count / Math.max(1, pagesParsed)).toFixed(2)} | ${(count / Math.max(1, docs.length)).toFixed(1)} |`,
  );
}
console.log('\nPages by provider (latency summed over pages; pages run concurrently):\n');
console.log('| provider | pages | summed latency ms | re-routed |');
console.log('| --- | --: | --: | --: |');
for (const [provider, p] of [...byProvider].sort((a, b) => b[1].ms - a[1].ms)) {
  console.log(`| ${provider} | ${String(p.pages)} | ${p.ms.toFixed(0)} | ${String(p.reRouted)} |`);
}
