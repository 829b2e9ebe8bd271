import type { SerializedError } from '../pdf/pdf-worker-protocol.js';
import type { OfficeDocument, OfficeFormat } from './office-document.js';

/**
 * Messages between {@link OfficeWorkerPool} (main thread) and `office-worker.ts`: one request
 * per conversion, carrying the file's bytes (transferred, not copied), one reply with the
 * converted document (structured-cloned: plain data) or the error, flattened to its class name
 * and message (see `serializeError` / `deserializeError`).
 */
export interface OfficeWorkerRequest {
  id: number;
  format: OfficeFormat;
  bytes: Uint8Array;
}

/** What the worker holds after a conversion, in bytes. */
export interface OfficeWorkerMemory {
  /**
   * The worker's JavaScript heap as reserved (`heapTotal`: it shrinks slowly, if at all, after a
   * large conversion) plus memory outside it (`external`: array buffers, zip entries).
   */
  heldBytes: number;
}

/** The answer to a request, with the worker's memory after it. */
export type OfficeWorkerReply = { id: number; memory: OfficeWorkerMemory } & (
  { status: 'ok'; document: OfficeDocument } | { status: 'error'; error: SerializedError }
);

/** What the worker posts once, when its converters are loaded and it takes requests. */
export interface OfficeWorkerReady {
  status: 'ready';
}
