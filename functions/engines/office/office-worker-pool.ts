import { DocumentRejectedError } from '../../core/domain/errors.js';
import { startModuleWorker, startedWorker, type StartedWorker } from '../module-worker.js';
import { deserializeError } from '../pdf/pdf-worker-protocol.js';
import type { OfficeDocument, OfficeFormat } from './office-document.js';
import type {
  OfficeWorkerReady,
  OfficeWorkerReply,
  OfficeWorkerRequest,
} from './office-worker-protocol.js';

/** Options of {@link OfficeWorkerPool}. */
export interface OfficeWorkerPoolOptions {
  /**
   * Worker threads converting documents side by side (each converts one document at a time).
   * @default 1
   */
  workers?: number;
  /**
   * Longest the conversion of one document may take, in milliseconds, counted from when a
   * worker takes it (not while it waits in the queue); past it the worker is terminated and
   * replaced, and the document rejected (422) with a detail naming the budget.
   * @default 60000
   */
  timeoutMs?: number;
  /**
   * Heap limit of each worker (old generation, `resourceLimits.maxOldGenerationSizeMb`), in MiB:
   * the readers allocate up to about 13 times a package's XML (exceljs, mammoth), and a document
   * that needs more crashes its worker only, and is rejected (422).
   * @default 1536
   */
  maxHeapMb?: number;
  /**
   * A worker is replaced after converting this many documents, so that what its heap reserved
   * (V8 seldom gives it back) is returned to the system.
   * @default 50
   */
  recycleAfterDocuments?: number;
  /**
   * A worker that holds more than this after a conversion (reserved JavaScript heap plus memory
   * outside it, as it reports), in MiB, is replaced before the next one.
   * @default 256
   */
  recycleAboveMb?: number;
}

interface Task {
  bytes: Uint8Array;
  format: OfficeFormat;
  resolve: (document: OfficeDocument) => void;
  reject: (error: unknown) => void;
}

/** A started worker and whether it has loaded its converters. */
interface WorkerHandle extends StartedWorker {
  /** Documents this worker has converted (or failed on). */
  documents: number;
}

interface InFlight {
  id: number;
  format: OfficeFormat;
  handle: WorkerHandle;
  timer: NodeJS.Timeout;
  resolve: (reply: OfficeWorkerReply) => void;
  reject: (error: unknown) => void;
}

/** One worker place of the pool: its current worker (if started) and its current call. */
interface Slot {
  handle: WorkerHandle | undefined;
  inFlight: InFlight | undefined;
  busy: boolean;
}

/** Longest a worker may take to load the converters (and, under tsx, compile their modules). */
const STARTUP_TIMEOUT_MS = 60_000;

/**
 * Converts office documents (bytes in, {@link OfficeDocument} out) in worker threads, so that a
 * large but legitimate workbook or Word file, which keeps mammoth, turndown or exceljs busy for
 * seconds, blocks a worker and not the server's event loop, and the memory the readers allocate
 * lives in the worker's heap, not the server's.
 *
 * - Time: each conversion has a budget (`timeoutMs`); past it the worker is terminated, the call
 *   rejected with a {@link DocumentRejectedError} (422) naming the budget, and a fresh worker
 *   started for the next call.
 * - Memory: each worker's heap is limited (`maxHeapMb`); a document that exhausts it, or any
 *   other crash of the worker, rejects that call only (422) and the next call gets a fresh
 *   worker. A worker is also replaced after `recycleAfterDocuments` documents, or after a
 *   conversion that leaves it holding more than `recycleAboveMb`, so that memory returns.
 * - Errors thrown by a converter cross the thread boundary by class name: a
 *   DocumentRejectedError stays a 422, an UnsupportedDocumentError a 400; any other failure of a
 *   reader on the file becomes an UnsupportedDocumentError in the worker.
 *
 * Calls beyond the number of workers wait in order. Idle workers do not keep the process alive.
 */
