import { resolve } from 'node:path';
import { isUrl, type Invocation } from '../cli-args.js';
import type { ParseOptions, ParseResponse, ProgressEvent, LocalFile } from '../cli-api.js';
import { EXIT, call, info, inputFile, readSchema, waitFor, type Context } from '../cli-context.js';
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

/** `docparse parse FILE|URL`. */
export async function parseCommand(
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

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
