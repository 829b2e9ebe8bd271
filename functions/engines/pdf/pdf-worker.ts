/**
 * Worker thread entry of {@link PdfWorkerClient}: hosts a {@link PdfDocumentCache} over the
 * bytes the main thread sends, so that a PDF on which pdf.js loops forever blocks this thread
 * (which the client terminates) instead of the server.
 */
import '../../polyfills.js';
import { parentPort, workerData } from 'node:worker_threads';
import type { DocumentRef } from '../../core/ports/document-engine.js';
import type { ObjectStore } from '../../core/ports/object-store.js';
import { PdfDocumentCache } from './pdf-document-cache.js';
import { loadPdfJs, openPdf } from './pdf-document.js';
import { extractPage } from './page-text.js';
import { extractPdfiumPage } from './pdfium-page-text.js';
import { loadPdfium, PdfiumDocument } from './pdfium.js';
import { warmUpPdf } from './warm-up-pdf.js';
import {
  serializeError,
  type WorkerReady,
  type WorkerReply,
  type WorkerRequest,
  type WorkerResults,
  type WorkerSettings,
} from './pdf-worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('pdf-worker.ts runs as a worker thread');

/** Bytes received for documents about to be opened; handed to the cache once, then dropped. */
const incoming = new Map<string, Uint8Array>();

const store: ObjectStore = {
  get(key: string): Promise<Uint8Array> {
    const bytes = incoming.get(key);
    incoming.delete(key);
    return bytes
      ? Promise.resolve(bytes)
      : Promise.reject(new Error(`the bytes of document ${key} were not sent`));
  },
  put: () => Promise.reject(new Error('the PDF worker stores nothing')),
  exists: (key: string) => Promise.resolve(incoming.has(key)),
  delete: (key: string) => {
    incoming.delete(key);
    return Promise.resolve();
  },
};

const settings = workerData as WorkerSettings;
const cache = new PdfDocumentCache(store, settings);

const run = (
  request: WorkerRequest,
  ref: DocumentRef,
): Promise<WorkerResults[typeof request.op]> => {
  switch (request.op) {
    case 'pageCount':
      return cache.pageCount(ref);
    case 'page':
      return cache.page(ref, request.pageNumber);
    case 'render':
      return cache.render(ref, request.pageNumber, request.options);
  }
};

/** Sends `reply`, moving the PNG's buffer instead of copying it when it owns the buffer. */
const send = (reply: WorkerReply): void => {
  if (reply.status === 'ok' && typeof reply.value === 'object' && 'png' in reply.value) {
    const { png } = reply.value;
    if (png.byteOffset === 0 && png.byteLength === png.buffer.byteLength) {
      try {
        port.postMessage(reply, [png.buffer as ArrayBuffer]);
        return;
      } catch {
        // Not transferable (e.g. memory owned by the canvas library): copied below.
      }
    }
  }
  port.postMessage(reply);
};

const handle = async (request: WorkerRequest): Promise<void> => {
  const ref: DocumentRef = { key: request.hash, format: 'pdf', hash: request.hash };
  if (!cache.has(ref)) {
    if (!request.bytes) {
      send({ id: request.id, status: 'missing' });
      return;
    }
    incoming.set(request.hash, request.bytes);
  }
  try {
    send({ id: request.id, status: 'ok', value: await run(request, ref) });
  } catch (error) {
    send({ id: request.id, status: 'error', error: serializeError(error) });
  } finally {
    incoming.delete(request.hash);
  }
};

port.on('message', (request: WorkerRequest) => {
  void handle(request);
});
// pdf.js (and PDFium) are loaded, and a generated page (standard and embedded fonts, rules, an
// image, a form) read end to end, before the worker reports ready, so that the first real
// document does not pay for module, font and decoder initialisation. PDFium reads it several
// times: its WebAssembly is compiled lazily, and hot functions are optimised only after some use.
await loadPdfJs();
await warmUp().catch(() => undefined);
if ((settings.textReader ?? 'pdfium') === 'pdfium') await warmUpPdfium().catch(() => undefined);
port.postMessage({ status: 'ready' } satisfies WorkerReady);

/** Reads the warm-up page with pdf.js. */
async function warmUp(): Promise<void> {
  const document = await openPdf(await warmUpPdf());
  try {
    const page = await document.getPage(1);
    await extractPage(page, 72);
    page.cleanup();
  } finally {
    await document.destroy();
  }
}

/** Reads the warm-up page with PDFium, ten times. */
async function warmUpPdfium(): Promise<void> {
  const pdfium = await loadPdfium();
  const bytes = await warmUpPdf();
  for (let i = 0; i < 10; i++) {
    const reader = PdfiumDocument.open(pdfium, bytes);
    try {
      extractPdfiumPage(reader, 1, 72);
    } finally {
      reader.close();
    }
  }
}
