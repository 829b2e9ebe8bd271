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

const cache = new PdfDocumentCache(store, workerData as WorkerSettings);

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
// pdf.js is loaded, and one tiny document read end to end, before the worker reports ready, so
// that the first real document does not pay for module, font and decoder initialisation.
await loadPdfJs();
await warmUp().catch(() => undefined);
port.postMessage({ status: 'ready' } satisfies WorkerReady);

/** Reads a one-page document with a line of Helvetica text (pdf.js rebuilds the missing xref). */
async function warmUp(): Promise<void> {
  const content = 'BT /F1 12 Tf 72 720 Td (warm) Tj ET';
  const text = [
    '%PDF-1.4',
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R',
    '  /Resources << /Font << /F1 5 0 R >> >> >> endobj',
    `4 0 obj << /Length ${content.length} >> stream`,
    content,
    'endstream endobj',
    '5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj',
    'trailer << /Root 1 0 R >>',
    '%%EOF',
  ].join('\n');
  const document = await openPdf(new TextEncoder().encode(text));
  try {
    const page = await document.getPage(1);
    await extractPage(page, 72);
    page.cleanup();
  } finally {
    await document.destroy();
  }
}
