import type { DocumentEngine, DocumentRef } from '../../ports/document-engine.js';
import { DocumentRejectedError, UnsupportedDocumentError } from '../errors.js';
import type { DocumentFormat } from '../schemas.js';

/** An opened document and the pages a parse of it covers. */
export interface OpenedDocument {
  engine: DocumentEngine;
  /** Pages in the document. */
  pageCount: number;
  /** Pages to parse: 1..min(pageCount, max_pages). */
  selected: number[];
}

/**
 * Opens a stored document with its format's engine and applies the page caps, the same way for
 * a parse (Ingest) and an estimate.
 * @throws {UnsupportedDocumentError} no engine for the format, or the bytes cannot be opened (400).
 * @throws {DocumentRejectedError} zero pages, or more pages than `maxDocumentPages` without a
 *   `max_pages` under it (422).
 */
export async function openDocument(
  engineFor: (format: DocumentFormat) => DocumentEngine | undefined,
  ref: DocumentRef,
  maxPages: number | null,
  maxDocumentPages: number,
): Promise<OpenedDocument> {
  const engine = engineFor(ref.format);
  if (!engine) {
    throw new UnsupportedDocumentError(
      `this deployment has no engine for ${ref.format} documents; it reads the formats its engines are configured for`,
    );
  }
  const { pageCount } = await engine.open(ref);
  if (pageCount === 0) throw new DocumentRejectedError('the document has no pages');
  const limit = Math.min(maxPages ?? pageCount, pageCount);
  if (limit > maxDocumentPages) {
    throw new DocumentRejectedError(
      `the document has ${pageCount} pages and at most ${maxDocumentPages} are parsed per request; set max_pages to ${maxDocumentPages} or less to parse the first pages`,
    );
  }
  return { engine, pageCount, selected: Array.from({ length: limit }, (_, i) => i + 1) };
}
