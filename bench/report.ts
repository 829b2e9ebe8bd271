/**
 * The bench's scoreboard: the numbers of one run (`BenchResults`), their summaries, and the
 * files written from them — `latest.md` (GFM tables), `latest.svg` (a vega-lite chart rendered
 * without a browser) and `latest.json` (every number).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { ApiLoadResult } from './api-load.js';
import type { BatchThroughputResult } from './batch-throughput.js';
import { CATEGORY_LABELS, type DocumentCategory } from './corpus.js';
import type { MachineInfo, SourceInfo, ToolVersions } from './machine.js';

/** The scorer's metrics the reports show, in order. */
export const METRICS = ['text', 'heading', 'table', 'order', 'tests'] as const;
export type Metric = (typeof METRICS)[number];

/** Column titles of the metrics. */
export const METRIC_LABELS: Readonly<Record<Metric, string>> = {
  text: 'text',
  heading: 'heading F1',
  table: 'table F1',
  order: 'reading order',
  tests: 'olmOCR tests',
};

/** Scores from 0 to 1 (higher is better); null where the metric does not apply. */
export type MetricScores = Record<Metric, number | null>;

/** The tools the bench runs on the corpus: the service and its two references. */
export const TOOLS = ['docparse', 'pdftotext', 'tesseract CLI'] as const;
export type Tool = (typeof TOOLS)[number];

/** Chart colours of the tools, in the order of {@link TOOLS}. */
const TOOL_COLORS = ['#4c78a8', '#f58518', '#54a24b'];

const CATEGORIES: readonly DocumentCategory[] = ['born-digital', 'ocr', 'office'];

/** One corpus document: how each tool did on it. */
export interface DocumentResult {
  id: string;
  format: string;
  category: DocumentCategory;
  /** Pages according to the corpus manifest. */
  pages: number;
  docparse: {
    /** HTTP status of POST /v1/parse/upload. */
    status: number;
    /** Pages in the ParseResponse. */
    pages: number;
    /** Wall time of the request, in seconds. */
    seconds: number;
    /** Mean OCR provider latency of its OCR pages, in seconds per page; null without OCR. */
    ocrSecondsPerPage: number | null;
  };
  /** Wall time of `pdftotext`, in seconds; null when not run (not a PDF, or no baselines). */
  pdftotextSeconds: number | null;
  /** Wall time of rasterising and OCR, and OCR alone per page, in seconds; null when not run. */
  tesseract: { seconds: number; ocrSecondsPerPage: number } | null;
  /** The scorer's figures of each tool that produced output for the document. */
  scores: Partial<Record<Tool, MetricScores>>;
}

/** Mean scores of one tool over a set of documents. */
export interface QualityRow {
  /** The tool, or a combination of tools, e.g. `pdftotext, tesseract CLI for scans and images`. */
  tool: string;
  /** Which documents, e.g. `born-digital PDFs`. */
  documents: string;
  /** The category the documents make up, when they are one. */
  category: DocumentCategory | null;
  /** How many documents. */
  count: number;
  /** Means over the documents where the metric applies; null where it applies to none. */
  means: MetricScores;
}

export interface QualitySummary {
  /** Each tool on the documents it reads. */
  overall: QualityRow[];
  /** The tools side by side, category by category. */
  byCategory: QualityRow[];
}

export interface SpeedResults {
  bornDigital: {
    documents: number;
    pages: number;
    /** Sum of the request wall times, in seconds. */
    docparseSeconds: number;
    docparsePagesPerSecond: number;
    /** Sum of the `pdftotext` wall times, in seconds; null without baselines. */
    pdftotextSeconds: number | null;
    pdftotextPagesPerSecond: number | null;
  };
  ocr: {
    documents: number;
    /** Pages the service read with OCR. */
    pages: number;
    /** Mean OCR provider latency, in seconds per page. */
    docparseSecondsPerPage: number | null;
    /** Mean per document of the CLI's OCR time per page (300 dpi, one thread), in seconds. */
    tesseractSecondsPerPage: number | null;
  };
  /** Peak resident set size of the process that served every document, in MiB. */
  benchPeakRssMb: number;
}

