import { NotFoundError, ParseCancelledError } from '../errors.js';
import type { RequestRecord } from '../request.js';
import type { RequestStore } from '../../ports/request-store.js';
import type { DocumentRef } from '../../ports/document-engine.js';

/** The request record a stage works on. @throws {NotFoundError} when it does not exist. */
export async function loadRequest(
  requests: RequestStore,
  requestId: string,
): Promise<RequestRecord> {
  const record = await requests.get(requestId);
  if (!record) throw new NotFoundError(`request ${requestId} does not exist`);
  return record;
}

/**
 * The request record of a stage that must not go on for a cancelled request (ParsePage before
 * its provider calls and again before its checkpoint, Verify, Deliver).
 * @throws {ParseCancelledError} when the request was cancelled.
 * @throws {NotFoundError} when it does not exist.
 */
export async function loadLiveRequest(
  requests: RequestStore,
  requestId: string,
): Promise<RequestRecord> {
  const record = await loadRequest(requests, requestId);
  if (record.status === 'cancelled') throw new ParseCancelledError(requestId);
  return record;
}

/** The engines' view of the request's document. */
export const documentRef = (record: RequestRecord): DocumentRef => ({
  key: record.document.key,
  format: record.document.format,
  hash: record.document.hash,
});

/** The page numbers to process: 1..min(pageCount, max_pages). */
export function selectedPages(record: RequestRecord): number[] {
  const total = record.document.pageCount ?? 0;
  const limit = record.options.max_pages ?? total;
  return Array.from({ length: Math.min(total, limit) }, (_, i) => i + 1);
}
