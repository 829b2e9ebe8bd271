import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  ApiClient,
  ApiError,
  ConnectionError,
  ServerParseError,
  SUPPORTED_EXTENSIONS,
  isCompleted,
  isRecord,
  localFile,
  sleep,
  type BatchDocument,
  type BatchState,
  type CallOptions,
  type LocalFile,
  type ParseOptions,
  type ParseResponse,
  type ProgressEvent,
} from './cli-api.js';
import {
  COMMAND_HELP,
  DEFAULT_API_URL,
  HELP,
  MAIN_USAGE,
  USAGE_LINES,
  UsageError,
  isUrl,
  parseInvocation,
  type GlobalOptions,
  type Invocation,
} from './cli-args.js';
import {
  assembleMarkdown,
  displayPath,
  extractedFields,
  formatCost,
  formatDuration,
  formatEstimate,
  formatTiers,
  outputStem,
  pagesByTier,
  parseSummary,
  plural,
  uniqueStems,
  writeOutputs,
  type WrittenFiles,
} from './cli-output.js';
import { createProgress, type Progress, type ProgressBar } from './cli-progress.js';

/**
 * The commands of `docparse` (`parse`, `batch`, `estimate`) and {@link runCli}, which runs one
 * command line and returns its exit code.
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

/** Documents per POST /v1/parse/batch (the service's maximum). */
export const MAX_BATCH_DOCUMENTS = 100;

/** Milliseconds between two polls of a batch. */
const BATCH_POLL_MS = 1500;

/** Uploads and result downloads running at once in `batch`. */
const TRANSFER_CONCURRENCY = 4;

/** Times a batch request waits out a 429 before giving up. */
const BATCH_RATE_LIMIT_RETRIES = 5;

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
interface Context {
  io: CliIo;
  global: GlobalOptions;
  client: ApiClient;
  /** Where the API key came from, for the 401 message. */
  keySource: KeySource;
  progress: Progress;
  /** What the server is still doing for us, named when the command is interrupted. */
  inFlight: string | undefined;
}

type KeySource = GlobalOptions['apiKeySource'] | 'demo-key-file';

/**
 * Runs one `docparse` command line (`argv` without the program name) and returns its exit code
 * ({@link EXIT}). Never throws: every failure is printed to stderr as `docparse: …`.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let invocation: Invocation;
  try {
    invocation = parseInvocation(argv, io.env);
  } catch (error) {
    return reportUsage(error, io);
  }
  if (invocation.kind === 'help') {
    io.stdout.write(`${invocation.command ? COMMAND_HELP[invocation.command] : HELP}\n`);
    return EXIT.ok;
  }
  if (invocation.kind === 'version') {
    io.stdout.write(`docparse ${io.version}\n`);
    return EXIT.ok;
  }

  const { global } = invocation;
  const key = await resolveApiKey(global, io.env, io.cwd);
  const ctx: Context = {
    io,
    global,
    client: new ApiClient({
      baseUrl: global.apiUrl,
      apiKey: key.apiKey,
      userAgent: `docparse-cli/${io.version}`,
      ...(io.fetch ? { fetch: io.fetch } : {}),
    }),
    keySource: key.source,
    progress: createProgress(io.stderr, !global.quiet && (global.progress || io.stderr.isTTY)),
    inFlight: undefined,
  };
  try {
    switch (invocation.kind) {
      case 'parse':
        return await parseCommand(ctx, invocation);
      case 'batch':
        return await batchCommand(ctx, invocation);
      case 'estimate':
        return await estimateCommand(ctx, invocation);
    }
  } catch (error) {
    if (io.signal.aborted) {
      io.stderr.write(`docparse: interrupted${ctx.inFlight ? `; ${ctx.inFlight}` : ''}\n`);
      return EXIT.interrupted;
    }
    if (error instanceof UsageError) return reportUsage(error, io);
    io.stderr.write(`docparse: ${describeFailure(error, ctx)}\n`);
    // Still running on the server unless it is what failed.
    if (ctx.inFlight && !(error instanceof ServerParseError)) {
      io.stderr.write(`docparse: ${ctx.inFlight}\n`);
    }
    return EXIT.failure;
  }
}

/** Prints a usage error with its usage line; returns the usage exit code. */
function reportUsage(error: unknown, io: CliIo): number {
  const message = error instanceof Error ? error.message : String(error);
  const command = error instanceof UsageError ? error.command : undefined;
  io.stderr.write(
    `docparse: ${message}\n${command ? `${USAGE_LINES[command]}\n(docparse ${command} --help)` : MAIN_USAGE}\n`,
  );
  return EXIT.usage;
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

/**
 * The API key to send: `--api-key`, else `DOCPARSE_API_KEY`, else, when the API URL is a local
 * server's, the demo key that `npm start` keeps in `.data/demo-api-key` (or
 * `$DATA_DIR/demo-api-key`) under `cwd`, if it belongs to that server: the server records its
 * address beside the key while it runs (`demo-server.json`), and the key is used when that port
 * is the URL's. Without the record (a server of an older version), the key goes with the default
 * URL only (`http://127.0.0.1:8080`).
 */
export async function resolveApiKey(
  global: GlobalOptions,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<{ apiKey: string | undefined; source: KeySource }> {
  if (global.apiKey !== undefined) return { apiKey: global.apiKey, source: global.apiKeySource };
  const none = { apiKey: undefined, source: undefined };
  const port = localApiPort(global.apiUrl);
  if (port === undefined) return none;
  const dataDir = resolve(cwd, env.DATA_DIR?.trim() || '.data');
  const served = await demoServerPort(dataDir);
  if (served === undefined ? !isDefaultApiUrl(global.apiUrl) : served !== port) return none;
  try {
    const key = (await readFile(join(dataDir, 'demo-api-key'), 'utf8')).trim();
    return key === '' ? none : { apiKey: key, source: 'demo-key-file' };
  } catch {
    return none;
  }
}

/**
 * The port of a local server's base URL (`http://127.0.0.1:PORT`, `localhost` or `[::1]`, no
 * path), or undefined for any other URL.
 */
export function localApiPort(url: string): number | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:') return undefined;
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) return undefined;
    if (parsed.pathname.replace(/\/+$/, '') !== '') return undefined;
    return parsed.port === '' ? 80 : Number(parsed.port);
  } catch {
    return undefined;
  }
}

