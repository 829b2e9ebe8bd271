import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** The file URL of tsx's ESM registration API (`tsx/esm/api`, import condition). */
const tsxEsmApi = (): string => {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    exports?: Record<string, { import?: { default?: string } } | string | undefined>;
  };
  const entry = exports?.['./esm/api'];
  const target =
    typeof entry === 'object' ? (entry.import?.default ?? './dist/esm/api/index.mjs') : undefined;
  return pathToFileURL(join(dirname(manifest), target ?? './dist/esm/api/index.mjs')).href;
};

/** The subset of esbuild's `buildSync` used here (esbuild is loaded only when running as TypeScript). */
type BuildSync = (options: Record<string, unknown>) => {
  outputFiles?: { contents: Uint8Array }[];
};

/** A worker entry bundled by this process: where it is written, and its bytes. */
interface Bundle {
  file: string;
  contents: Uint8Array;
}

/** Bundled worker entries of this process, by the entry's file path (undefined: cannot be made). */
const bundles = new Map<string, Bundle | undefined>();

/** Bundles of other code (other checkouts, earlier edits) not written or used for this long go. */
const BUNDLE_MAX_AGE_MS = 7 * 24 * 3_600_000;

/**
 * The project's modules of the worker entry at `entryPath` (a `.ts` file) bundled into one ES
 * module with esbuild, packages left as imports, under the `node_modules/.cache` that holds
 * esbuild (so that the bundle's imports and `createRequire(import.meta.url)` find the same
 * packages as the sources do); undefined when it cannot be made (no esbuild, a compile error,
 * which the tsx route then reports). The file is named by its content's hash, so processes
 * running other code write other files; an unchanged entry is bundled again by each process
 * (about 0.1 s) but written once. Bundled once per process.
 */
const bundleOf = (entryPath: string): Bundle | undefined => {
  if (bundles.has(entryPath)) return bundles.get(entryPath);
  let bundle: Bundle | undefined;
  try {
    const require = createRequire(import.meta.url);
    const esbuild = require('esbuild') as { buildSync: BuildSync };
    const nodeModules = dirname(dirname(require.resolve('esbuild/package.json')));
    const [output] =
      esbuild.buildSync({
        entryPoints: [entryPath],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: `node${process.versions.node}`,
        packages: 'external',
        sourcemap: 'inline',
        write: false,
        logLevel: 'silent',
      }).outputFiles ?? [];
    if (output) {
      const hash = createHash('sha256').update(output.contents).digest('hex').slice(0, 16);
      const name = basename(entryPath, '.ts');
      const dir = join(nodeModules, '.cache', 'docparse-workers');
      bundle = { file: join(dir, `${name}-${hash}.mjs`), contents: output.contents };
      pruneBundles(dir, name);
    }
  } catch {
    bundle = undefined;
  }
  bundles.set(entryPath, bundle);
  return bundle;
};

/**
 * The path of `bundle`'s file, written (again) when it is not there: by this process, or when
 * another one pruned it (see {@link pruneBundles}), so that a worker this process replaces still
 * runs the code it started with. Its modification time is set to now. Undefined when it cannot
 * be written (a read-only `node_modules`).
 */
const bundleFile = (bundle: Bundle): string | undefined => {
  try {
    if (existsSync(bundle.file)) {
      const now = new Date();
      utimesSync(bundle.file, now, now);
    } else {
      mkdirSync(dirname(bundle.file), { recursive: true });
      const partial = `${bundle.file}.${String(process.pid)}.tmp`;
      writeFileSync(partial, bundle.contents);
      renameSync(partial, bundle.file);
    }
    return bundle.file;
  } catch {
    return undefined;
  }
};

