/** The scoreboard's figures of one `npm run bench` run (see `report.ts` for how they are shown). */
import { existsSync, readFileSync } from 'node:fs';
import type { ApiLoadResult } from './api-load.js';
import type { BatchThroughputResult } from './batch-throughput.js';
import { CORPUS_DIR, SHARED_BENCH_README, categoryOf, isOcrDoc, shownPath } from './corpus.js';
import { machineInfo, sourceInfo, toolVersions } from './machine.js';
import {
  METRICS,
  meanOf as mean,
  parseReferenceTable,
  summarizeQuality,
  type BenchResults,
  type DocumentResult,
  type HundredPageResult,
  type MetricScores,
} from './report.js';
import { speedOf } from './run-corpus-report.js';
import type { CorpusResults, ScoreRow } from './run-corpus.js';
import type { BenchContext } from './run-options.js';

/** What each part of a run measured; null (or undefined) where it did not run. */
export interface BenchParts {
  corpus: CorpusResults | undefined;
  hundredPages: HundredPageResult | null;
  batch: BatchThroughputResult | null;
  apiLoad: ApiLoadResult | null;
}

/** Every number of the run, for the scoreboard. */
export function collectResults(
  ctx: BenchContext,
  parts: BenchParts,
  runtimeSeconds: number,
): BenchResults {
  const { docs } = ctx;
  const corpus = parts.corpus;
  const toScores = (r: ScoreRow | undefined): MetricScores | undefined => {
    if (!r) return undefined;
    const out = {} as MetricScores;
    for (const m of METRICS) out[m] = r[m] ?? null;
    return out;
  };
  const documents: DocumentResult[] = corpus
    ? docs.map((d) => {
        const { service, baselines, scores } = corpus;
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
      runtimeSeconds,
      command: ['npm run bench', ...(ctx.argv.length ? ['--', ...ctx.argv] : [])].join(' '),
      full: ctx.full,
      machine: machineInfo(),
      source: sourceInfo(),
      tools: toolVersions(),
      corpus:
        `dev corpus (\`${shownPath(CORPUS_DIR)}\`), ${docs.length} documents: ${counts['born-digital']} ` +
        `born-digital PDFs, ${counts.ocr} scans and images, ${counts.office} office documents`,
      settings: {
        'PDF reader': ctx.reader,
        'batch documents': ctx.runs.batch ? ctx.batchCount : 'not run',
        'API load': ctx.runs.api
          ? `${ctx.apiConnections} connections × ${ctx.apiDurationSeconds} s`
          : 'not run',
      },
    },
    documents,
    quality: corpus ? summarizeQuality(documents) : null,
    speed: corpus ? speedOf(docs, corpus) : null,
    hundredPages: parts.hundredPages,
    apiLoad: parts.apiLoad,
    batch: parts.batch,
    references: parseReferenceTable(readme, shownPath(SHARED_BENCH_README)) ?? null,
  };
}
