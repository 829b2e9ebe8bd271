import { parseArgs, type ParseArgsConfig } from 'node:util';
import { OPERATION_MODES, type OperationMode, type ParseOptions } from './cli-api.js';

/**
 * What the command lines of every `docparse` command share: the global options and the parse
 * options, their help texts, and the helpers that read them with `node:util` parseArgs. Each
 * command's own options and help are in its module under `commands/`. Pure: nothing here reads
 * files or the network; {@link UsageError} is the only error thrown.
 */

/** The API URL used when neither `--api-url` nor `DOCPARSE_API_URL` is given (`npm start`). */
export const DEFAULT_API_URL = 'http://127.0.0.1:8080';

export const COMMANDS = ['parse', 'batch', 'estimate'] as const;
export type Command = (typeof COMMANDS)[number];

/** A mistake in the command line (exit code 2); `command` selects the usage line shown. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly command: Command | undefined;

  constructor(message: string, command?: Command) {
    super(message);
    this.command = command;
  }
}

/** Options every command takes. */
export interface GlobalOptions {
  /** `--api-url`, else `DOCPARSE_API_URL`, else {@link DEFAULT_API_URL}. */
  apiUrl: string;
  /** `--api-key`, else `DOCPARSE_API_KEY`; undefined when neither is set. */
  apiKey: string | undefined;
  /** Where {@link apiKey} came from. */
  apiKeySource: 'option' | 'env' | undefined;
  /** No progress and no summary lines; errors are still printed. */
  quiet: boolean;
  /** Progress bars even when stderr is not a terminal. */
  progress: boolean;
}

/** Which files `parse` writes. */
export type OutputKind = 'both' | 'json' | 'markdown';

