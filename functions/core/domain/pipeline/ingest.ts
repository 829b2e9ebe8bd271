import { ConflictError, ParseCancelledError } from '../errors.js';
import { refundPages, reservePages } from '../page-quota.js';
import { openDocument } from './open-document.js';
import { documentRef, loadLiveRequest, selectedPages } from './load-request.js';
import type { ProgressSink } from '../../ports/event-log.js';
import type { PipelinePorts } from '../../ports/pipeline.js';
import type { StageInput } from './stage-input.js';

/**
 * Ingest: opens the stored document with its format's engine, counts its pages and applies the
 * page caps, then counts the pages to be processed against the tenant's daily quota
 * (`reservePages`; a resumed run counts only the pages no earlier run charged). Emits
 * `ingest.start` with the page count to be processed.
 *
 * Safe to retry: it rewrites the record's page count, and a request keeps the reservation it
 * holds.
 * @throws {UnsupportedDocumentError} no engine for the format, or the bytes cannot be opened (400).
 * @throws {DocumentRejectedError} zero pages, password, or more pages than the cap without `max_pages` (422).
 * @throws {ParseCancelledError} when the request was cancelled (its reservation is given back).
 * @throws {PlanLimitError} the plan's pages per day would be exceeded (402).
 */
export async function ingest(
  input: StageInput,
  ports: Pick<PipelinePorts, 'requests' | 'engineFor' | 'clock' | 'settings' | 'usage'>,
  progress: ProgressSink,
): Promise<{ requestId: string; pageCount: number }> {
  const started = ports.clock.now().getTime();
  const record = await loadLiveRequest(ports.requests, input.requestId);
  const {
    engine,
    pageCount,
    selected: toParse,
  } = await openDocument(
    ports.engineFor,
    documentRef(record),
    record.options.max_pages,
    ports.settings.maxDocumentPages,
  );
  await reservePages(ports, record, toParse);
  let updated;
  try {
    // A cancel that came first keeps the request cancelled (and has given its pages back).
    updated = await ports.requests.update(
      input.requestId,
      {
        status: 'processing',
        document: { ...record.document, pageCount },
        updatedAt: ports.clock.now().toISOString(),
        timings: { ...record.timings, ingest_ms: ports.clock.now().getTime() - started },
      },
      ['queued', 'processing'],
    );
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    await refundPages(ports, record);
    throw new ParseCancelledError(input.requestId, { cause: error });
  }
  const selected = selectedPages(updated);
  // Classify reads these pages next: the engine may start now, while the pipeline moves on.
  engine.prefetch?.(documentRef(updated), selected);
  const pages = selected.length;
  progress.emit({ event: 'ingest.start', page_count: pages });
  return { requestId: input.requestId, pageCount: pages };
}