/** A generated 100-page born-digital PDF parsed in a fresh process. */
export interface HundredPageResult {
  status: number;
  pages: number;
  /** Wall time of the request, in seconds. */
  seconds: number;
  pagesPerSecond: number;
  /** Peak resident set size of that process, in MiB. */
  peakRssMb: number;
}

/** A table of figures reported elsewhere, kept as text. */
export interface ReferenceTable {
  /** Where the table comes from, e.g. `../shared/bench/README.md`. */
  source: string;
  /** The sentence that introduces the table there. */
  caption: string;
  header: string[];
  rows: string[][];
}

export interface RunInfo {
  /** When the run ended (ISO 8601). */
  date: string;
  /** Wall time of the whole run, in seconds. */
  runtimeSeconds: number;
  /** How the bench was invoked, e.g. `npm run bench`. */
  command: string;
  /** True for a run of every part with the default settings. */
  full: boolean;
  machine: MachineInfo;
  source: SourceInfo;
  tools: ToolVersions;
  /** Short description of the corpus, e.g. `dev corpus (../shared/corpus/dev)`. */
  corpus: string;
  /** Settings that shape the figures: documents in the batch, API load length, PDF reader... */
  settings: Record<string, string | number | boolean>;
}

/** Every number of one bench run; a part is null when it was not run. */
export interface BenchResults {
  run: RunInfo;
  documents: DocumentResult[];
  quality: QualitySummary | null;
  speed: SpeedResults | null;
  hundredPages: HundredPageResult | null;
  apiLoad: ApiLoadResult | null;
  batch: BatchThroughputResult | null;
  references: ReferenceTable | null;
}

/** Mean of the numbers among `values`, null when there are none. */
export function meanOf(values: readonly (number | null | undefined)[]): number | null {
  const v = values.filter((x): x is number => typeof x === 'number' && !Number.isNaN(x));
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
}

function meansOf(scores: readonly MetricScores[]): MetricScores {
  const out = {} as MetricScores;
  for (const m of METRICS) out[m] = meanOf(scores.map((s) => s[m]));
  return out;
}

/**
 * Mean scores per tool: each tool on the documents it reads (docparse on all of them and on the
 * PDFs and images; pdftotext on the PDFs; the tesseract CLI on scans and images; pdftotext with
 * the CLI for scans and images), and the tools side by side per document category.
 */
export function summarizeQuality(documents: readonly DocumentResult[]): QualitySummary {
  const row = (
    tool: string,
    label: string,
    category: DocumentCategory | null,
    pick: (d: DocumentResult) => MetricScores | undefined,
    docs: readonly DocumentResult[],
  ): QualityRow | undefined => {
    const scores: MetricScores[] = [];
    for (const d of docs) {
      const s = pick(d);
      // A tool is compared on a set of documents only when it read every one of them.
      if (!s) return undefined;
      scores.push(s);
    }
    if (scores.length === 0) return undefined;
    return { tool, documents: label, category, count: docs.length, means: meansOf(scores) };
  };
  const notOffice = documents.filter((d) => d.category !== 'office');
  const pdfs = documents.filter((d) => d.format === 'pdf');
  const ocr = documents.filter((d) => d.category === 'ocr');
  const combined = `pdftotext, tesseract CLI for ${CATEGORY_LABELS.ocr}`;
  const overall = [
    row('docparse', 'all documents', null, (d) => d.scores.docparse, documents),
    row('docparse', 'PDFs and images', null, (d) => d.scores.docparse, notOffice),
    row('pdftotext', 'PDFs', null, (d) => d.scores.pdftotext, pdfs),
    row('tesseract CLI', CATEGORY_LABELS.ocr, 'ocr', (d) => d.scores['tesseract CLI'], ocr),
    row(
      combined,
      'PDFs and images',
      null,
      (d) => (d.category === 'ocr' ? d.scores['tesseract CLI'] : d.scores.pdftotext),
      notOffice,
    ),
  ];
  const byCategory = CATEGORIES.flatMap((category) => {
    const docs = documents.filter((d) => d.category === category);
    return TOOLS.map((tool) =>
      row(tool, CATEGORY_LABELS[category], category, (d) => d.scores[tool], docs),
    );
  });
  const present = (r: QualityRow | undefined): r is QualityRow => r !== undefined;
  return { overall: overall.filter(present), byCategory: byCategory.filter(present) };
}

