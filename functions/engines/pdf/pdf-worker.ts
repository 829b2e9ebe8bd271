/**
 * Worker thread entry of {@link PdfWorkerClient}: hosts a {@link PdfDocumentCache} over the
 * bytes the main thread sends, so that a PDF on which pdf.js loops forever blocks this thread
 * (which the client terminates) instead of the server.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { DocumentRef } from '../../core/ports/document-engine.js';
import type { ObjectStore } from '../../core/ports/object-store.js';
import { BASE_DPI, PdfDocumentCache } from './pdf-document-cache.js';
import { inspectExtractedPage } from './pdf-engine.js';
import { loadPdfJs, openPdf } from './pdf-document.js';
import { layOutTextLayer } from './local-text-provider.js';
import { extractPage } from './page-text.js';
import { extractPdfiumPage } from './pdfium-page-text.js';
import { loadPdfium, PdfiumDocument } from './pdfium.js';
import { isEnglishWord } from '../layout/hyphenation.js';
import { profileFromStats } from '../layout/profile.js';
import { warmUpPdf } from './warm-up-pdf.js';
import { UninterpretablePdfError } from './pdf-page-source.js';
import {
  serializeError,
  type WorkerMemory,
  type WorkerReady,
  type WorkerReply,
  type WorkerRequest,
  type WorkerResults,
  type WorkerSettings,
} from './pdf-worker-protocol.js';

/** How often the warm-up page is laid out before the worker reports ready. */
const WARM_UP_LAYOUTS = 20;

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
    case 'inspect':
      return cache.inspectPage(ref, request.pageNumber);
    case 'render':
      return cache.render(ref, request.pageNumber, request.options);
    case 'layOut':
      return cache
        .page(ref, request.pageNumber)
        .then((extracted) => layOutTextLayer(extracted, request.dpi, request.profile));
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

/** PDFium in this thread, with its memory capped; null when pdf.js reads the text layer. */
const pdfium =
  (settings.textReader ?? 'pdfium') === 'pdfium'
    ? await loadPdfium().then((loaded) => {
        if (settings.pdfiumMaxBytes !== undefined) loaded.limitMemory(settings.pdfiumMaxBytes);
        return loaded;
      })
    : null;

/** The memory this worker holds now (see {@link WorkerMemory}). */
const memory = (): WorkerMemory => {
  // This isolate's heap statistics, not process.memoryUsage(), which also reads the process's
  // resident set from /proc on every call.
  const heap = getHeapStatistics();
  return {
    wasmBytes: pdfium?.memoryBytes ?? 0,
    heapBytes: heap.used_heap_size + heap.external_memory,
  };
};

/** Messages of failures after which PDFium (or this thread) cannot be trusted any more. */
const ENGINE_FAILURE =
  /Aborted\(|Cannot enlarge memory|cannot allocate|out of memory|Array buffer allocation failed|program has already aborted/i;

/** The page a request is about, for error messages. */
const subject = (request: WorkerRequest): string =>
  request.op === 'pageCount' ? 'the PDF' : `page ${request.pageNumber}`;

/** A fatal reply refusing the document (422) with `message`: the worker is replaced after it. */
const refusal = (request: WorkerRequest, message: string): WorkerReply => ({
  id: request.id,
  status: 'error',
  fatal: true,
  error: { name: 'DocumentRejectedError', message },
});

/**
 * The reply for a call that failed (`error`) or spent PDFium's memory budget: fatal when the
 * worker must be replaced (budget spent, PDFium aborted, a time budget ran out).
 */
const failure = (request: WorkerRequest, error: unknown, overBudget: boolean): WorkerReply => {
  if (overBudget) {
    const mb = Math.round((pdfium?.maxBytes ?? 0) / 1_048_576);
    const what =
      request.op === 'pageCount' ? "the PDF's structure" : `page ${request.pageNumber}'s content`;
    return refusal(
      request,
      `${what} inflates past the ${mb} MB memory budget of the PDF reader (a compressed stream expands too far)`,
    );
  }
  const serialized = serializeError(error);
  if (error instanceof UninterpretablePdfError) {
    return { id: request.id, status: 'error', fatal: true, error: serialized };
  }
  if (error instanceof WebAssembly.RuntimeError || ENGINE_FAILURE.test(serialized.message)) {
    return refusal(
      request,
      `${subject(request)} cannot be read: the PDF reader failed on it (${serialized.message.slice(0, 200)})`,
    );
  }
  return { id: request.id, status: 'error', error: serialized };
};

const handle = async (request: WorkerRequest): Promise<void> => {
  const started = performance.now();
  const cpuBefore = process.threadCpuUsage();
  const ref: DocumentRef = { key: request.hash, format: 'pdf', hash: request.hash };
  if (!cache.has(ref)) {
    if (!request.bytes) {
      send({ id: request.id, status: 'missing' });
      return;
    }
    incoming.set(request.hash, request.bytes);
  }
  pdfium?.takeOverBudget();
  let reply: WorkerReply;
  try {
    const value = await run(request, ref);
    // PDFium may survive a refused allocation and read the page without the stream it dropped.
    reply = pdfium?.takeOverBudget()
      ? failure(request, undefined, true)
      : { id: request.id, status: 'ok', value };
  } catch (error) {
    reply = failure(request, error, pdfium?.takeOverBudget() ?? false);
  } finally {
    incoming.delete(request.hash);
  }
  const cpu = process.threadCpuUsage(cpuBefore);
  send({
    ...reply,
    memory: memory(),
    elapsedMs: performance.now() - started,
    cpuMs: (cpu.user + cpu.system) / 1000,
  });
};

port.on('message', (request: WorkerRequest) => {
  void handle(request);
});
// PDFium (and, unless told otherwise, pdf.js) are loaded, and a generated page (standard and
// embedded fonts, rules, an image, a form) read end to end, before the worker reports ready, so
// that the first real document does not pay for module, font and decoder initialisation. PDFium
// reads it several times: its WebAssembly is compiled lazily, and hot functions are optimised
// only after some use. The page is then measured and laid out as the text-layer provider does,
// several times too, so that the layout's code is compiled and optimised before it meets a real
// page. pdf.js only renders pages (and reads what PDFium cannot): a worker told not to preload it
// saves its memory (about 100 MB, several times that under tsx) until a page needs it.
if (settings.preloadPdfJs !== false || !pdfium) {
  await loadPdfJs();
  await warmUp().catch(() => undefined);
}
await warmUpPdfium().catch(() => undefined);
await warmUpLayout().catch(() => undefined);
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

/**
 * Measures and lays out the warm-up page, as inspection and the text-layer provider do, and
 * loads the word list line-end hyphens are judged by.
 */
async function warmUpLayout(): Promise<void> {
  isEnglishWord('warm');
  const bytes = await warmUpPdf();
  let extracted;
  if (pdfium) {
    const reader = PdfiumDocument.open(pdfium, bytes);
    try {
      extracted = extractPdfiumPage(reader, 1, BASE_DPI);
    } finally {
      reader.close();
    }
  } else {
    const document = await openPdf(bytes);
    try {
      const page = await document.getPage(1);
      extracted = await extractPage(page, BASE_DPI);
      page.cleanup();
    } finally {
      await document.destroy();
    }
  }
  for (let i = 0; i < WARM_UP_LAYOUTS; i++) {
    const { profile } = inspectExtractedPage(extracted);
    layOutTextLayer(extracted, 144, profileFromStats([profile]));
  }
}

/** Reads the warm-up page with PDFium, ten times. */
async function warmUpPdfium(): Promise<void> {
  if (!pdfium) return;
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
