import { ApiClient, ServerParseError } from './cli-api.js';
import { resolveApiKey } from './cli-api-key.js';
import {
  COMMAND_HELP,
  HELP,
  MAIN_USAGE,
  USAGE_LINES,
  UsageError,
  parseInvocation,
  type Invocation,
} from './cli-args.js';
import { EXIT, describeFailure, type CliIo, type Context } from './cli-context.js';
import { createProgress } from './cli-progress.js';
import { batchCommand } from './commands/batch.js';
import { estimateCommand } from './commands/estimate.js';
import { parseCommand } from './commands/parse.js';

/**
 * {@link runCli}, which runs one `docparse` command line and returns its exit code: it parses
 * the arguments (cli-args.ts), answers `--help` and `--version`, builds the command's
 * {@link Context} and hands it to the command's module under `commands/`.
 */

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
