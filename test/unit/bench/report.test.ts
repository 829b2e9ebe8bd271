import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import {
  markdownTable,
  parseReferenceTable,
  renderChartSvg,
  renderMarkdown,
  summarizeQuality,
  type BenchResults,
  type DocumentResult,
  type MetricScores,
} from '../../../bench/report.js';
import type { EndpointLoad } from '../../../bench/api-load.js';

const scores = (text: number, heading: number | null = null): MetricScores => ({
  text,
  heading,
  table: null,
  order: 1,
  tests: 0.5,
});

/** An endpoint's load figures; tests override what they look at. */
const bareLoad = (endpoint: string, responseBytes: number): EndpointLoad => ({
  endpoint,
  responseBytes,
  requests: 10000,
  requestsPerSecond: 1000,
  latencyMeanMs: 1,
  latencyP50Ms: 1,
  latencyP99Ms: 3,
  latencyMaxMs: 9,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
});

const doc = (
  id: string,
  format: string,
  category: DocumentResult['category'],
  docScores: DocumentResult['scores'],
): DocumentResult => ({
  id,
  format,
  category,
  pages: 1,
  docparse: { status: 200, pages: 1, seconds: 0.5, ocrSecondsPerPage: null },
  pdftotextSeconds: null,
  tesseract: null,
  scores: docScores,
});

const documents: DocumentResult[] = [
  doc('paper', 'pdf', 'born-digital', { docparse: scores(0.9, 0.8), pdftotext: scores(0.7, 0) }),
  doc('report', 'pdf', 'born-digital', { docparse: scores(0.7), pdftotext: scores(0.5) }),
  doc('scan', 'png', 'ocr', { docparse: scores(0.8), 'tesseract CLI': scores(0.6) }),
  doc('letter', 'docx', 'office', { docparse: scores(0.95, 1) }),
];

const README = `# Scoring

Reference figures measured on this machine kind (dev corpus):

| tool | text | s/page |
|---|---|---|
| PyMuPDF | 0.74 | 0.008 |
| mammoth (docx) | 0.96 | |

Another paragraph.
`;

function results(partial: Partial<BenchResults> = {}): BenchResults {
  return {
    run: {
      date: '2025-01-02T03:04:05.000Z',
      runtimeSeconds: 400,
      command: 'npm run bench',
      full: true,
      machine: {
        cpuModel: 'Test CPU',
        cores: 2,
        availableCores: 2,
        memoryGiB: 8,
        os: 'Linux 6.0',
        node: 'v20.0.0',
      },
      source: { commit: 'abc1234', dirty: false },
      tools: { pdftotext: 'pdftotext version 22.12.0', tesseract: 'tesseract 5.3.0' },
      corpus: 'dev corpus, 4 documents',
      settings: { 'batch documents': 30 },
    },
    documents,
    quality: summarizeQuality(documents),
    speed: {
      bornDigital: {
        documents: 2,
        pages: 20,
        docparseSeconds: 2,
        docparsePagesPerSecond: 10,
        pdftotextSeconds: 0.5,
        pdftotextPagesPerSecond: 40,
      },
      ocr: { documents: 1, pages: 1, docparseSecondsPerPage: 3, tesseractSecondsPerPage: 2 },
      benchPeakRssMb: 600,
    },
    hundredPages: { status: 200, pages: 100, seconds: 4, pagesPerSecond: 25, peakRssMb: 700 },
    apiLoad: {
      endpoint: 'GET /v1/parse/{id}',
      document: 'paper.pdf',
      documentPages: 3,
      responseBytes: 1000,
      durationSeconds: 10,
      connections: 10,
      requests: 20000,
      requestsPerSecond: 2000,
      latencyMeanMs: 4.2,
      latencyP50Ms: 4,
      latencyP99Ms: 11,
      latencyMaxMs: 30,
      non2xx: 0,
      errors: 0,
      timeouts: 0,
      bare: { ...bareLoad('GET /v1/parse/{id}', 1000), requestsPerSecond: 8000 },
      ratio: 0.25,
      live: {
        service: { ...bareLoad('GET /v1/live', 17), requestsPerSecond: 5000 },
        bare: { ...bareLoad('GET /v1/live', 17), requestsPerSecond: 10000 },
        ratio: 0.5,
      },
    },
    batch: {
      count: 30,
      pdfs: 24,
      images: 6,
      corpusFiles: 19,
      concurrency: 4,
      priority: 'normal',
      cpus: 2,
      batch: {
        seconds: 20,
        completed: 30,
        failed: 0,
        pages: 60,
        documentsPerSecond: 1.5,
        pagesPerSecond: 3,
        acceptedMs: 10,
        status: 'completed',
        totals: { completed: 30 },
        failures: [],
      },
    },
    references: parseReferenceTable(README, '../shared/bench/README.md') ?? null,
    ...partial,
  };
}

