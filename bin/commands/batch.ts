import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  ApiError,
  PRIORITIES,
  SUPPORTED_EXTENSIONS,
  isCompleted,
  isRecord,
  localFile,
  sleep,
  type BatchDocument,
  type BatchState,
  type LocalFile,
  type ParseOptions,
  type ParseResponse,
  type Priority,
} from '../cli-api.js';
import {
  PARSE_OPTIONS,
  UsageError,
  commandHelp,
  globalOptionsOf,
  oneArgument,
  parseOptionsOf,
  strictParse,
  type GlobalOptions,
  type Options,
} from '../cli-args.js';
import {
  EXIT,
  call,
  describeFailure,
  info,
  readSchema,
  type CliCommand,
  type Context,
} from '../cli-context.js';
import {
  displayPath,
  formatCost,
  formatDuration,
  formatTiers,
  pagesByTier,
  plural,
  uniqueStems,
  writeOutputs,
  type WrittenFiles,
} from '../cli-output.js';

/** Documents per POST /v1/parse/batch (the service's maximum). */
export const MAX_BATCH_DOCUMENTS = 100;

/** Milliseconds between two polls of a batch. */
const BATCH_POLL_MS = 1500;

/** Uploads and result downloads running at once in `batch`. */
const TRANSFER_CONCURRENCY = 4;

/** Times a batch request waits out a 429 before giving up. */
const BATCH_RATE_LIMIT_RETRIES = 5;

/** `docparse batch DIR`: every supported file of a folder, as one batch. */
export interface BatchInvocation {
  kind: 'batch';
  global: GlobalOptions;
  dir: string;
  out: string;
  priority: Priority | undefined;
  options: ParseOptions;
  schemaPath: string | undefined;
}

const OPTIONS = {
  out: { type: 'string', short: 'o' },
  priority: { type: 'string' },
  ...PARSE_OPTIONS,
} as const satisfies Options;

const USAGE =
  'usage: docparse batch DIR [--out DIR] [--priority low|normal|high] [--mode ocr|extract|hybrid] [--schema FILE] [--max-pages N] [--dpi N]';

export const batchCommand = {
  options: OPTIONS,
  usage: USAGE,
  help: commandHelp(
    USAGE,
    `Parses every supported file of DIR (not its subfolders) as one batch: each file is sent to an
upload slot (POST /v1/uploads), the documents are submitted together (POST /v1/parse/batch,
100 per batch), the batch is followed until every document has ended, and each result is
written as <out>/<name>.md and <out>/<name>.json. Files whose names differ only by extension
keep it (<name.pdf>.md). Supported: pdf, png, jpg, jpeg, tif, tiff, webp, heic, heif, docx,
pptx, xlsx, xls, html, htm, md, markdown; a .md with a .json of the same name beside it (the
output of an earlier run into the same folder) is skipped. Each file left out (but hidden ones)
is named on stderr, with the reason.

  -o, --out DIR        output directory (default: the current directory)
  --priority P         low, normal (default) or high: how fast the documents are released
                       to the service's shared queue
  --mode MODE          ocr (default), extract or hybrid, for every document
  --schema FILE        a JSON Schema for every document (implies --mode hybrid)
  --max-pages N        parse the first N pages of each document only
  --dpi N              rasterisation resolution in dots per inch (36 to 600)`,
  ),
  read(argv, env): BatchInvocation {
    const { values, positionals } = strictParse(argv, OPTIONS, 'batch');
    const dir = oneArgument(positionals, 'batch', 'a DIR');
    const { options, schemaPath } = parseOptionsOf(values, 'batch');
    return {
      kind: 'batch',
      global: globalOptionsOf(values, env),
      dir,
      out: values.out ?? '.',
      priority: values.priority === undefined ? undefined : priorityOf(values.priority),
      options,
      schemaPath,
    };
  },
  run,
} satisfies CliCommand<BatchInvocation>;

function priorityOf(value: string): Priority {
  const priority = PRIORITIES.find((p) => p === value);
  if (!priority) {
    throw new UsageError(
      `--priority must be one of ${PRIORITIES.join(', ')}; got "${value}"`,
      'batch',
    );
  }
  return priority;
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

/** Runs `docparse batch DIR`. */
async function run(ctx: Context, inv: BatchInvocation): Promise<number> {
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