export class OfficeWorkerPool {
  readonly #timeoutMs: number;
  readonly #maxHeapMb: number;
  readonly #recycleAfter: number;
  readonly #recycleAboveBytes: number;
  readonly #slots: Slot[];
  readonly #queue: Task[] = [];
  #workersStarted = 0;
  #nextId = 1;

  constructor(options: OfficeWorkerPoolOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#maxHeapMb = options.maxHeapMb ?? 1536;
    this.#recycleAfter = Math.max(1, options.recycleAfterDocuments ?? 50);
    this.#recycleAboveBytes = (options.recycleAboveMb ?? 256) * 1_048_576;
    this.#slots = Array.from({ length: Math.max(1, options.workers ?? 1) }, () => ({
      handle: undefined,
      inFlight: undefined,
      busy: false,
    }));
  }

  /**
   * Converts `bytes` as `format` in a worker.
   * @param bytes the file's bytes (copied: the caller's buffer is left as it is).
   * @throws {DocumentRejectedError} (422) for what the converters refuse (zip bombs, DTDs,
   *   oversized sheets, nesting too deep), a conversion past the time budget, or one that
   *   crashed the worker (its memory exhausted).
   * @throws {UnsupportedDocumentError} (400) when the bytes cannot be read as `format`.
   * @throws {Error} when a worker could not start, or the pool was closed.
   */
  convert(bytes: Uint8Array, format: OfficeFormat): Promise<OfficeDocument> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ bytes, format, resolve, reject });
      this.#pump();
    });
  }

  /** Starts the first worker and loads the converters in it now, ahead of the first document. */
  async warmUp(): Promise<void> {
    const slot = this.#slots[0];
    if (slot) await this.#ensureWorker(slot).ready;
  }

  /**
   * How many workers were started so far: one per place used, plus one per replacement (after a
   * time budget, a crash, or a recycling).
   */
  get workersStarted(): number {
    return this.#workersStarted;
  }

  /** Stops the workers; calls still queued or running are rejected. A later call starts anew. */
  async close(): Promise<void> {
    const closed = new Error('the office converter was closed');
    for (const task of this.#queue.splice(0)) task.reject(closed);
    const stopping: Promise<number>[] = [];
    for (const slot of this.#slots) {
      const { inFlight, handle } = slot;
      if (inFlight) this.#settle(slot, inFlight);
      this.#retire(slot, handle);
      inFlight?.reject(closed);
      if (handle) stopping.push(handle.worker.terminate());
    }
    await Promise.all(stopping);
  }

  /** Hands queued calls to idle places. */
  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.busy) continue;
      const task = this.#queue.shift();
      if (!task) return;
      slot.busy = true;
      void this.#execute(slot, task)
        .then(task.resolve, task.reject)
        .finally(() => {
          slot.busy = false;
          this.#pump();
        });
    }
  }

  async #execute(slot: Slot, task: Task): Promise<OfficeDocument> {
    const handle = this.#ensureWorker(slot);
    handle.worker.ref();
    // The time budget starts once the worker runs: loading the converters is not the file's fault.
    await handle.ready;
    if (slot.handle !== handle) throw new Error('the office worker stopped before the request');
    const id = this.#nextId++;
    // A copy the worker owns: the store may hand out a shared or pooled buffer.
    const bytes = new Uint8Array(task.bytes);
    const reply = await new Promise<OfficeWorkerReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#onTimeout(slot, handle);
      }, this.#timeoutMs);
      const inFlight: InFlight = { id, format: task.format, handle, timer, resolve, reject };
      slot.inFlight = inFlight;
      const request: OfficeWorkerRequest = { id, format: task.format, bytes };
      try {
        handle.worker.postMessage(request, [bytes.buffer]);
      } catch (error) {
        this.#settle(slot, inFlight);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    if (reply.status === 'error') throw deserializeError(reply.error);
    return reply.document;
  }

  /** Clears the in-flight call's timer and lets the process exit while the worker is idle. */
  #settle(slot: Slot, inFlight: InFlight): void {
    clearTimeout(inFlight.timer);
    if (slot.inFlight === inFlight) slot.inFlight = undefined;
    inFlight.handle.worker.unref();
  }

  #ensureWorker(slot: Slot): WorkerHandle {
    if (slot.handle) return slot.handle;
    const worker = startModuleWorker(import.meta.url, 'office-worker', {
      resourceLimits: { maxOldGenerationSizeMb: this.#maxHeapMb },
    });
    this.#workersStarted++;
    const handle: WorkerHandle = {
      ...startedWorker(worker, STARTUP_TIMEOUT_MS, () => {
        this.#onCrash(slot, handle, `it did not start within ${STARTUP_TIMEOUT_MS / 1000} seconds`);
      }),
      documents: 0,
    };
    worker.on('message', (message: OfficeWorkerReply | OfficeWorkerReady) => {
      if (message.status === 'ready') {
        clearTimeout(handle.startTimer);
        handle.started = true;
        handle.markStarted();
        return;
      }
      const inFlight = slot.inFlight;
      if (inFlight?.handle !== handle || message.id !== inFlight.id) return;
      this.#settle(slot, inFlight);
      handle.documents++;
      if (
        handle.documents >= this.#recycleAfter ||
        message.memory.heldBytes > this.#recycleAboveBytes
      ) {
        this.#retire(slot, handle);
      }
      inFlight.resolve(message);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      this.#onCrash(
        slot,
        handle,
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `it exhausted the converter's memory (a ${this.#maxHeapMb} MB heap)`
          : `the converter stopped on it (${error.message.slice(0, 200)})`,
      );
    });
    worker.on('messageerror', (error: Error) => {
      this.#onCrash(slot, handle, `its conversion could not be read back (${error.message})`);
    });
    worker.on('exit', (code: number) => {
      this.#onCrash(slot, handle, `the converter stopped on it (exit code ${code})`);
    });
    slot.handle = handle;
    return handle;
  }

  /** Forgets `handle` (if current) and terminates its worker; the next call starts a fresh one. */
  #retire(slot: Slot, handle: WorkerHandle | undefined): void {
    if (!handle || slot.handle !== handle) return;
    slot.handle = undefined;
    clearTimeout(handle.startTimer);
    handle.failStart(new Error('the office worker was stopped'));
    handle.worker.unref();
    void handle.worker.terminate().catch(() => undefined);
  }

  #onTimeout(slot: Slot, handle: WorkerHandle): void {
    const inFlight = slot.inFlight;
    if (inFlight?.handle !== handle) return;
    const seconds = Math.round(this.#timeoutMs / 100) / 10;
    this.#abandon(
      slot,
      inFlight,
      `the ${inFlight.format} document could not be converted within the ${seconds} s budget of the office converter (it is too large or too complex)`,
    );
  }

  #onCrash(slot: Slot, handle: WorkerHandle, reason: string): void {
    if (slot.handle !== handle) return;
    const inFlight = slot.inFlight;
    if (!handle.started) {
      // Not the document's fault: the worker itself could not start.
      handle.failStart(new Error(`the office worker could not start: ${reason}`));
      this.#retire(slot, handle);
    } else if (inFlight?.handle === handle) {
      this.#abandon(
        slot,
        inFlight,
        `the ${inFlight.format} document could not be converted: ${reason}`,
      );
    } else {
      this.#retire(slot, handle);
    }
  }

  /** Gives up on the in-flight call (422) and replaces its worker. */
  #abandon(slot: Slot, inFlight: InFlight, message: string): void {
    this.#settle(slot, inFlight);
    this.#retire(slot, inFlight.handle);
    inFlight.reject(new DocumentRejectedError(message));
  }
}
