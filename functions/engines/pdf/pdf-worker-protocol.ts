import {
  DocumentRejectedError,
  ObjectNotFoundError,
  UnsupportedDocumentError,
} from '../../core/domain/errors.js';
import type { ProviderPageResult } from '../../core/ports/page-provider.js';
import type { RasterPage } from '../raster.js';
import type { ExtractedPage } from './page-text.js';
import type { PdfDocumentCacheOptions } from './pdf-document-cache.js';
import type { PageInspection, RenderOptions } from './pdf-page-source.js';

/**
 * Messages between {@link PdfWorkerClient} (main thread) and `pdf-worker.ts`. Documents are
 * named by hash; the bytes travel only with the first call for a document, or after the worker
 * answered `missing` (it evicted the document, or it is a fresh worker).
 */
export type WorkerRequest = {
  id: number;
  hash: string;
  /** The document's bytes, when the worker may not have it open. */
  bytes?: Uint8Array;
} & WorkerCall;

/** The operation of a request and its arguments. */
export type WorkerCall =
  | { op: 'pageCount' }
  | { op: 'page'; pageNumber: number }
  | { op: 'inspect'; pageNumber: number }
  | { op: 'render'; pageNumber: number; options: RenderOptions }
  | { op: 'layOut'; pageNumber: number; dpi: number; profile: unknown };

/** What each operation answers. */
export interface WorkerResults {
  pageCount: number;
  page: ExtractedPage;
  inspect: PageInspection;
  render: RasterPage;
  layOut: ProviderPageResult;
}

export type WorkerOp = keyof WorkerResults;

/** An error as it crosses the thread boundary. */
export interface SerializedError {
  name: string;
  message: string;
  /** The object key of an ObjectNotFoundError. */
  key?: string;
}

/** What the worker holds after a call, in bytes (see {@link WorkerReply}). */
export interface WorkerMemory {
  /** PDFium's WebAssembly heap (never shrinks). */
  wasmBytes: number;
  /** The worker's JavaScript heap in use, and memory outside it (array buffers, pdf.js' WebAssembly). */
  heapBytes: number;
}

/**
 * The answer to a request, with the worker's memory after it. `fatal` marks an error after which
 * the worker must not be used again (PDFium aborted or spent its memory budget, a time budget
 * ran out while work may still be running): the client replaces it.
 */
export type WorkerReply = {
  memory?: WorkerMemory;
  /** Milliseconds the worker spent on the call, from receiving it to replying. */
  elapsedMs?: number;
  /** CPU milliseconds the worker's thread used on the call (`process.threadCpuUsage`). */
  cpuMs?: number;
} & (
  | { id: number; status: 'ok'; value: WorkerResults[WorkerOp] }
  | { id: number; status: 'missing' }
  | { id: number; status: 'error'; error: SerializedError; fatal?: boolean }
);

/** What the worker posts once, when its modules are loaded and it takes requests. */
export interface WorkerReady {
  status: 'ready';
}

/** What the worker is started with (`workerData`). */
export type WorkerSettings = PdfDocumentCacheOptions & {
  /** Most bytes PDFium's WebAssembly heap may grow to (see `Pdfium.limitMemory`); none when unset. */
  pdfiumMaxBytes?: number;
  /**
   * Load pdf.js and read the warm-up page with it before reporting ready; otherwise pdf.js is
   * loaded on first need (a page rendered, or a text layer PDFium cannot read).
   * @default true
   */
  preloadPdfJs?: boolean;
};

/** Flattens an error thrown in the worker to plain data. */
export const serializeError = (error: unknown): SerializedError => {
  if (error instanceof ObjectNotFoundError) {
    const key = error.details?.['key'];
    return {
      name: error.name,
      message: error.message,
      ...(typeof key === 'string' ? { key } : {}),
    };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
};

/** Rebuilds the core error class a worker error had (by `name`), keeping its message. */
export const deserializeError = (error: SerializedError): Error => {
  switch (error.name) {
    case 'UnsupportedDocumentError':
      return new UnsupportedDocumentError(error.message);
    case 'DocumentRejectedError':
      return new DocumentRejectedError(error.message);
    case 'ObjectNotFoundError':
      if (error.key !== undefined) return new ObjectNotFoundError(error.key);
      break;
    default:
      break;
  }
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
};