/** Removes bundles of the entry `name` in `dir` last written or used over a week ago. */
const pruneBundles = (dir: string, name: string): void => {
  if (!existsSync(dir)) return;
  const cutoff = Date.now() - BUNDLE_MAX_AGE_MS;
  for (const file of readdirSync(dir)) {
    if (!file.startsWith(`${name}-`)) continue;
    const path = join(dir, file);
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
};

/**
 * Starts the worker thread whose entry module is `name` (without extension) beside the module
 * at `base` (the caller's `import.meta.url`).
 *
 * Compiled or bundled to JavaScript (the Lambda bundle ships `<name>.js` beside its handler),
 * `<name>.js` runs directly. Run as TypeScript (tsx, vitest), a worker thread has no loader for
 * the project's `.ts` modules and their `.js` import specifiers (vitest's transform does not reach
 * worker threads): the entry's own modules are bundled with esbuild first ({@link bundleOf})
 * and the worker runs the bundle, without a loader; only when that fails does the worker register
 * tsx before importing `<name>.ts` (tsx's loader takes a worker several times as long to load
 * its modules: about 1.1 s against 0.2 s for pdf.js).
 * @param base the URL the entry is resolved against: the calling module's `import.meta.url`.
 * @param name the entry's file name without extension, e.g. `pdf-worker`.
 * @param options the worker's options (`workerData`, `resourceLimits`...); `eval` and
 *   `execArgv` are set here under TypeScript.
 */
export const startModuleWorker = (base: string, name: string, options: WorkerOptions): Worker => {
  if (/\.[cm]?js$/.test(new URL(base).pathname)) {
    return new Worker(new URL(`./${name}.js`, base), options);
  }
  const entry = new URL(`./${name}.ts`, base);
  const bundle = bundleOf(fileURLToPath(entry));
  const file = bundle && bundleFile(bundle);
  if (file !== undefined) {
    return new Worker(pathToFileURL(file), { ...options, execArgv: ['--enable-source-maps'] });
  }
  const bootstrap = `import(${JSON.stringify(tsxEsmApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true, execArgv: [] });
};

/** A started worker thread and whether it has loaded its modules (see {@link startedWorker}). */
export interface StartedWorker {
  worker: Worker;
  /** Settles when the worker takes requests; rejects when it could not start. */
  ready: Promise<void>;
  started: boolean;
  markStarted: () => void;
  failStart: (error: Error) => void;
  /** Fires `onStartTimeout` unless cleared once the worker says it is ready. */
  startTimer: NodeJS.Timeout;
}

/**
 * Wraps a just-started `worker` (unref'd here: an idle worker never keeps the process alive)
 * with its readiness: `ready` resolves through `markStarted` when the worker reports it has
 * loaded, rejects through `failStart`; `onStartTimeout` runs after `startTimeoutMs` milliseconds
 * unless the caller clears `startTimer` first. `ready`'s rejection is observed here, so a worker
 * that fails before anyone waits is no unhandled rejection.
 */
export function startedWorker(
  worker: Worker,
  startTimeoutMs: number,
  onStartTimeout: () => void,
): StartedWorker {
  worker.unref();
  let markStarted: () => void = () => undefined;
  let failStart: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markStarted = resolve;
    failStart = reject;
  });
  ready.catch(() => undefined);
  return {
    worker,
    ready,
    started: false,
    markStarted,
    failStart,
    startTimer: setTimeout(onStartTimeout, startTimeoutMs),
  };
}

/** Options of {@link WorkerSlot}. */
export interface WorkerSlotOptions<W> {
  /** Starts a worker; called when a user finds the slot empty. */
  start: () => W;
  /**
   * Stops a worker the slot let go of (replaced, idle, closed) and gives its memory back; a
   * rejection is ignored (a worker that failed to start has nothing to stop).
   */
  stop: (worker: W) => Promise<unknown>;
  /**
   * How long the slot may go unused (no {@link WorkerSlot.use} running) before its worker is
   * stopped, in milliseconds; the next use starts a new one. `0` or `Infinity`: never.
   */
  idleMs: number;
}

/**
 * One place for an engine worker, with the lifecycle the PDF reader, the office converters and
 * OCR share: the worker is started on first use, stopped once the place has gone unused for
 * `idleMs` (WebAssembly memory never shrinks while a worker lives, and V8 seldom gives its heap
 * back), replaced when its owner says so (`retire`: after a fatal error, a time budget, or past a
 * memory bound), and stopped on `close`. A use that starts after a retirement, or while an idle
 * worker is being stopped, starts a fresh worker.
 *
 * @example
 * const slot = new WorkerSlot({ start: () => new Worker(url), stop: (w) => w.terminate(), idleMs: 60_000 });
 * const answer = await slot.use(async () => ask(slot.worker()));
 * await slot.close();
 */
export class WorkerSlot<W extends object> {
  readonly #start: () => W;
  readonly #stop: (worker: W) => Promise<unknown>;
  readonly #idleMs: number;
  #worker: W | undefined;
  #users = 0;
  /** Stops the worker once the slot has gone unused for `idleMs` (unref'd; armed while unused). */
  #idleTimer: NodeJS.Timeout | undefined;
  #workersStarted = 0;

  constructor(options: WorkerSlotOptions<W>) {
    this.#start = options.start;
    this.#stop = options.stop;
    this.#idleMs = options.idleMs;
  }

  /** The worker in the slot now, if one was started and not let go of since. */
  get current(): W | undefined {
    return this.#worker;
  }

  /** Workers started so far: one on first use, plus one per replacement or idle release. */
  get workersStarted(): number {
    return this.#workersStarted;
  }

  /** The slot's worker, started now when the slot is empty. */
  worker(): W {
    if (this.#worker === undefined) {
      this.#worker = this.#start();
      this.#workersStarted++;
    }
    return this.#worker;
  }

  /**
   * Runs `task` while holding the slot: its worker is not released for idleness while any task
   * runs, and the idle clock starts when the last one ends (whether it resolved or threw).
   */
  async use<T>(task: () => Promise<T>): Promise<T> {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    this.#users++;
    try {
      return await task();
    } finally {
      this.#users--;
      if (this.#users === 0) this.#armIdleTimer();
    }
  }

  /**
   * Lets go of `worker` if it is still the slot's, and stops it; the next use starts a fresh
   * one. A worker already let go of (replaced, released) is left alone.
   * @returns a promise that settles once the worker has stopped.
   */
  retire(worker: W): Promise<void> {
    if (worker !== this.#worker) return Promise.resolve();
    this.#worker = undefined;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    return this.#stop(worker).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Stops the worker (if any) and the idle clock. A later use starts a new worker. */
  async close(): Promise<void> {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    if (this.#worker !== undefined) await this.retire(this.#worker);
  }

  #armIdleTimer(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const worker = this.#worker;
    if (worker === undefined || !(this.#idleMs > 0) || !Number.isFinite(this.#idleMs)) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#users === 0) void this.retire(worker);
    }, this.#idleMs);
    this.#idleTimer.unref();
  }
}

/** Why a request to a {@link ModuleWorker} failed without a reply; its worker is replaced. */
export type WorkerFailure =
  | { reason: 'timeout'; budgetMs: number }
  | {
      reason: 'crash';
      /** What ended the worker: its error's message, `exit code N`, `unreadable reply: ...`. */
      detail: string;
      /** The worker ran out of JavaScript heap (`resourceLimits`). */
      outOfMemory: boolean;
    };

/** The message a module worker posts once, when it has loaded its modules. */
interface ReadyMessage {
  status: 'ready';
}

/** A started module worker and how many replies it has sent. */
interface ModuleWorkerHandle extends StartedWorker {
  replies: number;
}

interface InFlight<Reply> {
  id: number;
  handle: ModuleWorkerHandle;
  timer: NodeJS.Timeout;
  failure: (failure: WorkerFailure) => Error;
  resolve: (reply: Reply) => void;
  reject: (error: unknown) => void;
}

/** Options of {@link ModuleWorker}. */
export interface ModuleWorkerOptions<Reply> {
  /** The URL the entry is resolved against: the calling module's `import.meta.url`. */
  base: string;
  /** The entry's file name without extension (see {@link startModuleWorker}). */
  name: string;
  /** The worker's options (`workerData`, `resourceLimits`). */
  workerOptions: WorkerOptions;
  /** The worker as errors name it, e.g. `the PDF worker`. */
  label: string;
  /** See {@link WorkerSlotOptions.idleMs}. */
  idleMs: number;
  /**
   * Longest a worker may take to load its modules (and, under tsx, compile them), in ms.
   * @default 60000
   */
  startTimeoutMs?: number;
  /**
   * Whether the worker that sent `reply`, its `replies`-th, is replaced before the next request:
   * after a fatal engine error, past a memory bound, or to recycle it.
   * @default - never
   */
  replaceAfter?: (reply: Reply, replies: number) => boolean;
  /**
   * Called when the current worker is let go of (replaced, released idle, closed): what it was
   * sent is gone with it.
   * @default - nothing
   */
  onRetire?: () => void;
}

/** A request without its `id` (set by {@link ModuleWorker.request}), member by member of a union. */
export type RequestBody<Request> = Request extends unknown ? Omit<Request, 'id'> : never;

/** Options of one {@link ModuleWorker.request}. */
export interface WorkerRequestOptions {
  /** Buffers moved to the worker rather than copied. */
  transfer?: readonly ArrayBuffer[];
  /** Longest the worker may take to reply, in ms, counted once it has started. */
  budgetMs: number;
  /**
   * The error the request rejects with when its budget runs out or its worker dies under it
   * (the worker is replaced either way).
   */
  failure: (failure: WorkerFailure) => Error;
}

/**
 * A worker thread running the module `name` (see {@link startModuleWorker}) in a
 * {@link WorkerSlot}, serving one request at a time: each request has a time budget, past which
 * the worker is terminated and the request rejected; a worker that crashes (its heap exhausted,
 * an uncaught error, an exit) rejects the request it was serving only; after a reply its owner
 * deems fatal or too costly in memory (`replaceAfter`) the worker is replaced before the next
 * request; and the worker is stopped after `idleMs` unused. The worker posts `{ status: 'ready' }`
 * once it has loaded, then one reply `{ id, ... }` per request `{ id, ... }`.
 *
 * The worker is unref'd whenever no request runs, so an idle worker never keeps the process alive.
 */
export class ModuleWorker<Request extends { id: number }, Reply extends { id: number }> {
  readonly #options: ModuleWorkerOptions<Reply>;
  readonly #startTimeoutMs: number;
  readonly #slot: WorkerSlot<ModuleWorkerHandle>;
  #inFlight: InFlight<Reply> | undefined;
  #nextId = 1;

  constructor(options: ModuleWorkerOptions<Reply>) {
    this.#options = options;
    this.#startTimeoutMs = options.startTimeoutMs ?? 60_000;
    this.#slot = new WorkerSlot({
      start: () => this.#startWorker(),
      stop: (handle) => {
        this.#options.onRetire?.();
        clearTimeout(handle.startTimer);
        handle.failStart(new Error(`${this.#options.label} was stopped`));
        handle.worker.unref();
        return handle.worker.terminate();
      },
      idleMs: options.idleMs,
    });
  }

  /** Workers started so far: one, plus one per replacement or idle release. */
  get workersStarted(): number {
    return this.#slot.workersStarted;
  }

  /** Runs `task` (which may make several requests) with the idle release held off. */
  use<T>(task: () => Promise<T>): Promise<T> {
    return this.#slot.use(task);
  }

  /** Starts the worker now and waits until it has loaded its modules. */
  warmUp(): Promise<void> {
    return this.#slot.use(() => this.#slot.worker().ready);
  }

  /**
   * Sends `request` (its `id` is set here) to the worker, started if needed, and waits for the
   * reply. The budget starts once the worker has loaded: loading is not the request's fault.
   * @throws the error `options.failure` makes, when the budget runs out or the worker dies.
   * @throws {Error} when the worker could not start, or was closed.
   */
  request(request: RequestBody<Request>, options: WorkerRequestOptions): Promise<Reply> {
    return this.#slot.use(async () => {
      if (this.#inFlight) throw new Error(`${this.#options.label} serves one request at a time`);
      const handle = this.#slot.worker();
      handle.worker.ref();
      await handle.ready;
      if (this.#slot.current !== handle) {
        throw new Error(`${this.#options.label} stopped before the request`);
      }
      const id = this.#nextId++;
      return new Promise<Reply>((resolve, reject) => {
        const inFlight: InFlight<Reply> = {
          id,
          handle,
          timer: setTimeout(() => {
            if (this.#inFlight === inFlight) {
              this.#abandon(inFlight, { reason: 'timeout', budgetMs: options.budgetMs });
            }
          }, options.budgetMs),
          failure: options.failure,
          resolve,
          reject,
        };
        this.#inFlight = inFlight;
        try {
          handle.worker.postMessage({ ...request, id }, options.transfer ?? []);
        } catch (error) {
          this.#settle(inFlight);
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
  }

  /**
   * Stops the worker; the request running (if any) is rejected with `error`. A later request
   * starts a new worker.
   */
  async close(error: Error): Promise<void> {
    const inFlight = this.#inFlight;
    if (inFlight) this.#settle(inFlight);
    const stopped = this.#slot.close();
    inFlight?.reject(error);
    await stopped;
  }

  #startWorker(): ModuleWorkerHandle {
    const { base, name, workerOptions } = this.#options;
    const worker = startModuleWorker(base, name, workerOptions);
    const handle: ModuleWorkerHandle = {
      ...startedWorker(worker, this.#startTimeoutMs, () => {
        this.#onCrash(handle, {
          detail: `it did not start within ${String(this.#startTimeoutMs / 1000)} seconds`,
          outOfMemory: false,
        });
      }),
      replies: 0,
    };
    worker.on('message', (message: Reply | ReadyMessage) => {
      if ((message as Partial<ReadyMessage>).status === 'ready') {
        clearTimeout(handle.startTimer);
        handle.started = true;
        handle.markStarted();
        return;
      }
      const reply = message as Reply;
      const inFlight = this.#inFlight;
      if (inFlight?.handle !== handle || reply.id !== inFlight.id) return;
      this.#settle(inFlight);
      handle.replies++;
      if (this.#options.replaceAfter?.(reply, handle.replies) === true) {
        void this.#slot.retire(handle);
      }
      inFlight.resolve(reply);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      this.#onCrash(handle, {
        detail: error.message,
        outOfMemory: error.code === 'ERR_WORKER_OUT_OF_MEMORY',
      });
    });
    worker.on('messageerror', (error: Error) => {
      this.#onCrash(handle, { detail: `unreadable reply: ${error.message}`, outOfMemory: false });
    });
    worker.on('exit', (code: number) => {
      this.#onCrash(handle, { detail: `exit code ${String(code)}`, outOfMemory: false });
    });
    return handle;
  }

  /** Clears the in-flight request's timer and lets the process exit while the worker is idle. */
  #settle(inFlight: InFlight<Reply>): void {
    clearTimeout(inFlight.timer);
    if (this.#inFlight === inFlight) this.#inFlight = undefined;
    inFlight.handle.worker.unref();
  }

  #onCrash(handle: ModuleWorkerHandle, crash: { detail: string; outOfMemory: boolean }): void {
    if (this.#slot.current !== handle) return;
    const inFlight = this.#inFlight;
    if (!handle.started) {
      // Not the request's fault: the worker itself could not start.
      handle.failStart(new Error(`${this.#options.label} could not start: ${crash.detail}`));
      void this.#slot.retire(handle);
    } else if (inFlight?.handle === handle) {
      this.#abandon(inFlight, { reason: 'crash', ...crash });
    } else {
      void this.#slot.retire(handle);
    }
  }

  /** Gives up on the in-flight request: replaces its worker and rejects it. */
  #abandon(inFlight: InFlight<Reply>, failure: WorkerFailure): void {
    this.#settle(inFlight);
    void this.#slot.retire(inFlight.handle);
    inFlight.reject(inFlight.failure(failure));
  }
}
