/**
 * The command line of `npm run bench` and the context its parts run with: what to run, where
 * files go, the settings of each part, and the corpus documents.
 */
import { resolve } from 'node:path';
import { defineCommand, type BenchValues } from './cli.js';
import { PARSEABLE_FORMATS, ROOT, type ManifestDoc } from './corpus.js';

export const BENCH_COMMAND = defineCommand({
  usage: 'npm run bench [-- options]',
  summary:
    'Quality and speed of docparse against pdftotext and the tesseract CLI on the dev corpus, ' +
    'memory on a 100-page PDF, batch throughput and API load. A full run (no option below but ' +
    '--out and --results) writes the scoreboard to bench/results; partial runs only print, ' +
    'unless --report is given.',
  options: {
    out: {
      type: 'string',
      value: 'dir',
      default: 'bench/out',
      description: 'working files: Markdown of each tool, scores',
    },
    results: {
      type: 'string',
      value: 'dir',
      default: 'bench/results',
      description: 'where the report goes',
    },
    report: { type: 'boolean', description: 'write the report even for a partial run' },
    only: {
      type: 'string',
      value: 'id part',
      default: '',
      description: 'only the corpus documents whose id contains this',
    },
    'only-api': { type: 'boolean', description: 'only the API load' },
    reader: {
      type: 'string',
      default: 'pdfium',
      choices: ['pdfium', 'pdfjs'],
      description: "the service's PDF text reader",
    },
    'no-baselines': { type: 'boolean', description: 'skip pdftotext and tesseract' },
    'no-100': { type: 'boolean', description: 'skip the 100-page PDF' },
    'no-batch': { type: 'boolean', description: 'skip the batch throughput' },
    'no-api': { type: 'boolean', description: 'skip the API load' },
    'batch-count': {
      type: 'number',
      value: 'n',
      default: 30,
      description: 'documents in the batch (`npm run bench:batch` runs 100)',
    },
    'api-duration': {
      type: 'number',
      value: 's',
      default: 10,
      description: 'length of the measured API load in seconds',
    },
    'api-connections': {
      type: 'number',
      value: 'n',
      default: 50,
      description: 'concurrent connections of the API load',
    },
    'api-doc': {
      type: 'string',
      value: 'id',
      default: 'zerox-0004',
      description: 'corpus document whose stored response is loaded',
    },
  },
});

export type BenchFlags = BenchValues<typeof BENCH_COMMAND.options>;

/** The parts of the bench a run measures. */
export interface BenchRuns {
  corpus: boolean;
  baselines: boolean;
  hundred: boolean;
  batch: boolean;
  api: boolean;
}

/** What a bench run does, from its command line alone. */
export interface BenchPlan {
  /** The arguments as given, for the report's record of the command. */
  argv: readonly string[];
  /** Working files: Markdown of each tool, scores, routing (absolute). */
  outDir: string;
  /** Where the scoreboard goes (absolute). */
  resultsDir: string;
  /** The service's PDF text reader. */
  reader: 'pdfium' | 'pdfjs';
  /** The API key of the servers the bench starts. */
  apiKey: string;
  /** Part of a document id; only the corpus documents whose id contains it run. */
  only: string;
  batchCount: number;
  apiDurationSeconds: number;
  apiConnections: number;
  /** Corpus document whose stored response the API load reads. */
  apiDoc: string;
  runs: BenchRuns;
  /** Every part with the default settings: the run that writes the scoreboard. */
  full: boolean;
  /** Write the scoreboard: a full run, or `--report`. */
  writeReport: boolean;
}

/** A bench run's plan and the corpus documents it parses. */
export interface BenchContext extends BenchPlan {
  /** Every document of the dev corpus. */
  manifest: readonly ManifestDoc[];
  /** The documents the corpus part parses: parseable formats, filtered by `only`. */
  docs: readonly ManifestDoc[];
}

/** The plan of the run `flags` ask for (`argv` is kept for the report). */
export function benchPlan(flags: BenchFlags, argv: readonly string[]): BenchPlan {
  const onlyApi = flags['only-api'];
  const runs: BenchRuns = {
    corpus: !onlyApi,
    baselines: !onlyApi && !flags['no-baselines'],
    hundred: !onlyApi && !flags['no-100'],
    batch: !onlyApi && !flags['no-batch'],
    api: !flags['no-api'],
  };
  const full = Object.values(runs).every(Boolean) && flags.only === '' && flags.reader === 'pdfium';
  return {
    argv,
    outDir: resolve(ROOT, flags.out),
    resultsDir: resolve(ROOT, flags.results),
    reader: flags.reader,
    apiKey: 'bench-key-0001',
    only: flags.only,
    batchCount: flags['batch-count'],
    apiDurationSeconds: flags['api-duration'],
    apiConnections: flags['api-connections'],
    apiDoc: flags['api-doc'],
    runs,
    full,
    writeReport: full || flags.report,
  };
}

/** The context of a run of `plan` over `manifest`. */
export function benchContext(plan: BenchPlan, manifest: readonly ManifestDoc[]): BenchContext {
  const docs = manifest.filter((d) => PARSEABLE_FORMATS.has(d.format) && d.id.includes(plan.only));
  return { ...plan, manifest, docs };
}
