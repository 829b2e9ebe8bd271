import type { DocumentRef } from '../../core/ports/document-engine.js';
import type { ObjectStore } from '../../core/ports/object-store.js';
import { RecentlyUsed } from '../../adapters/recently-used.js';
import type { ProviderPageResult } from '../../core/ports/page-provider.js';
import { ModuleWorker, type RequestBody } from '../module-worker.js';
import type { RasterPage } from '../raster.js';
import { PDF_WORKER_CPU, recordStageTime } from '../stage-timings.js';
import type { ExtractedPage } from './page-text.js';
import type { PdfTextReader } from './pdf-document-cache.js';
import {
  pageOverBudget,
  UninterpretablePdfError,
  type PageInspection,
  type PdfPageSource,
  type RenderOptions,
} from './pdf-page-source.js';
import {
  deserializeError,
  type WorkerCall,
  type WorkerReply,
  type WorkerRequest,
  type WorkerResults,
  type WorkerSettings,
} from './pdf-worker-protocol.js';

/** Options of {@link PdfWorkerClient}. */
export interface PdfWorkerClientOptions {
  /**
   * Worker threads reading PDFs. The pages of a document are shared out among them as they
   * become free, each page then staying with the worker that first read it, so that the page a
   * worker read for the inspection is the one it lays out (or renders) later; each worker opens
   * the document for itself. Each has the memory bound, heap limit and time budgets below. From
   * `PDF_WORKERS`.
   * @default 1
   */
  workers?: number;
  /**
   * Documents each worker keeps open (least recently used evicted first).
   * @default 4
   */
  maxDocuments?: number;
  /**
   * Pages kept extracted per document in the worker.
   * @default 2000
   */
  maxPagesPerDocument?: number;
  /**
   * Longest the opening of a document, and the reading of one page, may each take, in
   * milliseconds; past it the worker is terminated and the document rejected.
   * @default 20000
   */
  timeoutMs?: number;
  /**
   * Longest the rendering of one page may take, in milliseconds.
   * @default 60000
   */
  renderTimeoutMs?: number;
  /**
   * How long a document that timed out or crashed the worker is refused without trying again,
   * in milliseconds.
   * @default 600000
   */
  poisonMs?: number;
  /**
   * Heap limit of the worker (old generation, `resourceLimits.maxOldGenerationSizeMb`), in MiB;
   * a PDF that exceeds it crashes the worker only, and is rejected.
   * @default maxMemoryMb
   */
  maxHeapMb?: number;
  /**
   * Memory bound of the worker, in MiB: after a call that leaves it holding more (PDFium's
   * WebAssembly heap, which never shrinks, plus its JavaScript heap and buffers, as the worker
   * reports them), the worker is replaced before the next call. From `PDF_WORKER_MEMORY_MB`.
   * @default 1024
   */
  maxMemoryMb?: number;
  /**
   * Most PDFium's WebAssembly heap may grow to, in MiB: a page (or document structure) whose
   * streams inflate further is rejected ({@link UninterpretablePdfError}, 422, naming the page
   * and this budget) and the worker replaced.
   * @default maxMemoryMb / 2
   */
  pdfiumMaxMb?: number;
  /**
   * Reader of text layers in the worker.
   * @default 'pdfium'
   */
  textReader?: PdfTextReader;
  /**
   * How long the worker may stay idle (no call running or queued), in milliseconds, before it is
   * terminated to give its memory back (WebAssembly memory never shrinks while it lives); the
   * next call starts a fresh one and sends its document again. `0` or `Infinity`: never. From
   * `ENGINE_IDLE_MS`.
   * @default 60000
   */
  idleMs?: number;
}

/** One worker thread with the calls waiting for it and the documents it was sent. */
interface Lane {
  worker: ModuleWorker<WorkerRequest, WorkerReply>;
  queue: Task[];
  /** Documents this worker was sent (it may have evicted some since). */
  sent: Set<string>;
  busy: boolean;
}

