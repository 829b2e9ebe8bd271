import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

/**
 * Starts the worker thread whose entry module is `name` (without extension) beside the module
 * at `base` (the caller's `import.meta.url`).
 *
 * Compiled or bundled to JavaScript (the Lambda bundle ships `<name>.js` beside its handler),
 * `<name>.js` runs directly. Run as TypeScript (tsx, vitest), workers do not inherit a module
 * loader on Node 20, so the worker registers tsx before importing `<name>.ts`.
 * @param base the URL the entry is resolved against: the calling module's `import.meta.url`.
 * @param name the entry's file name without extension, e.g. `pdf-worker`.
 * @param options the worker's options (`workerData`, `resourceLimits`...); `eval` and
 *   `execArgv` are set here under TypeScript.
 */
export const startModuleWorker = (base: string, name: string, options: WorkerOptions): Worker => {
  if (/\.[cm]?js$/.test(new URL(base).pathname)) {
    return new Worker(new URL(`./${name}.js`, base), options);
  }
  const entry = new URL(`./${name}.ts`, base).href;
  const bootstrap = `import(${JSON.stringify(tsxEsmApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
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