/** parseArgs options. */
export type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command takes, before or after the command. */
export const GLOBAL_OPTIONS = {
  'api-url': { type: 'string' },
  'api-key': { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  progress: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const satisfies Options;

/** The options of a parse that `parse` and `batch` both take (read by {@link parseOptionsOf}). */
export const PARSE_OPTIONS = {
  mode: { type: 'string' },
  schema: { type: 'string' },
  'max-pages': { type: 'string' },
  dpi: { type: 'string' },
} as const satisfies Options;

const GLOBAL_HELP = `global options:
  --api-url URL      the API (env DOCPARSE_API_URL; default ${DEFAULT_API_URL})
  --api-key KEY      the API key (env DOCPARSE_API_KEY). Without either, against a local
                     URL, the demo key that \`npm start\` writes to .data/demo-api-key (in the
                     current directory, or $DATA_DIR) is used if that server is on the URL's port
  -q, --quiet        no progress and no summary; errors are still printed
  --progress         progress bars even when stderr is not a terminal
  -h, --help         help (\`docparse <command> --help\` for one command)
  --version          print the version`;

const EXIT_CODES = `exit codes: 0 done, 1 API or runtime failure, 2 usage error, 3 some documents of a
batch failed, 130 interrupted (Ctrl-C)`;

export const MAIN_USAGE = 'usage: docparse <parse|batch|estimate> ... (docparse --help)';

/** The overall help text. */
export const HELP = `usage: docparse <command> [options]

Turns documents (PDF, images, Word, PowerPoint, Excel, HTML, Markdown) into page-by-page
Markdown with a docparse API.

commands:
  parse FILE|URL     parse one document; writes <name>.md and <name>.json
  batch DIR          parse every supported file of a folder as one batch
  estimate FILE      page count, tier mix and estimated cost, without parsing

${GLOBAL_HELP}

${EXIT_CODES}`;

/** The help text of a command: its usage line, `body`, the global options and the exit codes. */
export function commandHelp(usage: string, body: string): string {
  return `${usage}\n\n${body}\n\n${GLOBAL_HELP}\n\n${EXIT_CODES}`;
}

/** True when `input` is an http(s) URL (parsed by the service's download) rather than a path. */
export function isUrl(input: string): boolean {
  return /^https?:\/\//i.test(input);
}

export function isCommand(name: string): name is Command {
  return (COMMANDS as readonly string[]).includes(name);
}

/**
 * Parses `argv` strictly with the global options and `options`.
 * @throws {UsageError} for an unknown option or a missing option value.
 */
export function strictParse<T extends Options>(
  argv: readonly string[],
  options: T,
  command: Command,
) {
  try {
    return parseArgs({
      args: [...argv],
      options: { ...GLOBAL_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(parseArgsMessage(error), command);
  }
}

/** parseArgs' message, without its advice to use `--` (rarely what a user meant). */
function parseArgsMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\. To specify a positional argument starting with a '-'.*$/s, '');
}

/** The one argument after the command. */
export function oneArgument(
  positionals: readonly string[],
  command: Command,
  what: string,
): string {
  const args = positionals.slice(1);
  const [arg] = args;
  if (arg === undefined || arg === '') throw new UsageError(`${command} needs ${what}`, command);
  if (args.length > 1) {
    throw new UsageError(`${command} takes one argument; got ${args.length}`, command);
  }
  return arg;
}

interface GlobalValues {
  'api-url'?: string | boolean;
  'api-key'?: string | boolean;
  quiet?: string | boolean;
  progress?: string | boolean;
}

/**
 * The global options of a parsed command line: `--api-url` and `--api-key`, else
 * `DOCPARSE_API_URL` and `DOCPARSE_API_KEY` from `env`.
 */
export function globalOptionsOf(
  values: GlobalValues,
  env: Readonly<Record<string, string | undefined>>,
): GlobalOptions {
  const urlOption = stringValue(values['api-url']);
  const keyOption = stringValue(values['api-key']);
  const envKey = nonEmpty(env.DOCPARSE_API_KEY);
  const apiUrl = urlOption ?? nonEmpty(env.DOCPARSE_API_URL) ?? DEFAULT_API_URL;
  if (!isUrl(apiUrl)) {
    throw new UsageError(`the API URL must start with http:// or https://: ${apiUrl}`);
  }
  return {
    apiUrl,
    apiKey: keyOption ?? envKey,
    apiKeySource: keyOption !== undefined ? 'option' : envKey !== undefined ? 'env' : undefined,
    quiet: values.quiet === true,
    progress: values.progress === true,
  };
}

interface ParseOptionValues {
  mode?: string | boolean;
  schema?: string | boolean;
  'max-pages'?: string | boolean;
  dpi?: string | boolean;
}

/**
 * The parse options of `parse` and `batch`. A schema without `--mode` means `hybrid`; `extract`
 * needs a schema and `ocr` takes none (the service refuses both with 422).
 */
export function parseOptionsOf(
  values: ParseOptionValues,
  command: Command,
): { options: ParseOptions; schemaPath: string | undefined } {
  const schemaPath = stringValue(values.schema);
  const modeValue = stringValue(values.mode);
  const mode = modeValue === undefined ? undefined : modeOf(modeValue, command);
  if (mode === 'extract' && schemaPath === undefined) {
    throw new UsageError('--mode extract needs --schema FILE', command);
  }
  if (mode === 'ocr' && schemaPath !== undefined) {
    throw new UsageError('--schema needs --mode extract or hybrid', command);
  }
  const operationMode: OperationMode | undefined =
    mode ?? (schemaPath === undefined ? undefined : 'hybrid');
  const maxPages = positiveInt(stringValue(values['max-pages']), '--max-pages', command);
  const dpi = positiveInt(stringValue(values.dpi), '--dpi', command);
  return {
    options: {
      ...(operationMode ? { operationMode } : {}),
      ...(maxPages === undefined ? {} : { maxPages }),
      ...(dpi === undefined ? {} : { dpi }),
    },
    schemaPath,
  };
}

function modeOf(value: string, command: Command): OperationMode {
  const mode = OPERATION_MODES.find((m) => m === value);
  if (!mode) {
    throw new UsageError(
      `--mode must be one of ${OPERATION_MODES.join(', ')}; got "${value}"`,
      command,
    );
  }
  return mode;
}

/** `value` as a whole number ≥ 1, or undefined when not given. */
export function positiveInt(
  value: string | undefined,
  name: string,
  command?: Command,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`${name} must be a whole number of 1 or more; got "${value}"`, command);
  }
  return n;
}

function stringValue(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
