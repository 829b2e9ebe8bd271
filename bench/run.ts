/**
 * Quality and speed bench: parses every PDF, image and office document (docx, pptx, xlsx, xls,
 * html, md) of the dev corpus through the service's own HTTP API and pipeline (the local server,
 * in this process), scores the Markdown with the shared scorer, and runs poppler's `pdftotext`
 * and the `tesseract` CLI (one thread) on the same PDFs and images.
 *
 *   npm run bench [-- --out bench/out] [-- --no-baselines] [-- --no-100] [-- --only <id part>]
 *                 [-- --reader pdfium|pdfjs]
 *
 * Prints per-document and mean text / heading / table / order / tests (means over PDFs and images
 * as before, and over the office documents on their own line), the routing of each
 * document (detected type; tier, complexity and confidence grades per page; also written to
 * `service.routes.json`), pages per second of born-digital PDFs, OCR seconds per page against the
 * CLI, and peak RSS (a separate process parses a generated 100-page born-digital PDF for the
 * memory figure).
 */
import '../functions/polyfills.js';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import { startLocalServer } from '../functions/adapters/local/server.js';
import { loadConfig } from '../functions/config.js';
import { detectDocumentType } from '../functions/core/domain/document-type.js';
import type { StoredInspection } from '../functions/core/domain/pipeline/classify.js';
import { workKeys } from '../functions/core/domain/pipeline/pipeline-ports.js';
import type {
  DocumentFormat,
  DocumentTypeReport,
  QualityGrade,
  Tier,
} from '../functions/core/domain/schemas.js';

interface ManifestDoc {
  id: string;
  file: string;
  format: string;
  pages: number;
  categories: string[];
}

const ROOT = resolve(import.meta.dirname, '..');
const SHARED = resolve(ROOT, '../shared');
const MANIFEST = join(SHARED, 'corpus/dev/manifest.json');
const SCORER = join(SHARED, 'bench/score.mjs');
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
};
const OUT = resolve(ROOT, option('out', 'bench/out'));
const API_KEY = 'bench-key-0001';
const OFFICE = new Set(['docx', 'pptx', 'xlsx', 'xls', 'html', 'md']);
const PARSEABLE = new Set(['pdf', 'png', 'jpeg', 'jpg', 'webp', 'tiff', 'heic', ...OFFICE]);
/** The office documents' mean text score the converters are held to. */
const OFFICE_TEXT_BAR = 0.9;

if (flag('rss-100')) {
  await rss100();
  process.exit(0);
}

const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as { documents: ManifestDoc[] };
const only = option('only', '');
const docs = manifest.documents.filter((d) => PARSEABLE.has(d.format) && d.id.includes(only));
const isOfficeDoc = (d: ManifestDoc) => OFFICE.has(d.format);
const isOcrDoc = (d: ManifestDoc) =>
  !isOfficeDoc(d) &&
  (d.format !== 'pdf' ||
    d.categories.includes('scanned') ||
    d.categories.includes('image-only-pdf'));
rmSync(OUT, { recursive: true, force: true });

// 1. The service.
// Born-digital PDFs are timed back to back (as pdftotext runs them), then scans and images, then
// office documents.
const service = await runService([
  ...docs.filter((d) => !isOcrDoc(d) && !isOfficeDoc(d)),
  ...docs.filter((d) => isOcrDoc(d)),
  ...docs.filter((d) => isOfficeDoc(d)),
]);

// 2. Baselines.
const baselines = flag('no-baselines') ? undefined : runBaselines(docs);

// 3. Scores.
const scores = {
  service: score('service'),
  ...(baselines ? { pdftotext: score('pdftotext'), tesseract: score('tesseract') } : {}),
};

// 4. Report.
report();
routingReport();

// 5. Memory on a 100-page born-digital PDF, in a fresh process.
if (!flag('no-100')) {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench/run.ts'), '--rss-100'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  process.stdout.write(child.stdout);
  if (child.status !== 0) process.stderr.write(child.stderr);
}