/**
 * The table of the figures other tools reach from the shared bench README: the first GFM table
 * after the line that starts with "Reference figures". Undefined when there is none.
 */
export function parseReferenceTable(readme: string, source: string): ReferenceTable | undefined {
  const lines = readme.split('\n');
  const at = lines.findIndex((l) => /^reference figures/i.test(l.trim()));
  if (at < 0) return undefined;
  const start = lines.findIndex((l, i) => i > at && l.trim().startsWith('|'));
  if (start < 0) return undefined;
  const block: string[] = [];
  for (let i = start; i < lines.length && lines[i]!.trim().startsWith('|'); i++) {
    block.push(lines[i]!.trim());
  }
  const cells = (line: string) =>
    line
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replace(/\\\|/g, '|'));
  const [header, separator, ...rows] = block.map(cells);
  if (!header || !separator?.every((c) => /^:?-+:?$/.test(c))) return undefined;
  return {
    source,
    caption: lines[at]!.trim().replace(/:$/, ''),
    header,
    rows: rows.map((r) => header.map((_, i) => r[i] ?? '')),
  };
}

/** A GFM table; `|` in cells is escaped, line breaks become spaces. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly ('left' | 'right')[] = [],
): string {
  const cell = (s: string) => s.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = header.map((_, i) => (align[i] === 'right' ? '---:' : '---'));
  const width = (r: readonly string[]) => header.map((_, i) => r[i] ?? '');
  return [line(header), `|${rule.join('|')}|`, ...rows.map((r) => line(width(r)))].join('\n');
}

const DASH = '–';
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const score = (v: number | null) => (v === null ? DASH : v.toFixed(3));
const fixed = (v: number | null | undefined, digits: number) =>
  v === null || v === undefined || !Number.isFinite(v) ? DASH : v.toFixed(digits);

function qualityTable(rows: readonly QualityRow[], toolFirst: boolean): string {
  const metricCols = METRICS.map((m) => METRIC_LABELS[m]);
  const header = toolFirst
    ? ['tool', 'documents', 'n', ...metricCols]
    : ['documents', 'tool', 'n', ...metricCols];
  const body = rows.map((r) => {
    const tool = r.tool === 'docparse' ? '**docparse**' : r.tool;
    const lead = toolFirst ? [tool, r.documents] : [r.documents, tool];
    return [...lead, String(r.count), ...METRICS.map((m) => score(r.means[m]))];
  });
  return markdownTable(header, body, [
    'left',
    'left',
    'right',
    ...METRICS.map(() => 'right' as const),
  ]);
}

/** The project's speed, memory and office-quality targets. */
export const TARGETS = {
  /** docparse pages/s ÷ pdftotext pages/s on born-digital PDFs, at least. */
  pdftotextRatio: 0.33,
  /** docparse OCR s/page ÷ tesseract CLI s/page, at most. */
  ocrRatio: 1.5,
  /** Peak RSS while parsing the 100-page PDF, below, in MiB. */
  hundredPageRssMb: 1024,
  /** Mean text score of the office documents, at least. */
  officeText: 0.9,
  /** GET /v1/parse/{id} requests/s ÷ a bare Node http server's on the same bytes, at least. */
  apiBareRatio: 0.25,
  /** GET /v1/parse/{id} 99th-percentile latency at 50 connections, below, in ms. */
  apiP99Ms: 20,
} as const;

