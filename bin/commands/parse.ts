import { resolve } from 'node:path';
import {
  PARSE_OPTIONS,
  UsageError,
  commandHelp,
  globalOptionsOf,
  isUrl,
  oneArgument,
  parseOptionsOf,
  strictParse,
  type GlobalOptions,
  type Options,
  type OutputKind,
} from '../cli-args.js';
import type { ParseOptions, ParseResponse, ProgressEvent, LocalFile } from '../cli-api.js';
import {
  EXIT,
  call,
  info,
  inputFile,
  readSchema,
  waitFor,
  type CliCommand,
  type Context,
} from '../cli-context.js';
import {
  assembleMarkdown,
  displayPath,
  extractedFields,
  outputStem,
  parseSummary,
  plural,
  writeOutputs,
  type WrittenFiles,
} from '../cli-output.js';
import type { ProgressBar } from '../cli-progress.js';

/** `docparse parse FILE|URL`: one document, uploaded and followed live, or downloaded by the service. */
export interface ParseInvocation {
  kind: 'parse';
  global: GlobalOptions;
  /** A file path, or an http(s) URL for the service to download. */
  input: string;
  /** Output directory (default: the current directory). */
  out: string;
  output: OutputKind;
  /** Print to stdout instead of writing files. */
  stdout: boolean;
  options: ParseOptions;
  /** JSON Schema file for `extract` / `hybrid`, read by the command. */
  schemaPath: string | undefined;
}

const OPTIONS = {
  out: { type: 'string', short: 'o' },
  ...PARSE_OPTIONS,
  'json-only': { type: 'boolean' },
  'markdown-only': { type: 'boolean' },
  stdout: { type: 'boolean' },
} as const satisfies Options;

const USAGE =
  'usage: docparse parse FILE|URL [--out DIR] [--mode ocr|extract|hybrid] [--schema FILE] [--max-pages N] [--dpi N] [--json-only|--markdown-only] [--stdout]';

export const parseCommand = {
  options: OPTIONS,
  usage: USAGE,
  help: commandHelp(
    USAGE,
    `Parses one document. A FILE is uploaded and followed live, page by page
(POST /v1/parse/stream); a URL (http:// or https://) is downloaded by the service
(POST /v1/parse). Writes <out>/<name>.md (the pages' Markdown, each after a
<!-- page N --> line) and <out>/<name>.json (the whole ParseResponse), and prints a summary.

  -o, --out DIR        output directory (default: the current directory)
  --mode MODE          ocr (default), extract or hybrid
  --schema FILE        a JSON Schema (root type object) to fill from the document: the
                       result is "extracted" in the .json; implies --mode hybrid unless
                       --mode says otherwise. extract returns no Markdown (no .md written)
  --max-pages N        parse the first N pages only
  --dpi N              rasterisation resolution in dots per inch (36 to 600)
  --json-only          write only <name>.json
  --markdown-only      write only <name>.md
  --stdout             print the Markdown to stdout instead of writing files (with
                       --json-only: the JSON; in extract mode: the extracted object)`,
  ),
  read(argv, env): ParseInvocation {
    const { values, positionals } = strictParse(argv, OPTIONS, 'parse');
    const input = oneArgument(positionals, 'parse', 'a FILE or URL');
    const { options, schemaPath } = parseOptionsOf(values, 'parse');
    if (values['json-only'] === true && values['markdown-only'] === true) {
      throw new UsageError('--json-only and --markdown-only exclude each other', 'parse');
    }
    if (values.stdout === true && values.out !== undefined) {
      throw new UsageError('--stdout writes no files: leave out --out', 'parse');
    }
    const output: OutputKind =
      values['json-only'] === true
        ? 'json'
        : values['markdown-only'] === true
          ? 'markdown'
          : 'both';
    return {
      kind: 'parse',
      global: globalOptionsOf(values, env),
      input,
      out: values.out ?? '.',
      output,
      stdout: values.stdout === true,
      options,
      schemaPath,
    };
  },
  run,
} satisfies CliCommand<ParseInvocation>;

/** Runs `docparse parse FILE|URL`. */
async function run(ctx: Context, inv: ParseInvocation): Promise<number> {
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

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