/** The local server on `dataDir`, with the bench's key and the chosen PDF reader. */
async function startBenchServer(dataDir: string) {
  const config = loadConfig({
    RUNTIME_MODE: 'local',
    DATA_DIR: dataDir,
    PORT: '0',
    API_KEYS: `${API_KEY}=bench:scale`,
    LOG_LEVEL: 'ERROR',
    PDF_TEXT_READER: option('reader', 'pdfium'),
  });
  if (config.RUNTIME_MODE !== 'local') throw new Error('local mode expected');
  return startLocalServer(config);
}

async function runService(list: ManifestDoc[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'docparse-bench-'));
  const server = await startBenchServer(dataDir);
  const dir = join(OUT, 'service');
  mkdirSync(dir, { recursive: true });
  const timings: Record<string, number> = {};
  const rows: Record<
    string,
    {
      seconds: number;
      pages: number;
      status: number;
      ocrPageMs: number[];
      routing: DocumentRouting | undefined;
    }
  > = {};
  try {
    // Warm-up: one image and one generated PDF, so that the OCR workers, the PDF readers and
    // the pipeline code are loaded and compiled, as in a service that has been running.
    const warm = docs.find((d) => d.format === 'png');
    if (warm) await upload(server.url, join(SHARED, 'corpus/dev', warm.file));
    await uploadBytes(server.url, await warmUpPdf(), 'warm-up.pdf');
    for (const d of list) {
      const t0 = performance.now();
      const { status, body } = await upload(server.url, join(SHARED, 'corpus/dev', d.file));
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
  return uploadBytes(url, readFileSync(file), basename(file));
}

async function uploadBytes(url: string, bytes: Uint8Array, filename: string) {
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), filename);
  const res = await fetch(`${url}/v1/parse/upload`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY },
    body: form,
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown> & { pages?: unknown[] },
  };
}