interface Task {
  ref: DocumentRef;
  call: WorkerCall;
  /** When the call was queued (`performance.now()`). */
  queued: number;
  resolve: (value: WorkerResults[WorkerCall['op']]) => void;
  reject: (error: unknown) => void;
}

const POISON_LIMIT = 1000;
/**
 * Documents whose page placements (which worker read which page) and page counts are
 * remembered, most recently used kept; a page of a document forgotten goes to a free worker again
 * (which reads the page again if it was read elsewhere).
 */
const REMEMBERED_DOCUMENTS = 64;
/** Longest a worker may take to load pdf.js (and, under tsx, compile its modules). */
const STARTUP_TIMEOUT_MS = 60_000;

/** The document identity shared with the worker: its hash (its key when the hash is unknown). */
const documentId = (ref: DocumentRef): string => ref.hash || ref.key;

/**
 * Runs the PDF readers (PDFium and pdf.js) in a worker thread, so that a PDF on which one loops
 * forever (a content stream cycle, a pathological operator list) cannot block the server: each call has a time budget,
 * past which the worker is terminated, the call rejected with {@link UninterpretablePdfError}
 * (a DocumentRejectedError, 422), the document refused for `poisonMs`, and a fresh worker
 * started for the next call. A crashed worker is handled the same way.
 *
 * Memory: the worker's JavaScript heap is limited (`resourceLimits`), PDFium's WebAssembly heap
 * is capped (`pdfiumMaxMb`: a page whose streams inflate past it is refused, 422, naming the page
 * and the budget), and the worker reports what it holds after each call; past `maxMemoryMb`, or
 * after a fatal engine error (PDFium aborted, a time budget ran out), it is replaced before the
 * next call, so that WebAssembly memory, which never shrinks, is given back. For the same reason a
 * worker idle for `idleMs` (no call running or queued) is terminated; the next call starts a new
 * one and sends its document again.
 *
 * The text-layer provider's layout of a page runs in the worker too (`layOut`), beside the
 * extracted page the worker keeps from inspection: the page does not cross threads a second
 * time, and this thread scores and stores other pages while the worker lays one out.
 *
 * The inspection of a page (`inspect`: its features and its share of the layout profile) is
 * measured in the worker too: only the measurements cross threads, not the page.
 *
 * With several workers (`workers`), a call for a page no worker has read yet (and a page count)
 * waits in a shared queue, which the first free worker takes from; the page then stays with that
 * worker, whose own queue later calls for it join (and are served before the shared queue). The
 * pages of one document are so read in parallel, balanced by their cost (a page of a paper may
 * take ten times another), while each page is laid out or rendered where it was read. Each
 * worker serves calls one at a time, in order (the readers are single-threaded anyway), so a
 * time budget only runs while its own call is being served. A document's page count is asked
 * of a worker once and remembered. The bytes of a document are read from the store and sent once
 * to each worker that needs them; a worker keeps the documents (and their extracted pages) open by hash,
 * least recently used evicted, and says when it lacks one, which is then sent again. A document
 * refused by one worker (past a time budget, or crashing it) is refused by all.
 */