/** The GFM tables of `markdown`, as rows of cells (escaped pipes kept inside cells). */
function tablesOf(markdown: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) {
      current ??= [];
      current.push(
        line
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((c) => c.trim()),
      );
    } else if (current) {
      tables.push(current);
      current = undefined;
    }
  }
  if (current) tables.push(current);
  return tables;
}

function tableWithHeader(markdown: string, first: string): string[][] {
  const table = tablesOf(markdown).find((t) => t[0]?.[0] === first);
  if (!table) throw new Error(`no table starting with "${first}"`);
  return table;
}

describe('summarizeQuality', () => {
  it('averages each tool over the documents it reads, skipping metrics that do not apply', () => {
    // Act
    const summary = summarizeQuality(documents);
    // Assert
    expect(summary.overall.map((r) => [r.tool, r.documents, r.count])).toEqual([
      ['docparse', 'all documents', 4],
      ['docparse', 'PDFs and images', 3],
      ['pdftotext', 'PDFs', 2],
      ['tesseract CLI', 'scans and images', 1],
      ['pdftotext, tesseract CLI for scans and images', 'PDFs and images', 3],
    ]);
    const pdftotext = summary.overall.find((r) => r.tool === 'pdftotext')!;
    expect(pdftotext.means.text).toBeCloseTo(0.6);
    expect(pdftotext.means.heading).toBe(0);
    expect(pdftotext.means.table).toBeNull();
    expect(summary.byCategory.map((r) => [r.documents, r.tool])).toEqual([
      ['born-digital PDFs', 'docparse'],
      ['born-digital PDFs', 'pdftotext'],
      ['scans and images', 'docparse'],
      ['scans and images', 'tesseract CLI'],
      ['office documents', 'docparse'],
    ]);
  });

  it('leaves out a reference that did not run', () => {
    // Arrange
    const onlyOurs = documents.map((d) => ({ ...d, scores: { docparse: d.scores.docparse! } }));
    // Act
    const summary = summarizeQuality(onlyOurs);
    // Assert
    expect(new Set(summary.overall.map((r) => r.tool))).toEqual(new Set(['docparse']));
    expect(new Set(summary.byCategory.map((r) => r.tool))).toEqual(new Set(['docparse']));
  });
});