function runBaselines(list: ManifestDoc[]) {
  const pdfDir = join(OUT, 'pdftotext');
  const tessDir = join(OUT, 'tesseract');
  mkdirSync(pdfDir, { recursive: true });
  mkdirSync(tessDir, { recursive: true });
  const pdfTimes: Record<string, number> = {};
  const tessTimes: Record<string, number> = {};
  const tessOcrSeconds: Record<string, number> = {};
  const work = mkdtempSync(join(tmpdir(), 'docparse-baseline-'));
  for (const d of list) {
    const file = join(SHARED, 'corpus/dev', d.file);
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

function mean(values: (number | null | undefined)[]): number | null {
  const v = values.filter((x): x is number => typeof x === 'number' && !Number.isNaN(x));
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
}

function report() {
  const metrics = ['text', 'heading', 'table', 'order', 'tests'] as const;
  const f = (v: number | null | undefined) =>
    (typeof v === 'number' ? v.toFixed(3) : '  -  ').padStart(7);
  const officeIds = docs.filter(isOfficeDoc).map((d) => d.id);
  console.log(
    `\n## Quality (dev corpus, ${docs.length - officeIds.length} PDFs and images, ${officeIds.length} office documents; scorer ../shared/bench/score.mjs)\n`,
  );
  console.log(
    `${'document'.padEnd(38)} ${metrics.map((m) => m.padStart(7)).join(' ')}   s/doc  pages  status`,
  );
  for (const d of docs) {
    const r = scores.service.get(d.id);
    const s = service.rows[d.id]!;
    console.log(
      `${d.id.slice(0, 38).padEnd(38)} ${metrics.map((m) => f(r?.[m])).join(' ')} ${s.seconds.toFixed(2).padStart(7)} ${String(s.pages).padStart(6)}  ${s.status}`,
    );
  }
  const line = (label: string, table: Map<string, ScoreRow>, ids: string[]) => {
    console.log(
      `${label.padEnd(38)} ${metrics.map((m) => f(mean(ids.map((id) => table.get(id)?.[m])))).join(' ')}`,
    );
  };
  // The PDF and image lines keep their meaning; office documents have their own line.
  const all = docs.filter((d) => !isOfficeDoc(d)).map((d) => d.id);
  const ocrIds = docs.filter(isOcrDoc).map((d) => d.id);
  const digitalIds = docs.filter((d) => !isOcrDoc(d) && !isOfficeDoc(d)).map((d) => d.id);
  console.log('');
  line('MEAN service (all)', scores.service, all);
  line('MEAN service (born-digital PDFs)', scores.service, digitalIds);
  line('MEAN service (scans and images)', scores.service, ocrIds);
  if (officeIds.length > 0) {
    line('MEAN service (office documents)', scores.service, officeIds);
    const officeText = mean(officeIds.map((id) => scores.service.get(id)?.text));
    console.log(
      `office documents: mean text ${officeText === null ? '-' : officeText.toFixed(3)} (bar ≥ ${OFFICE_TEXT_BAR.toFixed(2)}: ${officeText !== null && officeText >= OFFICE_TEXT_BAR ? 'met' : 'NOT met'})`,
    );
  }
  if (scores.pdftotext) line('MEAN pdftotext (all)', scores.pdftotext, all);
  if (scores.tesseract) line('MEAN tesseract CLI (scans and images)', scores.tesseract, ocrIds);

  console.log('\n## Speed\n');
  const digitalPages = digitalIds.reduce((n, id) => n + service.rows[id]!.pages, 0);
  const digitalSeconds = digitalIds.reduce((n, id) => n + service.rows[id]!.seconds, 0);
  console.log(
    `service, born-digital PDFs: ${digitalPages} pages in ${digitalSeconds.toFixed(2)} s = ${(digitalPages / digitalSeconds).toFixed(1)} pages/s`,
  );
  if (baselines) {
    const pdfSeconds = digitalIds.reduce((n, id) => n + (baselines.pdfTimes[id] ?? 0), 0);
    const pps = digitalPages / pdfSeconds;
    console.log(
      `pdftotext, same files:      ${digitalPages} pages in ${pdfSeconds.toFixed(2)} s = ${pps.toFixed(1)} pages/s`,
    );
    console.log(
      `ratio service / pdftotext:  ${(digitalPages / digitalSeconds / pps).toFixed(2)} (target ≥ 0.33)`,
    );
  }
  const ocrMs = ocrIds.flatMap((id) => service.rows[id]!.ocrPageMs);
  const ourOcr = (mean(ocrMs) ?? 0) / 1000;
  console.log(
    `service OCR: ${ocrMs.length} pages, mean ${ourOcr.toFixed(2)} s/page (provider latency)`,
  );
  if (baselines) {
    const cli = mean(ocrIds.map((id) => baselines.tessOcrSeconds[id])) ?? 0;
    console.log(`tesseract CLI (OMP_THREAD_LIMIT=1, 300 dpi): mean ${cli.toFixed(2)} s/page`);
    console.log(`ratio service / CLI: ${(ourOcr / cli).toFixed(2)} (target ≤ 1.5)`);
    for (const id of ocrIds) {
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

/**
 * Per document: the detected type (from Classify's features) and, per page, the tier chosen,
 * the complexity score and the confidence grades (mean/low), twelve pages to a block.
 */
function routingReport() {
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

/** Parses a generated 100-page born-digital PDF in this fresh process and reports time and peak RSS. */
async function rss100() {
  const source = await PDFDocument.load(
    readFileSync(join(SHARED, 'corpus/dev/files/docling-redp5110_sampled.pdf')),
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
  const server = await startBenchServer(join(dir, 'data'));
  const t0 = performance.now();
  const { status, body } = await upload(server.url, file);
  const seconds = (performance.now() - t0) / 1000;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  const pages = body.pages?.length ?? 0;
  console.log(`\n## 100-page born-digital PDF (fresh process)\n`);
  console.log(
    `status ${status}, ${pages} pages in ${seconds.toFixed(2)} s (${(pages / seconds).toFixed(1)} pages/s), peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (target < 1024 MB)`,
  );
}