export class PdfWorkerClient implements PdfPageSource {
  readonly #store: ObjectStore;
  readonly #timeoutMs: number;
  readonly #renderTimeoutMs: number;
  readonly #poisonMs: number;
  readonly #lanes: Lane[];
  /** Calls for pages no worker has read yet, and page counts: taken by the first free worker. */
  readonly #shared: Task[] = [];
  /** Per document: the worker (index) that read each page. */
  readonly #placements = new RecentlyUsed<string, Map<number, number>>({
    maxEntries: REMEMBERED_DOCUMENTS,
  });
  /** Per document: its page count, once a worker was asked for it. */
  readonly #pageCounts = new RecentlyUsed<string, Promise<number>>({
    maxEntries: REMEMBERED_DOCUMENTS,
  });
  readonly #poisoned = new RecentlyUsed<string, { until: number; message: string }>({
    maxEntries: POISON_LIMIT,
  });
  /**
   * Calls to {@link close} so far: a call that was reading its document from the store when the
   * client closed is rejected, instead of starting a worker after the close.
   */
  #closes = 0;

  constructor(store: ObjectStore, options: PdfWorkerClientOptions = {}) {
    this.#store = store;
    this.#timeoutMs = options.timeoutMs ?? 20_000;
    this.#renderTimeoutMs = options.renderTimeoutMs ?? 60_000;
    this.#poisonMs = options.poisonMs ?? 600_000;
    const maxMemoryMb = options.maxMemoryMb ?? 1024;
    const maxMemoryBytes = maxMemoryMb * 1_048_576;
    const settings: WorkerSettings = {
      pdfiumMaxBytes: Math.round((options.pdfiumMaxMb ?? maxMemoryMb / 2) * 1_048_576),
      maxDocuments: options.maxDocuments ?? 4,
      maxPagesPerDocument: options.maxPagesPerDocument ?? 2000,
      openTimeoutMs: this.#timeoutMs,
      pageTimeoutMs: this.#timeoutMs,
      renderTimeoutMs: this.#renderTimeoutMs,
      textReader: options.textReader ?? 'pdfium',
    };
    const workers = Math.max(1, Math.floor(options.workers ?? 1));
    this.#lanes = Array.from({ length: workers }, (_, index) => {
      // pdf.js (page images; text PDFium cannot read) is preloaded by the first worker only, which
      // takes a new page first when all are free (as a lone one-page scan's); the others load it
      // when a page they read needs it.
      const workerData: WorkerSettings = {
        ...settings,
        preloadPdfJs: index === 0 || settings.textReader === 'pdfjs',
      };
      const lane: Lane = {
        sent: new Set(),
        queue: [],
        busy: false,
        worker: new ModuleWorker({
          base: import.meta.url,
          name: 'pdf-worker',
          workerOptions: {
            workerData,
            resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? maxMemoryMb },
          },
          label: 'the PDF worker',
          idleMs: options.idleMs ?? 60_000,
          startTimeoutMs: STARTUP_TIMEOUT_MS,
          // After a fatal engine error, or past the memory bound, the next call gets a fresh worker.
          replaceAfter: (reply) => {
            const held = reply.memory ? reply.memory.wasmBytes + reply.memory.heapBytes : 0;
            return (reply.status === 'error' && reply.fatal === true) || held > maxMemoryBytes;
          },
          onRetire: () => {
            lane.sent.clear();
          },
        }),
      };
      return lane;
    });
  }

  /** {@inheritDoc PdfPageSource.pageCount} */
  pageCount(ref: DocumentRef): Promise<number> {
    const document = documentId(ref);
    const known = this.#pageCounts.get(document);
    if (known) {
      this.#pageCounts.set(document, known);
      // A document refused since it was counted stays refused.
      return known.then((count) => {
        this.#checkPoisoned(document);
        return count;
      });
    }
    const counted = this.#call(ref, { op: 'pageCount' }) as Promise<number>;
    this.#pageCounts.set(document, counted);
    // A failed count is not remembered: the next call asks again (and a poisoned document is
    // refused before any worker is asked).
    counted.catch(() => {
      if (this.#pageCounts.get(document) === counted) this.#pageCounts.delete(document);
    });
    return counted;
  }

  /** {@inheritDoc PdfPageSource.page} */
  page(ref: DocumentRef, pageNumber: number): Promise<ExtractedPage> {
    return this.#call(ref, { op: 'page', pageNumber }) as Promise<ExtractedPage>;
  }

  /** {@inheritDoc PdfPageSource.inspectPage} */
  inspectPage(ref: DocumentRef, pageNumber: number): Promise<PageInspection> {
    return this.#call(ref, { op: 'inspect', pageNumber }) as Promise<PageInspection>;
  }

  /** {@inheritDoc PdfPageSource.render} */
  render(ref: DocumentRef, pageNumber: number, options: RenderOptions): Promise<RasterPage> {
    return this.#call(ref, { op: 'render', pageNumber, options }) as Promise<RasterPage>;
  }

  /** {@inheritDoc PdfPageSource.layOut} */
  layOut(
    ref: DocumentRef,
    pageNumber: number,
    dpi: number,
    profile: unknown,
  ): Promise<ProviderPageResult> {
    return this.#call(ref, {
      op: 'layOut',
      pageNumber,
      dpi,
      profile,
    }) as Promise<ProviderPageResult>;
  }

  /**
   * Starts the workers now (each loads PDFium and compiles the layout on a generated page; the
   * first also loads pdf.js), so the first document does not wait for them.
   */
  async warmUp(): Promise<void> {
    await Promise.all(this.#lanes.map((lane) => lane.worker.warmUp()));
  }

  /**
   * The worker (0-based index) that read page `pageNumber` of the document and serves its later
   * calls, while the client remembers it; undefined before any call for the page.
   */
  workerOf(ref: DocumentRef, pageNumber: number): number | undefined {
    return this.#placements.get(documentId(ref))?.get(pageNumber);
  }

  /**
   * How many workers were started so far: one per worker, plus one per replacement (after a time
   * budget, a crash, a fatal engine error, passing the memory bound, or an idle release).
   */
  get workersStarted(): number {
    return this.#lanes.reduce((n, lane) => n + lane.worker.workersStarted, 0);
  }

  /** Stops the workers; calls still queued or running are rejected. A later call starts new ones. */
  async close(): Promise<void> {
    this.#closes++;
    const closed = new Error('the PDF reader was closed');
    for (const task of this.#shared.splice(0)) task.reject(closed);
    for (const lane of this.#lanes) for (const task of lane.queue.splice(0)) task.reject(closed);
    this.#placements.clear();
    this.#pageCounts.clear();
    await Promise.all(this.#lanes.map((lane) => lane.worker.close(closed)));
  }

  /** The worker (index) that read page `call.pageNumber` of `document`, if one did. */
  #placement(document: string, call: WorkerCall): number | undefined {
    return call.op === 'pageCount'
      ? undefined
      : this.#placements.get(document)?.get(call.pageNumber);
  }

  /** Records that worker `index` reads page `call.pageNumber` of `document`. */
  #place(document: string, call: WorkerCall, index: number): void {
    if (call.op === 'pageCount') return;
    const pages = this.#placements.get(document) ?? new Map<number, number>();
    pages.set(call.pageNumber, index);
    this.#placements.set(document, pages);
  }

  #call(ref: DocumentRef, call: WorkerCall): Promise<WorkerResults[WorkerCall['op']]> {
    return new Promise((resolve, reject) => {
      const task: Task = { ref, call, queued: performance.now(), resolve, reject };
      const document = documentId(ref);
      const placed = this.#placement(document, call);
      const lane = placed === undefined ? undefined : this.#lanes[placed];
      if (placed !== undefined && lane) {
        // Still in use: the document's placements are kept as the most recently used.
        this.#place(document, call, placed);
        lane.queue.push(task);
        this.#pump(lane);
        return;
      }
      this.#shared.push(task);
      for (const free of this.#lanes) this.#pump(free);
    });
  }

  /**
   * The next call for `lane`: its own queue's first, else the first shared call, which places
   * its page with this worker. A shared call for a page another worker read meanwhile (two
   * calls for one new page) joins that worker's queue instead.
   */
  #next(lane: Lane): Task | undefined {
    const own = lane.queue.shift();
    if (own) return own;
    const index = this.#lanes.indexOf(lane);
    for (let task = this.#shared.shift(); task; task = this.#shared.shift()) {
      const document = documentId(task.ref);
      const placed = this.#placement(document, task.call);
      const other = placed === undefined || placed === index ? undefined : this.#lanes[placed];
      if (other) {
        other.queue.push(task);
        this.#pump(other);
        continue;
      }
      this.#place(document, task.call, index);
      return task;
    }
    return undefined;
  }

  /**
   * Runs the lane's next call (see {@link #next}) when none is running there. The worker's idle
   * clock runs only while no call runs: each call holds it off (`use`), and the next queued one
   * starts before it can fire.
   */
  #pump(lane: Lane): void {
    if (lane.busy) return;
    const task = this.#next(lane);
    if (!task) return;
    lane.busy = true;
    void lane.worker
      .use(() => this.#execute(lane, task))
      .then(task.resolve, task.reject)
      .finally(() => {
        lane.busy = false;
        this.#pump(lane);
      });
  }

  async #execute(lane: Lane, task: Task): Promise<WorkerResults[WorkerCall['op']]> {
    const closes = this.#closes;
    recordStageTime('pdf worker: queued', performance.now() - task.queued);
    const document = documentId(task.ref);
    this.#checkPoisoned(document);
    let withBytes = !lane.sent.has(document);
    for (;;) {
      // A copy the worker owns: the store may hand out a shared or pooled buffer.
      const bytes = withBytes ? new Uint8Array(await this.#store.get(task.ref.key)) : undefined;
      if (this.#closes !== closes) throw new Error('the PDF reader was closed');
      const sent = performance.now();
      const reply = await this.#send(lane, document, task.call, bytes);
      // Time in the worker, and the rest of the round trip (copying the reply across threads,
      // waiting for this thread's event loop).
      const roundTrip = performance.now() - sent;
      const inWorker = Math.min(roundTrip, reply.elapsedMs ?? 0);
      recordStageTime(`pdf worker: ${task.call.op}${bytes ? ' (with open)' : ''}`, inWorker);
      recordStageTime('pdf worker: transfer', roundTrip - inWorker);
      // CPU time apart from the wall time above: a busy machine stretches the latter only.
      if (reply.cpuMs !== undefined) recordStageTime(PDF_WORKER_CPU, reply.cpuMs);
      if (reply.status === 'missing') {
        lane.sent.delete(document);
        if (withBytes) throw new Error('the PDF worker did not keep the document it was sent');
        withBytes = true;
        continue;
      }
      lane.sent.add(document);
      if (reply.status === 'error' && reply.fatal === true) {
        // The worker was replaced on this reply; the document would fail the same way again.
        this.#poison(document, reply.error.message);
        throw new UninterpretablePdfError(reply.error.message);
      }
      if (reply.status === 'error') throw deserializeError(reply.error);
      return reply.value;
    }
  }

  #checkPoisoned(document: string): void {
    const poison = this.#poisoned.get(document);
    if (!poison) return;
    if (poison.until > Date.now()) throw new UninterpretablePdfError(poison.message);
    this.#poisoned.delete(document);
  }

  #poison(document: string, message: string): void {
    this.#poisoned.set(document, { until: Date.now() + this.#poisonMs, message });
  }

  /**
   * Sends one request to the worker (started if needed) and waits for its reply. A call that
   * runs past its budget, or crashes the worker, replaces the worker and refuses its document
   * for `poisonMs`.
   */
  #send(
    lane: Lane,
    document: string,
    call: WorkerCall,
    bytes: Uint8Array | undefined,
  ): Promise<WorkerReply> {
    const callBudget = call.op === 'render' ? this.#renderTimeoutMs : this.#timeoutMs;
    const request: RequestBody<WorkerRequest> = {
      ...call,
      hash: document,
      ...(bytes ? { bytes } : {}),
    };
    return lane.worker.request(request, {
      transfer: bytes ? [bytes.buffer as ArrayBuffer] : [],
      // The first call for a document also opens it.
      budgetMs: callBudget + (bytes ? this.#timeoutMs : 0),
      failure: (failure) => {
        const message =
          failure.reason === 'crash'
            ? `the PDF stopped the PDF reader (${failure.detail.slice(0, 200)})`
            : call.op === 'pageCount'
              ? `the PDF could not be interpreted within ${String(Math.round(callBudget / 100) / 10)} seconds (its structure may loop or be pathologically complex)`
              : pageOverBudget(call.pageNumber, callBudget).message;
        this.#poison(document, message);
        return new UninterpretablePdfError(message);
      },
    });
  }
}
