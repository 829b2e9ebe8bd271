/**
 * The corpus part of `npm run bench`: the service parses the dev corpus through its own HTTP API
 * (the local server, in this process), `pdftotext` and the `tesseract` CLI read the same PDFs and
 * images, and the shared scorer scores each tool's Markdown.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import { detectDocumentType } from '../functions/core/domain/document-type.js';
import type { StoredInspection } from '../functions/core/domain/pipeline/classify.js';
import { workKeys } from '../functions/core/domain/object-keys.js';
import type {
  DocumentFormat,
  DocumentTypeReport,
  QualityGrade,
  Tier,
} from '../functions/core/domain/schemas.js';
import {
  CORPUS_DIR,
  MANIFEST,
  ROOT,
  SCORER,
  isOcrDoc,
  isOfficeDoc,
  type ManifestDoc,
} from './corpus.js';
import { startBenchServer, uploadBytes, type UploadResult } from './local-server.js';
import type { BenchContext } from './run-options.js';

export interface ServiceRow {
  /** Wall time of the request, in seconds. */
  seconds: number;
  pages: number;
  status: number;
  /** OCR provider latency of each OCR page, in milliseconds. */
  ocrPageMs: number[];
  routing: DocumentRouting | undefined;
}

export interface ServiceRun {
  rows: Record<string, ServiceRow>;
  /** Peak RSS of this process after the corpus, in MiB. */
  peakRssMb: number;
}

export interface Baselines {
  /** pdftotext wall time per PDF, in seconds. */
  pdfTimes: Record<string, number>;
  /** Rasterising and tesseract wall time per document, in seconds. */
  tessTimes: Record<string, number>;
  /** tesseract time per page per document, in seconds. */
  tessOcrSeconds: Record<string, number>;
  /** The baselines that ran: a tool that is not installed is left out (Debian packages). */
  ran: { pdftotext: boolean; tesseract: boolean };
}

/** Whether `command` runs on this machine. */
const installed = (command: string): boolean =>
  spawnSync(command, ['-v'], { stdio: 'ignore' }).error === undefined;

/** One document's figures from the scorer's JSON (0–1; null or missing where not applicable). */
export interface ScoreRow {
  id: string;
  text?: number | null;
  heading?: number | null;
  table?: number | null;
  order?: number | null;
  tests?: number | null;
}

export interface CorpusResults {
  service: ServiceRun;
  baselines: Baselines | undefined;
  scores: {
    service: Map<string, ScoreRow>;
    pdftotext?: Map<string, ScoreRow>;
    tesseract?: Map<string, ScoreRow>;
  };
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
export interface DocumentRouting {
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
 * Runs the corpus part: the service (born-digital PDFs back to back, as pdftotext runs them,
 * then scans and images, then office documents), the baselines unless skipped, and the scores.
 * Empties `ctx.outDir` first.
 */
export async function runCorpus(ctx: BenchContext): Promise<CorpusResults> {
  rmSync(ctx.outDir, { recursive: true, force: true });
  const { docs } = ctx;
  const service = await runService(ctx, [
    ...docs.filter((d) => !isOcrDoc(d) && !isOfficeDoc(d)),
    ...docs.filter((d) => isOcrDoc(d)),
    ...docs.filter((d) => isOfficeDoc(d)),
  ]);
  const baselines = ctx.runs.baselines ? runBaselines(ctx.outDir, docs) : undefined;
  const scores = {
    service: score(ctx.outDir, 'service'),
    ...(baselines?.ran.pdftotext === true ? { pdftotext: score(ctx.outDir, 'pdftotext') } : {}),
    ...(baselines?.ran.tesseract === true ? { tesseract: score(ctx.outDir, 'tesseract') } : {}),
  };
  return { service, baselines, scores };
}

async function runService(ctx: BenchContext, list: readonly ManifestDoc[]): Promise<ServiceRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'docparse-bench-'));
  const server = await startBenchServer({
    dataDir,
    apiKey: ctx.apiKey,
    env: { PDF_TEXT_READER: ctx.reader },
  });
  const upload = (file: string) =>
    uploadBytes(server.url, ctx.apiKey, readFileSync(file), basename(file));
  const dir = join(ctx.outDir, 'service');
  mkdirSync(dir, { recursive: true });
  const timings: Record<string, number> = {};
  const rows: Record<string, ServiceRow> = {};
  try {
    // Warm-up: one image and one generated PDF, so that the OCR workers, the PDF readers and
    // the pipeline code are loaded and compiled, as in a service that has been running.
    const warm = ctx.manifest.find((d) => d.format === 'png');
    if (warm) await upload(join(CORPUS_DIR, warm.file));
    await uploadBytes(server.url, ctx.apiKey, await warmUpPdf(), 'warm-up.pdf');
    for (const d of list) {
      const t0 = performance.now();
      const { status, body } = await upload(join(CORPUS_DIR, d.file));
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
    join(ctx.outDir, 'service.routes.json'),
    JSON.stringify(
      Object.fromEntries(Object.entries(rows).map(([id, r]) => [id, r.routing ?? null])),
      null,
      1,
    ),
  );
  return { rows, peakRssMb: process.resourceUsage().maxRSS / 1024 };
}

/**
 * Routing of a parsed document from its ParseResponse pages, with the complexity and features
 * Classify stored under the local server's data directory (`objects/` is where the local
 * runtime keeps its object store).
 */
function routingOf(
  dataDir: string,
  body: UploadResult['body'],
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

function runBaselines(outDir: string, list: readonly ManifestDoc[]): Baselines {
  const pdfDir = join(outDir, 'pdftotext');
  const tessDir = join(outDir, 'tesseract');
  mkdirSync(pdfDir, { recursive: true });
  mkdirSync(tessDir, { recursive: true });
  const pdfTimes: Record<string, number> = {};
  const tessTimes: Record<string, number> = {};
  const tessOcrSeconds: Record<string, number> = {};
  const ran = { pdftotext: installed('pdftotext'), tesseract: installed('tesseract') };
  // Rasterising scanned PDFs for tesseract takes pdftoppm, of the same package as pdftotext.
  ran.tesseract &&= ran.pdftotext;
  for (const [tool, ok] of Object.entries(ran)) {
    if (!ok) console.error(`${tool} is not installed: its baseline is left out`);
  }
  const work = mkdtempSync(join(tmpdir(), 'docparse-baseline-'));
  for (const d of list) {
    const file = join(CORPUS_DIR, d.file);
    if (d.format === 'pdf' && ran.pdftotext) {
      const t0 = performance.now();
      const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
      pdfTimes[d.id] = (performance.now() - t0) / 1000;
      writeFileSync(join(pdfDir, `${d.id}.md`), text);
    }
    if (!isOcrDoc(d) || !ran.tesseract) continue;
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
  return { pdfTimes, tessTimes, tessOcrSeconds, ran };
}

/** Scores the Markdown under `outDir/name` with the shared scorer. */
function score(outDir: string, name: string): Map<string, ScoreRow> {
  const json = join(outDir, `${name}.scores.json`);
  execFileSync(
    process.execPath,
    [SCORER, '--manifest', MANIFEST, '--pred', join(outDir, name), '--json', json, '--quiet'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const parsed = JSON.parse(readFileSync(json, 'utf8')) as { documents: ScoreRow[] };
  return new Map(parsed.documents.map((r) => [r.id, r]));
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