/**
 * The port that the local server using the demo key of `dataDir` records in
 * `demo-server.json` (see `demoServerFile` in functions/adapters/local/api-key-bootstrap.ts),
 * or undefined when there is no such record.
 */
async function demoServerPort(dataDir: string): Promise<number | undefined> {
  try {
    const record: unknown = JSON.parse(await readFile(join(dataDir, 'demo-server.json'), 'utf8'));
    return isRecord(record) && typeof record.port === 'number' ? record.port : undefined;
  } catch {
    return undefined;
  }
}

/** True for the local server's default address (`http://127.0.0.1:8080`, or `localhost`). */
export function isDefaultApiUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    const normal = new URL(DEFAULT_API_URL);
    return (
      parsed.protocol === normal.protocol &&
      parsed.port === normal.port &&
      ['127.0.0.1', 'localhost'].includes(parsed.hostname) &&
      parsed.pathname.replace(/\/+$/, '') === ''
    );
  } catch {
    return false;
  }
}

/** An informational line on stderr (left out with `--quiet`). */
function info(ctx: Context, text: string): void {
  if (!ctx.global.quiet) ctx.io.stderr.write(`${text}\n`);
}

/** The input file at `path`, relative to `cwd`. @throws {UsageError} when it is not a file. */
async function inputFile(
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
async function readSchema(
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
function call(ctx: Context, extra: Omit<CallOptions, 'signal'> = {}): CallOptions {
  return { signal: ctx.io.signal, ...extra };
}

/** `docparse parse FILE|URL`. */
async function parseCommand(
  ctx: Context,
  inv: Extract<Invocation, { kind: 'parse' }>,
): Promise<number> {
  const remote = isUrl(inv.input);
  const file = remote ? undefined : await inputFile(ctx, inv.input, 'parse');
  const options: ParseOptions = {
    ...inv.options,
    ...(inv.schemaPath ? { extractionSchema: await readSchema(ctx, inv.schemaPath, 'parse') } : {}),
  };
  const name = file ? file.name : inv.input;
  const started = Date.now();
  const response = file
    ? await streamParse(ctx, file, options)
    : await waitFor(ctx, `parsing ${inv.input}`, () =>
        ctx.client.parseUrl(inv.input, options, call(ctx)),
      );
  const elapsed = Date.now() - started;
  ctx.inFlight = undefined;

  const extractOnly = options.operationMode === 'extract';
  let written: WrittenFiles = {};
  if (inv.stdout) {
    if (inv.output === 'json') {
      ctx.io.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    } else if (extractOnly) {
      ctx.io.stdout.write(`${JSON.stringify(response.extracted ?? null, null, 2)}\n`);
    } else {
      ctx.io.stdout.write(assembleMarkdown(response));
    }
  } else {
    written = await writeOutputs(
      resolve(ctx.io.cwd, inv.out),
      outputStem(inv.input),
      response,
      inv.output,
    );
  }
  const paths = [written.markdown, written.json]
    .filter((path): path is string => path !== undefined)
    .map((path) => displayPath(path, ctx.io.cwd));
  info(ctx, parseSummary(name, response, elapsed, paths));
  const fields = extractedFields(response);
  if (fields !== undefined) {
    const where = written.json
      ? `in ${displayPath(written.json, ctx.io.cwd)} under "extracted"`
      : inv.stdout && (extractOnly || inv.output === 'json')
        ? 'on stdout'
        : 'not written (use --json-only or leave out --markdown-only)';
    const errors = response.errors.length;
    const invalid = errors > 0 ? ` (${plural(errors, 'validation error')}: see "errors")` : '';
    info(ctx, `extracted: ${plural(fields, 'field')}${invalid}, ${where}`);
  }
  return EXIT.ok;
}

/**
 * A streaming parse of `file`: an elapsed-time line while the file is sent and opened, then a
 * bar of pages done out of the `page_count` of `ingest.start`.
 */
async function streamParse(
  ctx: Context,
  file: LocalFile,
  options: ParseOptions,
): Promise<ParseResponse> {
  const label = truncate(file.name, 32);
  const opening = ctx.progress.waiting(`${label}: sending`);
  let bar: ProgressBar | undefined;
  const done = new Set<number>();
  let total = 0;
  const onEvent = (event: ProgressEvent) => {
    if (event.event === 'ingest.start' && typeof event.page_count === 'number') {
      total = event.page_count;
      opening.stop();
      bar ??= ctx.progress.bar(label, total, 'pages');
      bar.update(done.size, total);
    } else if (event.event === 'vlm.page.done' && typeof event.page === 'number') {
      done.add(event.page);
      bar?.update(Math.min(done.size, total), total);
    }
  };
  try {
    return await ctx.client.parseStream(
      file,
      options,
      {
        onEvent,
        onRequestId: (id) => {
          ctx.inFlight = `the parse ${id} continues on the server (GET /v1/parse/${id} has its result)`;
        },
      },
      call(ctx),
    );
  } finally {
    opening.stop();
    bar?.stop();
  }
}

/** Runs `work` with an elapsed-time line. */
async function waitFor<T>(ctx: Context, label: string, work: () => Promise<T>): Promise<T> {
  const line = ctx.progress.waiting(label);
  try {
    return await work();
  } finally {
    line.stop();
  }
}

/** `docparse estimate FILE`. */
async function estimateCommand(
  ctx: Context,
  inv: Extract<Invocation, { kind: 'estimate' }>,
): Promise<number> {
  const file = await inputFile(ctx, inv.file, 'estimate');
  const estimate = await waitFor(ctx, `estimating ${file.name}`, () =>
    ctx.client.estimate(file, inv.maxPages, call(ctx)),
  );
  ctx.io.stdout.write(
    inv.json
      ? `${JSON.stringify(estimate, null, 2)}\n`
      : `${formatEstimate(file.name, estimate)}\n`,
  );
  return EXIT.ok;
}

/** How one file of a batch ended. */
type FileOutcome =
  | { status: 'completed'; response: ParseResponse; written: WrittenFiles }
  | { status: 'failed'; detail: string; requestId?: string };

/** One file of a batch folder. */
interface BatchFile extends LocalFile {
  stem: string;
  uploadId?: string;
  outcome?: FileOutcome;
}

/** `docparse batch DIR`. */
async function batchCommand(
  ctx: Context,
  inv: Extract<Invocation, { kind: 'batch' }>,
): Promise<number> {
  const dir = resolve(ctx.io.cwd, inv.dir);
  const files = await batchFiles(dir, inv.dir, (text) => {
    info(ctx, text);
  });
  const options: ParseOptions = {
    ...inv.options,
    ...(inv.schemaPath ? { extractionSchema: await readSchema(ctx, inv.schemaPath, 'batch') } : {}),
  };
  const started = Date.now();
  const rateLimited = call(ctx, {
    retryRateLimited: BATCH_RATE_LIMIT_RETRIES,
    onRateLimited: (seconds) => {
      info(ctx, `rate limited: waiting ${plural(seconds, 'second')}`);
    },
  });

  // 1. Send every file to an upload slot.
  const uploads = ctx.progress.bar('uploading', files.length, 'files');
  let sent = 0;
  await eachLimited(files, TRANSFER_CONCURRENCY, async (file) => {
    const slot = await ctx.client.createUpload(file, rateLimited);
    try {
      await ctx.client.upload(slot, file, call(ctx));
      file.uploadId = slot.upload_id;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      file.outcome = { status: 'failed', detail: `upload refused: ${describeFailure(error, ctx)}` };
    }
    uploads.update(++sent);
  });
  uploads.stop();

  // 2. Submit them, 100 per batch.
  const pending = files.filter(
    (file): file is BatchFile & { uploadId: string } => file.uploadId !== undefined,
  );
  const batches: { id: string; files: BatchFile[]; state?: BatchState }[] = [];
  for (let i = 0; i < pending.length; i += MAX_BATCH_DOCUMENTS) {
    const chunk = pending.slice(i, i + MAX_BATCH_DOCUMENTS);
    const documents: BatchDocument[] = chunk.map((file) => ({
      uploadId: file.uploadId,
      ...options,
    }));
    const accepted = await ctx.client.submitBatch(documents, inv.priority, rateLimited);
    batches.push({ id: accepted.batch_id, files: chunk });
    info(ctx, `batch ${accepted.batch_id}: ${plural(chunk.length, 'document')} queued`);
  }
  ctx.inFlight =
    batches.length > 0
      ? `the batch${batches.length > 1 ? 'es continue' : ' continues'} on the server (${batches.map((b) => `GET /v1/batch/${b.id}`).join(', ')})`
      : undefined;

  // 3. Follow them until every document has ended.
  const parsing = ctx.progress.bar('parsing', pending.length, 'documents');
  for (;;) {
    for (const batch of batches) {
      if (batch.state && isFinal(batch.state.status)) continue;
      batch.state = await ctx.client.getBatch(batch.id, rateLimited);
    }
    const ended = batches.reduce(
      (sum, b) => sum + (b.state ? b.state.totals.completed + b.state.totals.failed : 0),
      0,
    );
    parsing.update(ended);
    if (batches.every((b) => b.state && isFinal(b.state.status))) break;
    await sleep(BATCH_POLL_MS, ctx.io.signal);
  }
  parsing.stop();

  // 4. Fetch and write each completed document's result.
  const out = resolve(ctx.io.cwd, inv.out);
  const work = batches.flatMap((batch) => itemsOf(batch.state, batch.files));
  const results = ctx.progress.bar('writing', work.length, 'results');
  let fetched = 0;
  await eachLimited(work, TRANSFER_CONCURRENCY, async ({ file, item }) => {
    if (item?.status === 'completed' && item.request_id) {
      const response = await ctx.client.getParse(item.request_id, rateLimited);
      if (isCompleted(response)) {
        const written = await writeOutputs(out, file.stem, response, 'both');
        file.outcome = { status: 'completed', response, written };
      } else {
        file.outcome = {
          status: 'failed',
          detail: response.detail ?? `the parse ended ${response.status}`,
          requestId: response.id,
        };
      }
    } else {
      file.outcome = {
        status: 'failed',
        detail: item?.error?.detail ?? `the document ended ${item?.status ?? 'without a status'}`,
        ...(item?.request_id ? { requestId: item.request_id } : {}),
      };
    }
    results.update(++fetched);
  });
  results.stop();
  ctx.inFlight = undefined;

  // 5. Report.
  return reportBatch(ctx, files, Date.now() - started);
}

/**
 * The supported files of `dir` (not its subfolders, not hidden), by name, with output stems
 * (see {@link selectBatchInputs}). Tells about skipped earlier output through `note`.
 * @throws {UsageError} when `dir` is not a folder or holds no supported file.
 */
async function batchFiles(
  dir: string,
  shown: string,
  note: (text: string) => void,
): Promise<BatchFile[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    const code = isRecord(error) ? error.code : undefined;
    throw new UsageError(
      code === 'ENOTDIR' ? `not a folder: ${shown}` : `no such folder: ${shown}`,
      'batch',
    );
  });
  const { inputs, skipped } = selectBatchInputs(
    entries.filter((entry) => entry.isFile()).map((entry) => entry.name),
  );
  for (const { name, reason } of skipped) note(`skipped ${name}: ${reason}`);
  if (inputs.length === 0) {
    throw new UsageError(
      `no supported files in ${shown} (${[...SUPPORTED_EXTENSIONS].join(', ')})`,
      'batch',
    );
  }
  const stems = uniqueStems(inputs);
  return inputs.map((name, i) => ({ ...localFile(join(dir, name)), stem: stems[i] ?? name }));
}

