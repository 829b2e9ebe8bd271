import { parseArgs } from 'node:util';
import { ApiClient, ServerParseError } from './cli-api.js';
import { resolveApiKey } from './cli-api-key.js';
import {
  GLOBAL_OPTIONS,
  HELP,
  MAIN_USAGE,
  UsageError,
  isCommand,
  type Command,
} from './cli-args.js';
import { EXIT, describeFailure, type CliIo, type Context } from './cli-context.js';
import { createProgress } from './cli-progress.js';
import { batchCommand, type BatchInvocation } from './commands/batch.js';
import { estimateCommand, type EstimateInvocation } from './commands/estimate.js';
import { parseCommand, type ParseInvocation } from './commands/parse.js';

/**
 * {@link runCli}, which runs one `docparse` command line and returns its exit code: it finds
 * the command ({@link parseInvocation}), answers `--help` and `--version`, builds the
 * command's {@link Context} and hands it to the command's module under `commands/`.
 */

/** The commands, by name. */
const COMMAND_MODULES = {
  parse: parseCommand,
  batch: batchCommand,
  estimate: estimateCommand,
} as const satisfies Record<Command, unknown>;

/** What the command line asks for. */
export type Invocation =
  | { kind: 'help'; command?: Command }
  | { kind: 'version' }
  | ParseInvocation
  | BatchInvocation
  | EstimateInvocation;

/** Every option of every command, to find the command before its module's strict parse. */
const ALL_OPTIONS = {
  ...GLOBAL_OPTIONS,
  ...parseCommand.options,
  ...batchCommand.options,
  ...estimateCommand.options,
};

/**
 * Parses `argv` (the arguments after the program name) into an {@link Invocation}.
 * Global options go before or after the command. `--help` wins over everything else, then
 * `--version`. `env` supplies `DOCPARSE_API_URL` and `DOCPARSE_API_KEY`.
 * @throws {UsageError} for an unknown command or option, a missing or extra argument, or an
 *   invalid option value.
 */
export function parseInvocation(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Invocation {
  const loose = parseArgs({
    args: [...argv],
    options: ALL_OPTIONS,
    allowPositionals: true,
    strict: false,
  });
  const [first, ...rest] = loose.positionals;
  if (first === 'help') {
    const topic = rest[0];
    if (topic === undefined) return { kind: 'help' };
    if (!isCommand(topic)) throw new UsageError(`unknown command "${topic}"`);
    return { kind: 'help', command: topic };
  }
  if (first !== undefined && !isCommand(first)) {
    if (loose.values.help === true) return { kind: 'help' };
    throw new UsageError(`unknown command "${first}"`);
  }
  if (loose.values.help === true)
    return first ? { kind: 'help', command: first } : { kind: 'help' };
  if (loose.values.version === true) return { kind: 'version' };
  if (first === undefined) throw new UsageError('no command given');
  return COMMAND_MODULES[first].read(argv, env);
}

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
    io.stdout.write(`${invocation.command ? COMMAND_MODULES[invocation.command].help : HELP}\n`);
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
        return await parseCommand.run(ctx, invocation);
      case 'batch':
        return await batchCommand.run(ctx, invocation);
      case 'estimate':
        return await estimateCommand.run(ctx, invocation);
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
    `docparse: ${message}\n${command ? `${COMMAND_MODULES[command].usage}\n(docparse ${command} --help)` : MAIN_USAGE}\n`,
  );
  return EXIT.usage;
}
