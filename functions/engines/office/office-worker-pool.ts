import { DocumentRejectedError } from '../../core/domain/errors.js';
import { ModuleWorker } from '../module-worker.js';
import { deserializeError } from '../pdf/pdf-worker-protocol.js';
import type { OfficeDocument, OfficeFormat } from './office-document.js';
import type { OfficeWorkerReply, OfficeWorkerRequest } from './office-worker-protocol.js';

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
   * the readers allocate up to about 13 times a package's XML (SheetJS, mammoth), and a document
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
  /**
   * How long a worker may stay idle (no document converting), in milliseconds, before it is
   * terminated to give its memory back; the next document starts a fresh one (loading the
   * converters again). `0` or `Infinity`: never. From `ENGINE_IDLE_MS`.
   * @default 60000
   */
  idleMs?: number;
}

interface Task {
  bytes: Uint8Array;
  format: OfficeFormat;
  resolve: (document: OfficeDocument) => void;
  reject: (error: unknown) => void;
}

/** One worker place of the pool and whether it is converting a document now. */
interface Slot {
  worker: ModuleWorker<OfficeWorkerRequest, OfficeWorkerReply>;
  busy: boolean;
}

/** Longest a worker may take to load the converters (and, under tsx, compile their modules). */
const STARTUP_TIMEOUT_MS = 60_000;

/**
 * Converts office documents (bytes in, {@link OfficeDocument} out) in worker threads, so that a
 * large but legitimate workbook or Word file, which keeps mammoth, turndown or SheetJS busy for
 * seconds, blocks a worker and not the server's event loop, and the memory the readers allocate
 * lives in the worker's heap, not the server's.
 *
 * - Time: each conversion has a budget (`timeoutMs`); past it the worker is terminated, the call
 *   rejected with a {@link DocumentRejectedError} (422) naming the budget, and a fresh worker
 *   started for the next call.
 * - Memory: each worker's heap is limited (`maxHeapMb`); a document that exhausts it, or any
 *   other crash of the worker, rejects that call only (422) and the next call gets a fresh
 *   worker. A worker is also replaced after `recycleAfterDocuments` documents, or after a
 *   conversion that leaves it holding more than `recycleAboveMb`, and stopped once idle for
 *   `idleMs`, so that memory returns.
 * - Errors thrown by a converter cross the thread boundary by class name: a
 *   DocumentRejectedError stays a 422, an UnsupportedDocumentError a 400; any other failure of a
 *   reader on the file becomes an UnsupportedDocumentError in the worker.
 *
 * Calls beyond the number of workers wait in order. Idle workers do not keep the process alive.
 * Each worker's lifecycle is a {@link ModuleWorker}, as the PDF reader's is.
 */
export class OfficeWorkerPool {
  readonly #timeoutMs: number;
  readonly #maxHeapMb: number;
  readonly #slots: Slot[];
  readonly #queue: Task[] = [];

  constructor(options: OfficeWorkerPoolOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#maxHeapMb = options.maxHeapMb ?? 1536;
    const recycleAfter = Math.max(1, options.recycleAfterDocuments ?? 50);
    const recycleAboveBytes = (options.recycleAboveMb ?? 256) * 1_048_576;
    const idleMs = options.idleMs ?? 60_000;
    this.#slots = Array.from({ length: Math.max(1, options.workers ?? 1) }, () => ({
      worker: new ModuleWorker<OfficeWorkerRequest, OfficeWorkerReply>({
        base: import.meta.url,
        name: 'office-worker',
        workerOptions: { resourceLimits: { maxOldGenerationSizeMb: this.#maxHeapMb } },
        label: 'the office worker',
        idleMs,
        startTimeoutMs: STARTUP_TIMEOUT_MS,
        replaceAfter: (reply, documents) =>
          documents >= recycleAfter || reply.memory.heldBytes > recycleAboveBytes,
      }),
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
    await this.#slots[0]?.worker.warmUp();
  }

  /**
   * How many workers were started so far: one per place used, plus one per replacement (after a
   * time budget, a crash, a recycling, or an idle release).
   */
  get workersStarted(): number {
    return this.#slots.reduce((sum, slot) => sum + slot.worker.workersStarted, 0);
  }

  /** Stops the workers; calls still queued or running are rejected. A later call starts anew. */
  async close(): Promise<void> {
    const closed = new Error('the office converter was closed');
    for (const task of this.#queue.splice(0)) task.reject(closed);
    await Promise.all(this.#slots.map((slot) => slot.worker.close(closed)));
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
    const { format } = task;
    // A copy the worker owns: the store may hand out a shared or pooled buffer.
    const bytes = new Uint8Array(task.bytes);
    const reply = await slot.worker.request(
      { format, bytes },
      {
        transfer: [bytes.buffer],
        budgetMs: this.#timeoutMs,
        failure: (failure) => {
          if (failure.reason === 'timeout') {
            const seconds = Math.round(failure.budgetMs / 100) / 10;
            return new DocumentRejectedError(
              `the ${format} document could not be converted within the ${String(seconds)} s budget of the office converter (it is too large or too complex)`,
            );
          }
          const reason = failure.outOfMemory
            ? `it exhausted the converter's memory (a ${String(this.#maxHeapMb)} MB heap)`
            : `the converter stopped on it (${failure.detail.slice(0, 200)})`;
          return new DocumentRejectedError(
            `the ${format} document could not be converted: ${reason}`,
          );
        },
      },
    );
    if (reply.status === 'error') throw deserializeError(reply.error);
    return reply.document;
  }
}
