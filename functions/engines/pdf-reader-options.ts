import type { Config } from '../config.js';
import type { PdfWorkerClientOptions } from './pdf/pdf-worker-client.js';

/**
 * What the configuration sets of a PDF reader ({@link PdfWorkerClient}): the page limit, the text
 * reader, the per-page deadline (reading and rendering alike), the worker's memory and idle time.
 * Each builder adds what is its own (how many workers).
 *
 * A module of its own so that the builders loaded apart (the engines, the structure extractor)
 * share it without loading each other.
 * @example new PdfWorkerClient(store, { ...pdfReaderOptions(config), workers: 2 })
 */
export function pdfReaderOptions(config: Config): PdfWorkerClientOptions {
  return {
    maxPagesPerDocument: config.MAX_DOCUMENT_PAGES,
    textReader: config.PDF_TEXT_READER,
    timeoutMs: config.PDF_PAGE_TIMEOUT_MS,
    renderTimeoutMs: config.PDF_PAGE_TIMEOUT_MS,
    maxMemoryMb: config.PDF_WORKER_MEMORY_MB,
    idleMs: config.ENGINE_IDLE_MS,
  };
}