describe('renderMarkdown', () => {
  it('writes well-formed tables: as many cells in every row as in the header', () => {
    // Act
    const markdown = renderMarkdown(results(), 'latest.svg');
    // Assert
    const tables = tablesOf(markdown);
    expect(tables.length).toBeGreaterThanOrEqual(5);
    for (const table of tables) {
      const width = table[0]!.length;
      expect(table[1]!.every((c) => /^-{3}:?$/.test(c))).toBe(true);
      for (const row of table) expect(row).toHaveLength(width);
    }
  });

  it('has a quality table with a row per tool and a column per metric', () => {
    // Act
    const table = tableWithHeader(renderMarkdown(results()), 'tool');
    // Assert
    expect(table[0]).toEqual([
      'tool',
      'documents',
      'n',
      'text',
      'heading F1',
      'table F1',
      'reading order',
      'olmOCR tests',
    ]);
    const rows = table.slice(2);
    expect(rows.map((r) => r[0])).toEqual([
      '**docparse**',
      '**docparse**',
      'pdftotext',
      'tesseract CLI',
      'pdftotext, tesseract CLI for scans and images',
    ]);
    expect(rows[2]).toEqual(['pdftotext', 'PDFs', '2', '0.600', '0.000', '–', '1.000', '0.500']);
  });

  it('has a speed table with the references side by side and the ratios', () => {
    // Act
    const table = tableWithHeader(renderMarkdown(results()), 'measure');
    // Assert
    expect(table[0]).toEqual([
      'measure',
      'docparse',
      'pdftotext',
      'tesseract CLI',
      'docparse ÷ reference',
      'target',
    ]);
    const row = (start: string) => table.find((r) => r[0]!.startsWith(start))!;
    expect(row('Born-digital PDFs, pages/s').slice(1)).toEqual([
      '10.0',
      '40.0',
      '–',
      '0.25×',
      'ratio ≥ 0.33×',
    ]);
    expect(row('OCR, s/page').slice(1)).toEqual(['3.00', '–', '2.00', '1.50×', 'ratio ≤ 1.50×']);
    expect(row('100-page born-digital PDF, peak RSS')[1]).toBe('700');
    expect(row('GET /v1/parse/{id}, requests/s')[1]).toBe('2000');
    expect(row('GET /v1/parse/{id}, latency p50 / p99')[1]).toBe('4 / 11');
    expect(row('POST /v1/parse/batch, documents/s')[1]).toBe('1.50');
  });

  it('shows each loaded endpoint beside the bare http server, with the share and its target', () => {
    // Act
    const table = tableWithHeader(renderMarkdown(results()), 'measure');
    // Assert
    const row = (start: string) => table.find((r) => r[0]!.startsWith(start))!;
    const beside = 'requests/s beside a bare Node http server';
    expect([
      row(`GET /v1/parse/{id}, ${beside}`)[1],
      row(`GET /v1/parse/{id}, ${beside}`)[5],
    ]).toEqual(['2000 / 8000 = 25.0%', '≥ 25%']);
    expect(row(`GET /v1/live, ${beside}`)[1]).toBe('5000 / 10000 = 50.0%');
    expect(row('GET /v1/parse/{id}, latency p50 / p99')[5]).toBe('p99 < 20');
  });

  it('labels the figures of other tools as not measured here', () => {
    // Act
    const markdown = renderMarkdown(results());
    // Assert
    expect(markdown).toContain('## Reported by others (not measured here)');
    expect(tableWithHeader(markdown, 'tool').length).toBeGreaterThan(0);
    const references = tablesOf(markdown).find((t) => t[2]?.[0] === 'PyMuPDF');
    expect(references?.[3]).toEqual(['mammoth (docx)', '0.96', '']);
  });

  it('points to the metrics in the reference README where the run read it from', () => {
    // Arrange
    const found = results();
    const elsewhere = results({
      references: found.references && { ...found.references, source: '../kit/bench/README.md' },
    });
    // Act
    const markdown = renderMarkdown(elsewhere);
    const withoutReadme = renderMarkdown(results({ references: null }));
    // Assert
    expect(markdown).toContain('(metrics in `../kit/bench/README.md`)');
    expect(markdown).not.toContain('../shared/bench/README.md');
    expect(withoutReadme).toContain("(metrics in the shared bench kit's README)");
  });

  it('says which parts a partial run left out', () => {
    // Act
    const markdown = renderMarkdown(
      results({ documents: [], quality: null, speed: null, hundredPages: null, batch: null }),
    );
    // Assert
    expect(markdown).toContain(
      'Not measured in this run: quality, corpus speed, 100-page PDF, batch throughput.',
    );
    expect(tableWithHeader(markdown, 'measure')).toHaveLength(7);
  });
});

describe('markdownTable', () => {
  it('escapes pipes and pads short rows', () => {
    // Act
    const table = markdownTable(['a', 'b'], [['x|y'], ['1', '2']], ['left', 'right']);
    // Assert
    expect(table).toBe('| a | b |\n|---|---:|\n| x\\|y |  |\n| 1 | 2 |');
  });
});

describe('renderChartSvg', () => {
  it('renders an SVG with bars, axis labels and the three series', async () => {
    // Act
    const svg = await renderChartSvg(results());
    // Assert
    expect(svg.startsWith('<svg')).toBe(true);
    const errors: string[] = [];
    const dom = new DOMParser({
      errorHandler: (level: string, message: string) => errors.push(`${level}: ${message}`),
    }).parseFromString(svg, 'image/svg+xml');
    expect(errors).toEqual([]);
    expect(dom.documentElement.nodeName).toBe('svg');
    expect(svg).toMatch(/class="mark-rect role-mark[^"]*"[^>]*>\s*<path/);
    for (const label of ['docparse', 'pdftotext', 'tesseract CLI', 'heading F1', 'pages/s']) {
      expect(svg).toContain(label);
    }
  });
});