/** Speed table rows: measure, docparse, pdftotext, tesseract CLI, ratio, target. */
function speedRows(results: BenchResults): string[][] {
  const rows: string[][] = [];
  const { speed, hundredPages, apiLoad, batch } = results;
  const ratio = (ours: number | null, theirs: number | null) => {
    const r = ours === null || theirs === null ? NaN : ours / theirs;
    return Number.isFinite(r) ? `${r.toFixed(2)}×` : DASH;
  };
  /** A row only docparse has a figure for. */
  const ours = (measure: string, value: string, target = DASH) => {
    rows.push([measure, value, DASH, DASH, DASH, target]);
  };
  if (speed) {
    const b = speed.bornDigital;
    rows.push([
      `Born-digital PDFs, pages/s (${b.documents} documents, ${b.pages} pages; higher is better)`,
      fixed(b.docparsePagesPerSecond, 1),
      fixed(b.pdftotextPagesPerSecond, 1),
      DASH,
      ratio(b.docparsePagesPerSecond, b.pdftotextPagesPerSecond),
      `ratio ≥ ${TARGETS.pdftotextRatio.toFixed(2)}×`,
    ]);
    const o = speed.ocr;
    rows.push([
      `OCR, s/page (${o.documents} scans and images, ${o.pages} pages; lower is better)`,
      fixed(o.docparseSecondsPerPage, 2),
      DASH,
      fixed(o.tesseractSecondsPerPage, 2),
      ratio(o.docparseSecondsPerPage, o.tesseractSecondsPerPage),
      `ratio ≤ ${TARGETS.ocrRatio.toFixed(2)}×`,
    ]);
    ours('Peak RSS of the process serving the whole corpus, MiB', fixed(speed.benchPeakRssMb, 0));
  }
  if (hundredPages) {
    ours(
      `100-page born-digital PDF, pages/s (fresh process, HTTP ${hundredPages.status})`,
      fixed(hundredPages.pagesPerSecond, 1),
    );
    ours(
      '100-page born-digital PDF, peak RSS, MiB',
      fixed(hundredPages.peakRssMb, 0),
      `< ${TARGETS.hundredPageRssMb}`,
    );
  }
  if (apiLoad) {
    const how = `${apiLoad.connections} connections, ${fixed(apiLoad.durationSeconds, 0)} s`;
    ours(`${apiLoad.endpoint}, requests/s (mean; ${how})`, fixed(apiLoad.requestsPerSecond, 0));
    ours(
      `${apiLoad.endpoint}, latency p50 / p99, ms`,
      `${fixed(apiLoad.latencyP50Ms, 0)} / ${fixed(apiLoad.latencyP99Ms, 0)}`,
      `p99 < ${TARGETS.apiP99Ms}`,
    );
    for (const { service, bare, ratio: share } of [
      { service: apiLoad, bare: apiLoad.bare, ratio: apiLoad.ratio },
      apiLoad.live,
    ]) {
      ours(
        `${service.endpoint}, requests/s beside a bare Node http server sending the same bytes (same run)`,
        `${fixed(service.requestsPerSecond, 0)} / ${fixed(bare.requestsPerSecond, 0)} = ${fixed(share * 100, 1)}%`,
        service === apiLoad ? `≥ ${fixed(TARGETS.apiBareRatio * 100, 0)}%` : DASH,
      );
    }
    ours(
      `${apiLoad.endpoint}, non-2xx responses / connection errors (of ${apiLoad.requests})`,
      `${apiLoad.non2xx} / ${apiLoad.errors}`,
    );
  }
  if (batch) {
    const what =
      `${batch.count} documents: ${plural(batch.pdfs, 'born-digital PDF')}, ` +
      `${plural(batch.images, 'image')}; concurrency ${batch.concurrency}`;
    ours(`POST /v1/parse/batch, documents/s (${what})`, fixed(batch.batch.documentsPerSecond, 2));
    ours(
      `POST /v1/parse/batch, pages/s (${batch.batch.pages} pages, ${batch.batch.failed} failed)`,
      fixed(batch.batch.pagesPerSecond, 2),
    );
  }
  return rows;
}

