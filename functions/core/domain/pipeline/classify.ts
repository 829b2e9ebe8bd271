import type { ProgressSink } from '../../ports/event-log.js';
import { complexityScore } from '../routing.js';
import { documentRef, loadRequest, selectedPages } from './load-request.js';
import { workKeys } from '../object-keys.js';
import { type PipelinePorts } from '../../ports/pipeline.js';
import { type StageInput } from './stage-input.js';
import type { RequestRecord } from '../request.js';
import type { PageParseRequest } from '../../ports/page-provider.js';
import type {
  DocumentEngine,
  DocumentInspection,
  DocumentRef,
} from '../../ports/document-engine.js';

/** What Classify stores for the later stages (`work/<id>/inspection.json`). */
export interface StoredInspection extends DocumentInspection {
  complexity: Record<number, number>;
  /** How long Classify took (`timings.classification_ms`, recorded by Route). */
  classificationMs?: number;
}

/**
 * Classify: measures every selected page with the format's engine, scores its complexity and
 * stores the inspection (features, complexity and the engine's document profile) with the time
 * it took, which Route records in the request's timings with its own: one record write fewer
 * per document. Emits `classify.page` per page.
 *
 * Safe to retry: the inspection key derives from the request id.
 */
export async function classify(
  input: StageInput,
  ports: Pick<PipelinePorts, 'requests' | 'objects' | 'engineFor' | 'clock'>,
  progress: ProgressSink,
): Promise<{ requestId: string }> {
  const started = ports.clock.now().getTime();
  const record = await loadRequest(ports.requests, input.requestId);
  const engine = ports.engineFor(record.document.format);
  if (!engine) throw new Error(`no engine for ${record.document.format} after ingestion`);
  const measured = await measurePages(engine, documentRef(record), selectedPages(record));
  const stored: StoredInspection = {
    ...measured,
    classificationMs: ports.clock.now().getTime() - started,
  };
  const { complexity } = stored;
  const storedInspection = ports.objects.put(
    workKeys.inspection(input.requestId),
    new TextEncoder().encode(JSON.stringify(stored)),
    'application/json',
  );
  for (const page of stored.pages) {
    progress.emit({
      event: 'classify.page',
      page: page.pageNumber,
      complexity: complexity[page.pageNumber],
    });
  }
  await storedInspection;
  return { requestId: input.requestId };
}

/**
 * Measures the pages with the document's engine and scores each one's complexity: what Classify
 * stores, and what an estimate routes by.
 */
export async function measurePages(
  engine: DocumentEngine,
  ref: DocumentRef,
  pageNumbers: readonly number[],
): Promise<StoredInspection> {
  const inspection = await engine.inspect(ref, pageNumbers);
  const complexity: Record<number, number> = {};
  for (const page of inspection.pages) complexity[page.pageNumber] = complexityScore(page);
  return { ...inspection, complexity };
}

/**
 * What a provider is asked for page `pageNumber` of the request `record`: its document, the
 * request's DPI and format options, and the document profile Classify stored.
 */
export const pageParseRequest = (
  record: RequestRecord,
  inspection: StoredInspection,
  pageNumber: number,
): PageParseRequest => ({
  document: documentRef(record),
  pageNumber,
  dpi: record.options.dpi,
  profile: inspection.profile,
  maintainFormat: record.options.maintain_format,
});

/** Reads the inspection Classify stored. @throws {ObjectNotFoundError} before Classify ran. */
export async function readInspection(
  objects: PipelinePorts['objects'],
  requestId: string,
): Promise<StoredInspection> {
  const bytes = await objects.get(workKeys.inspection(requestId));
  return JSON.parse(new TextDecoder().decode(bytes)) as StoredInspection;
}
