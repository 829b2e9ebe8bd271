/**
 * The 100-page part of `npm run bench`, in a process of its own: parses a generated 100-page
 * born-digital PDF through the local service, prints time and peak RSS, and writes them as a
 * {@link HundredPageResult} to `--json` when given. `run-hundred.ts` starts it; peak RSS is only
 * the document's own in a fresh process, since the corpus part has already raised the bench
 * process's.
 *
 *   node --import tsx bench/hundred-pages.ts [--json <file>] [--reader pdfium|pdfjs]
 */
import './quiet-logs.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { defineCommand, parseCommandLineOrExit } from './cli.js';
import { CORPUS_DIR } from './corpus.js';
import { startBenchServer, uploadBytes } from './local-server.js';
import { TARGETS, type HundredPageResult } from './report.js';

const COMMAND = defineCommand({
  usage: 'node --import tsx bench/hundred-pages.ts [options]',
  summary:
    'Parses a generated 100-page born-digital PDF in this fresh process; prints time and peak RSS.',
  options: {
    json: { type: 'string', value: 'file', description: 'where to write the figures as JSON' },
    reader: {
      type: 'string',
      default: 'pdfium',
      choices: ['pdfium', 'pdfjs'],
      description: "the service's PDF text reader",
    },
  },
});

const flags = parseCommandLineOrExit(COMMAND);
const API_KEY = 'bench-key-0001';

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
  env: { PDF_TEXT_READER: flags.reader },
});
const t0 = performance.now();
const { status, body } = await uploadBytes(
  server.url,
  API_KEY,
  readFileSync(file),
  'hundred-pages.pdf',
);
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
if (flags.json !== undefined) writeFileSync(flags.json, JSON.stringify(result));