/**
 * The documents of a batch among the file names of a folder, sorted: those with a supported
 * extension, leaving out hidden files (silently), and returning as `skipped`, with the reason,
 * the others: an unsupported extension, or a Markdown file beside a `.json` of the same name
 * (`a.md` and `a.json`: what an earlier run wrote there).
 */
export function selectBatchInputs(names: readonly string[]): {
  inputs: string[];
  skipped: { name: string; reason: string }[];
} {
  const present = new Set(names);
  const inputs: string[] = [];
  const skipped: { name: string; reason: string }[] = [];
  for (const name of [...names].sort((a, b) => a.localeCompare(b))) {
    if (name.startsWith('.')) continue;
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
    if (!SUPPORTED_EXTENSIONS.has(ext)) {
      skipped.push({
        name,
        reason: ext === '' ? 'no extension, so no known type' : `.${ext} is not a supported type`,
      });
    } else if ((ext === 'md' || ext === 'markdown') && present.has(`${name.slice(0, dot)}.json`)) {
      skipped.push({
        name,
        reason: `Markdown beside ${name.slice(0, dot)}.json (the output of an earlier run)`,
      });
    } else {
      inputs.push(name);
    }
  }
  return { inputs, skipped };
}

function isFinal(status: string): boolean {
  return status === 'completed' || status === 'failed';
}

