/**
 * What `npm run bench` prints of its corpus part: per-document and mean scores, speed against the
 * baselines, and the routing of each document.
 */
import type { QualityGrade } from '../functions/core/domain/schemas.js';
import { SCORER, isOcrDoc, isOfficeDoc, shownPath, type ManifestDoc } from './corpus.js';
import { METRICS, meanOf as mean, TARGETS, type SpeedResults } from './report.js';
import type { CorpusResults, ScoreRow, ServiceRun } from './run-corpus.js';

/** The document sets the console report and the scoreboard share. */
export function idsOf(docs: readonly ManifestDoc[]) {
  return {
    pdfsAndImages: docs.filter((d) => !isOfficeDoc(d)).map((d) => d.id),
    ocr: docs.filter(isOcrDoc).map((d) => d.id),
    digital: docs.filter((d) => !isOcrDoc(d) && !isOfficeDoc(d)).map((d) => d.id),
    office: docs.filter(isOfficeDoc).map((d) => d.id),
  };
}

/** Prints the quality table, the means of each tool and the speed figures. */
export function printCorpusReport(docs: readonly ManifestDoc[], results: CorpusResults): void {
  const { service, baselines, scores } = results;
  const f = (v: number | null | undefined) =>
    (typeof v === 'number' ? v.toFixed(3) : '  -  ').padStart(7);
  const ids = idsOf(docs);
  console.log(
    `\n## Quality (dev corpus, ${ids.pdfsAndImages.length} PDFs and images, ${ids.office.length} office documents; scorer ${shownPath(SCORER)})\n`,
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
  const speed = speedOf(docs, results);
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
export function speedOf(
  docs: readonly ManifestDoc[],
  { service, baselines }: CorpusResults,
): SpeedResults {
  const ids = idsOf(docs);
  const pages = ids.digital.reduce((n, id) => n + service.rows[id]!.pages, 0);
  const seconds = ids.digital.reduce((n, id) => n + service.rows[id]!.seconds, 0);
  const pdfSeconds = baselines?.ran.pdftotext
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
      tesseractSecondsPerPage: baselines?.ran.tesseract
        ? mean(ids.ocr.map((id) => baselines.tessOcrSeconds[id]))
        : null,
    },
    benchPeakRssMb: service.peakRssMb,
  };
}

/**
 * Per document: the detected type (from Classify's features) and, per page, the tier chosen,
 * the complexity score and the confidence grades (mean/low), twelve pages to a block.
 */
export function printRouting(docs: readonly ManifestDoc[], service: ServiceRun): void {
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