function durationText(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds - m * 60);
  return m > 0 ? `${m} min ${s} s` : `${s} s`;
}

/** The Markdown report of `results`; `chartFile` is the SVG's name next to it, when there is one. */
export function renderMarkdown(results: BenchResults, chartFile?: string): string {
  const { run } = results;
  const m = run.machine;
  const out: string[] = [];
  const commit = run.source.commit
    ? `commit \`${run.source.commit}\`${run.source.dirty ? ' with uncommitted changes' : ''}`
    : 'commit unknown';
  out.push('# Bench results', '');
  out.push(
    `Measured ${run.date.slice(0, 16).replace('T', ' ')} UTC by \`${run.command}\` ` +
      `(${run.full ? 'full run' : 'partial run'}, ${durationText(run.runtimeSeconds)}), ${commit}.`,
    '',
  );
  out.push(
    markdownTable(
      ['machine', 'value'],
      [
        ['CPU', m.cpuModel],
        [
          'cores',
          m.availableCores === m.cores ? String(m.cores) : `${m.availableCores} of ${m.cores}`,
        ],
        ['memory', `${m.memoryGiB.toFixed(1)} GiB`],
        ['OS', m.os],
        ['Node.js', m.node],
        ['pdftotext', run.tools.pdftotext ?? 'not installed'],
        ['tesseract', run.tools.tesseract ?? 'not installed'],
      ],
    ),
    '',
  );
  const settings = Object.entries(run.settings).map(([k, v]) => `${k} ${String(v)}`);
  const metrics = results.references
    ? `\`${results.references.source}\``
    : "the shared bench kit's README";
  out.push(
    `Corpus: ${run.corpus}. Scores are from 0 to 1, higher is better (metrics in ${metrics}); ` +
      '"–" means no document of the set has the metric, or not ' +
      `applicable. Settings: ${settings.join(', ')}.`,
    '',
  );
  if (chartFile)
    out.push(`![Quality and speed of docparse, pdftotext and tesseract](${chartFile})`, '');

  out.push('## Quality', '');
  if (results.quality) {
    out.push('Each tool on the documents it reads:', '');
    out.push(qualityTable(results.quality.overall, true), '');
    out.push('Side by side, per document category:', '');
    out.push(qualityTable(results.quality.byCategory, false), '');
    const office = results.quality.byCategory.find(
      (r) => r.category === 'office' && r.tool === 'docparse',
    );
    if (office && office.means.text !== null) {
      const met = office.means.text >= TARGETS.officeText;
      out.push(
        `Office documents: mean text ${office.means.text.toFixed(3)}, target ≥ ` +
          `${TARGETS.officeText.toFixed(2)} (${met ? 'met' : 'not met'}).`,
        '',
      );
    }
  } else {
    out.push('Not measured in this run.', '');
  }

  out.push('## Speed', '');
  const rows = speedRows(results);
  if (rows.length > 0) {
    out.push(
      markdownTable(
        ['measure', 'docparse', 'pdftotext', 'tesseract CLI', 'docparse ÷ reference', 'target'],
        rows,
        ['left', 'right', 'right', 'right', 'right', 'right'],
      ),
      '',
    );
    const notes = [
      'Pages/s are wall times of the HTTP requests (docparse) or of the process (pdftotext), ' +
        'one document after the other; OCR s/page is the OCR provider latency per page ' +
        '(docparse) and the `tesseract` CLI time per page at 300 dpi with one thread ' +
        '(`OMP_THREAD_LIMIT=1`, rasterising not counted).',
      results.apiLoad
        ? `The API load reads the stored response of ${results.apiLoad.document} ` +
          `(${results.apiLoad.documentPages} pages, ${results.apiLoad.responseBytes} bytes) with autocannon ` +
          'from the bench process; the service runs in a process of its own.'
        : '',
      results.batch
        ? `The batch counts completed documents and their pages over the wall time from POST ` +
          `/v1/parse/batch to the batch's end${results.batch.count < 100 ? ` (${results.batch.count} documents here; \`npm run bench:batch\` runs 100)` : ''}.`
        : '',
      'Speed figures come from one run on a machine that may have been running other work at ' +
        'the same time; read them as indicative.',
    ].filter((n) => n !== '');
    out.push(...notes.map((n) => `- ${n}`), '');
  } else {
    out.push('Not measured in this run.', '');
  }
  const missing = [
    results.quality ? '' : 'quality',
    results.speed ? '' : 'corpus speed',
    results.hundredPages ? '' : '100-page PDF',
    results.apiLoad ? '' : 'API load',
    results.batch ? '' : 'batch throughput',
  ].filter((s) => s !== '');
  if (missing.length > 0) out.push(`Not measured in this run: ${missing.join(', ')}.`, '');

  if (results.references) {
    const r = results.references;
    out.push('## Reported by others (not measured here)', '');
    out.push(
      `${r.caption}, as reported in \`${r.source}\`. These figures were not measured by this ` +
        'run; they are listed for context.',
      '',
    );
    out.push(markdownTable(r.header, r.rows), '');
  }

  if (results.documents.length > 0) {
    out.push('## Per document', '');
    out.push(
      "<details><summary>docparse's scores, pages and time per document, with the references' text score</summary>",
      '',
    );
    const header = [
      'document',
      'category',
      'pages',
      ...METRICS.map((k) => METRIC_LABELS[k]),
      'docparse s',
      'pdftotext text',
      'tesseract text',
    ];
    const body = results.documents.map((d) => {
      const ours = d.scores.docparse;
      return [
        d.id,
        CATEGORY_LABELS[d.category],
        String(d.docparse.pages),
        ...METRICS.map((k) => score(ours?.[k] ?? null)),
        fixed(d.docparse.seconds, 2),
        score(d.scores.pdftotext?.text ?? null),
        score(d.scores['tesseract CLI']?.text ?? null),
      ];
    });
    out.push(
      markdownTable(header, body, [
        'left',
        'left',
        'right',
        ...METRICS.map(() => 'right' as const),
        'right',
        'right',
        'right',
      ]),
      '',
    );
    out.push('</details>', '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** A view of a vega-lite `vconcat`. */
type ChartPanel = Extract<TopLevelSpec, { vconcat: unknown }>['vconcat'][number];

/** The vega-lite spec of the chart: quality per category on top, the speed comparisons below. */
export function chartSpec(results: BenchResults): TopLevelSpec {
  const color = {
    field: 'tool',
    type: 'nominal' as const,
    scale: { domain: [...TOOLS], range: TOOL_COLORS },
    legend: { title: null, orient: 'top' as const },
  };
  const metricOrder = METRICS.map((m) => METRIC_LABELS[m]);
  const counts = new Map<DocumentCategory | null, number>();
  for (const r of results.quality?.byCategory ?? []) counts.set(r.category, r.count);
  const categoryTitle = (c: DocumentCategory | null) =>
    c === null ? '' : `${CATEGORY_LABELS[c]} (${plural(counts.get(c) ?? 0, 'document')})`;
  const quality = (results.quality?.byCategory ?? []).flatMap((r) =>
    METRICS.flatMap((m) => {
      const value = r.means[m];
      return value === null
        ? []
        : [{ category: categoryTitle(r.category), tool: r.tool, metric: METRIC_LABELS[m], value }];
    }),
  );
  const speed = results.speed;
  const speedPanel = (
    title: string,
    values: { tool: Tool; value: number | null }[],
    format: string,
  ) => ({
    title,
    width: 300,
    height: 60,
    data: { values: values.filter((v) => v.value !== null && Number.isFinite(v.value)) },
    layer: [
      { mark: { type: 'bar' as const } },
      {
        mark: { type: 'text' as const, align: 'left' as const, dx: 3 },
        encoding: { text: { field: 'value', format } },
      },
    ],
    encoding: {
      y: { field: 'tool', type: 'nominal' as const, sort: [...TOOLS], title: null },
      x: { field: 'value', type: 'quantitative' as const, title: null },
      color,
    },
  });
  const panels: ChartPanel[] = [];
  if (quality.length > 0) {
    panels.push({
      title: 'Quality: mean score per metric (0–1, higher is better)',
      data: { values: quality },
      facet: {
        column: {
          field: 'category',
          type: 'nominal',
          sort: CATEGORIES.map(categoryTitle),
          title: null,
          header: { labelFontSize: 12, labelFontWeight: 'bold' },
        },
      },
      // Each category shows only the tools that read it.
      resolve: { scale: { xOffset: 'independent' } },
      spec: {
        width: 240,
        height: 200,
        encoding: {
          x: {
            field: 'metric',
            type: 'nominal',
            sort: metricOrder,
            title: null,
            axis: { labelAngle: -30 },
          },
          xOffset: { field: 'tool', sort: [...TOOLS] },
          y: {
            field: 'value',
            type: 'quantitative',
            scale: { domain: [0, 1] },
            title: 'mean score',
          },
          color,
        },
        layer: [
          { mark: { type: 'bar' } },
          {
            mark: { type: 'text', dy: -4, fontSize: 7 },
            encoding: { text: { field: 'value', format: '.2f' } },
          },
        ],
      },
    });
  }
  const speedPanels = speed
    ? [
        speedPanel(
          'Born-digital PDFs: pages/s (higher is better)',
          [
            { tool: 'docparse', value: speed.bornDigital.docparsePagesPerSecond },
            { tool: 'pdftotext', value: speed.bornDigital.pdftotextPagesPerSecond },
          ],
          '.1f',
        ),
        speedPanel(
          'OCR: s/page (lower is better)',
          [
            { tool: 'docparse', value: speed.ocr.docparseSecondsPerPage },
            { tool: 'tesseract CLI', value: speed.ocr.tesseractSecondsPerPage },
          ],
          '.2f',
        ),
      ].filter((p) => p.data.values.length > 0)
    : [];
  if (speedPanels.length > 0) panels.push({ hconcat: speedPanels });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: {
      text: 'docparse vs pdftotext vs tesseract CLI',
      subtitle: subtitleOf(results),
    },
    background: 'white',
    padding: 12,
    vconcat: panels,
    resolve: { scale: { color: 'shared' } },
  };
}

function subtitleOf(results: BenchResults): string {
  const { date, machine } = results.run;
  const corpus =
    results.documents.length > 0 ? `dev corpus, ${results.documents.length} documents` : '';
  return [
    corpus,
    date.slice(0, 10),
    `${machine.cpuModel}, ${machine.availableCores} cores`,
    `Node ${machine.node}`,
  ]
    .filter((part) => part !== '')
    .join(' · ');
}

/** The chart of {@link chartSpec} as SVG text, rendered headlessly. */
export async function renderChartSvg(results: BenchResults): Promise<string> {
  const view = new vega.View(vega.parse(compile(chartSpec(results)).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Writes `latest.md`, `latest.svg` and `latest.json` of `results` into `dir`, the Markdown and
 * JSON in the project's Prettier style; returns their paths.
 */
export async function writeReport(dir: string, results: BenchResults): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const svg = await renderChartSvg(results);
  const files = {
    md: join(dir, 'latest.md'),
    svg: join(dir, 'latest.svg'),
    json: join(dir, 'latest.json'),
  };
  const pretty = async (file: string, text: string) =>
    format(text, { ...(await resolveConfig(file)), filepath: file });
  writeFileSync(files.svg, svg.endsWith('\n') ? svg : `${svg}\n`);
  writeFileSync(files.md, await pretty(files.md, renderMarkdown(results, 'latest.svg')));
  writeFileSync(files.json, await pretty(files.json, JSON.stringify(results)));
  return [files.md, files.svg, files.json];
}
