import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  ApiClient,
  ApiError,
  ConnectionError,
  ServerParseError,
  isRecord,
  localFile,
  type CallOptions,
  type LocalFile,
} from './cli-api.js';
import type { KeySource } from './cli-api-key.js';
import { UsageError, type GlobalOptions, type Options } from './cli-args.js';
import { plural } from './cli-output.js';
import type { Progress } from './cli-progress.js';

/**
 * What every command of `docparse` shares: its exit codes, its surroundings ({@link Context}),
 * the messages of failures, and the helpers that read its inputs.
 */

/** Exit codes. */
export const EXIT = {
  ok: 0,
  /** The API refused, could not be reached, or something failed locally. */
  failure: 1,
  /** A mistake in the command line, or a missing input file. */
  usage: 2,
  /** Some documents of a batch failed (the others were written). */
  partial: 3,
  /** Interrupted by Ctrl-C (SIGINT). */
  interrupted: 130,
} as const;

/** What a command line runs with. */
export interface CliIo {
  /** Command results: Markdown with `--stdout`, estimates, the batch's per-file lines. */
  stdout: { write(text: string): unknown };
  /** Progress, summaries and errors. */
  stderr: NodeJS.WriteStream;
  env: Readonly<Record<string, string | undefined>>;
  /** The directory relative paths are resolved against. */
  cwd: string;
  /** Aborts the command (Ctrl-C): requests are aborted and the exit code is 130. */
  signal: AbortSignal;
  /** The package version (`--version`). */
  version: string;
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** A command's surroundings. */
export interface Context {
  io: CliIo;
  global: GlobalOptions;
  client: ApiClient;
  /** Where the API key came from, for the 401 message. */
  keySource: KeySource;
  progress: Progress;
  /** What the server is still doing for us, named when the command is interrupted. */
  inFlight: string | undefined;
}

/**
 * One command of `docparse`: its command line (options beyond the global ones, usage line,
 * help) and what it does. `I` is what {@link read} makes of the command line.
 */
export interface CliCommand<I> {
  /** parseArgs options of the command, beside the global options. */
  options: Options;
  /** The usage line, shown with usage errors. */
  usage: string;
  /** `docparse <command> --help`. */
  help: string;
  /**
   * The invocation asked for by `argv` (the whole command line, global options included).
   * @throws {UsageError} for an unknown option, a missing or extra argument, or a bad value.
   */
  read(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): I;
  /** Runs the command; returns its exit code ({@link EXIT}). */
  run(ctx: Context, invocation: I): Promise<number>;
}

/** A failure for a shell user: what went wrong and, where it helps, what to do. */
export function describeFailure(
  error: unknown,
  ctx: Pick<Context, 'global' | 'keySource'>,
): string {
  if (error instanceof ConnectionError) {
    const local = isLocalUrl(error.apiUrl);
    const hint = local ? 'is `npm start` running?' : 'check --api-url and the network';
    return `cannot reach the API at ${error.apiUrl} (${error.reason ? `${error.reason}; ` : ''}${hint})`;
  }
  if (error instanceof ApiError) {
    if (error.status === 401) return unauthorized(error, ctx.keySource);
    if (error.status === 429) {
      const wait =
        error.retryAfterSeconds === undefined
          ? '; try again in a minute'
          : ` (Retry-After: ${plural(error.retryAfterSeconds, 'second')})`;
      return `rate limit reached (HTTP 429): ${error.detail}${wait}`;
    }
    if (error.status === 503 && error.retryAfterSeconds !== undefined) {
      return `HTTP 503: ${error.detail} (Retry-After: ${plural(error.retryAfterSeconds, 'second')})`;
    }
    return `HTTP ${error.status}: ${error.detail}`;
  }
  if (error instanceof ServerParseError) {
    return `the parse failed: ${error.detail}${error.requestId ? ` (request ${error.requestId})` : ''}`;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

function unauthorized(error: ApiError, source: KeySource): string {
  const how =
    'set DOCPARSE_API_KEY or pass --api-key (a local server started with `npm start` keeps its demo key in .data/demo-api-key)';
  switch (source) {
    case undefined:
      return `no API key (HTTP 401: ${error.detail}): ${how}`;
    case 'demo-key-file':
      return `the demo key read from .data/demo-api-key was refused (HTTP 401: ${error.detail}): is the server on this URL the one started in this folder? Otherwise ${how}`;
    case 'env':
      return `the API key in DOCPARSE_API_KEY was refused (HTTP 401: ${error.detail}): it is wrong or revoked`;
    case 'option':
      return `the API key given with --api-key was refused (HTTP 401: ${error.detail}): it is wrong or revoked`;
  }
}

/** True for a URL on this machine (where `npm start` serves). */
function isLocalUrl(url: string): boolean {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** An informational line on stderr (left out with `--quiet`). */
export function info(ctx: Context, text: string): void {
  if (!ctx.global.quiet) ctx.io.stderr.write(`${text}\n`);
}

/** The input file at `path`, relative to `cwd`. @throws {UsageError} when it is not a file. */
export async function inputFile(
  ctx: Context,
  path: string,
  command: 'parse' | 'estimate',
): Promise<LocalFile> {
  const full = resolve(ctx.io.cwd, path);
  const stats = await stat(full).catch(() => undefined);
  if (!stats) throw new UsageError(`no such file: ${path}`, command);
  if (!stats.isFile()) throw new UsageError(`not a file: ${path}`, command);
  return localFile(full);
}

/**
 * The JSON Schema in `path`.
 * @throws {UsageError} when the file cannot be read or is not a JSON object.
 */
export async function readSchema(
  ctx: Context,
  path: string,
  command: 'parse' | 'batch',
): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(resolve(ctx.io.cwd, path), 'utf8');
  } catch {
    throw new UsageError(`cannot read the schema file ${path}`, command);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `the schema file ${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      command,
    );
  }
  if (!isRecord(schema)) {
    throw new UsageError(`the schema in ${path} is not a JSON object`, command);
  }
  return schema;
}

/** Call options of one command's requests. */
export function call(ctx: Context, extra: Omit<CallOptions, 'signal'> = {}): CallOptions {
  return { signal: ctx.io.signal, ...extra };
}

/** Runs `work` with an elapsed-time line. */
export async function waitFor<T>(ctx: Context, label: string, work: () => Promise<T>): Promise<T> {
  const line = ctx.progress.waiting(label);
  try {
    return await work();
  } finally {
    line.stop();
  }
}