/**
 * Pairs each file of a batch with its item: by `upload_id` when the items carry it, else by
 * position (items are listed in submission order).
 */
function itemsOf(state: BatchState | undefined, files: readonly BatchFile[]) {
  const items = state?.items ?? [];
  return files.map((file, i) => ({
    file,
    item: items.find((item) => item.upload_id === file.uploadId) ?? items[i],
  }));
}

/** Prints one line per file and the totals; returns 0 when all completed, else 3. */
function reportBatch(ctx: Context, files: readonly BatchFile[], elapsedMs: number): number {
  const width = Math.min(40, Math.max(...files.map((file) => file.name.length)));
  let cost = 0;
  const failed: BatchFile[] = [];
  for (const file of files) {
    const outcome = file.outcome;
    if (outcome?.status === 'completed') {
      const { response, written } = outcome;
      cost += response.usage.estimated_cost_usd;
      const pages = response.document.pages;
      const paths = [written.markdown, written.json]
        .filter((path): path is string => path !== undefined)
        .map((path) => displayPath(path, ctx.io.cwd));
      ctx.io.stdout.write(
        `ok    ${file.name.padEnd(width)}  ${plural(pages, 'page')} (${formatTiers(pagesByTier(response))}), ${formatCost(response.usage.estimated_cost_usd)} → ${paths.join(', ')}\n`,
      );
    } else {
      failed.push(file);
      const detail = outcome?.detail ?? 'no result';
      const request = outcome?.requestId ? ` (request ${outcome.requestId})` : '';
      ctx.io.stderr.write(`fail  ${file.name.padEnd(width)}  ${detail}${request}\n`);
    }
  }
  const completed = files.length - failed.length;
  info(
    ctx,
    `${plural(files.length, 'document')}: ${completed} completed, ${failed.length} failed, ${formatCost(cost)}, ${formatDuration(elapsedMs)}`,
  );
  if (failed.length > 0) {
    ctx.io.stderr.write(`docparse: failed: ${failed.map((file) => file.name).join(', ')}\n`);
    return EXIT.partial;
  }
  return EXIT.ok;
}

/** Runs `fn` on every item, at most `limit` at a time; the first failure rejects. */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
