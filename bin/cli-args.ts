import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  OPERATION_MODES,
  PRIORITIES,
  type OperationMode,
  type ParseOptions,
  type Priority,
} from './cli-api.js';

/**
 * Command-line arguments of `docparse`: the commands, their options and help texts, parsed with
 * `node:util` parseArgs into an {@link Invocation}. Pure: nothing here reads files or the
 * network; {@link UsageError} is the only error thrown.
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

/** What the command line asks for. */
export type Invocation =
  | { kind: 'help'; command?: Command }
  | { kind: 'version' }
  | {
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
  | {
      kind: 'batch';
      global: GlobalOptions;
      dir: string;
      out: string;
      priority: Priority | undefined;
      options: ParseOptions;
      schemaPath: string | undefined;
    }
  | {
      kind: 'estimate';
      global: GlobalOptions;
      file: string;
      maxPages: number | undefined;
      /** Print the raw JSON answer. */
      json: boolean;
    };

type Options = NonNullable<ParseArgsConfig['options']>;

const GLOBAL_OPTIONS = {
  'api-url': { type: 'string' },
  'api-key': { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  progress: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const satisfies Options;

const PARSE_OPTIONS = {
  out: { type: 'string', short: 'o' },
  mode: { type: 'string' },
  schema: { type: 'string' },
  'max-pages': { type: 'string' },
  dpi: { type: 'string' },
  'json-only': { type: 'boolean' },
  'markdown-only': { type: 'boolean' },
  stdout: { type: 'boolean' },
} as const satisfies Options;

const BATCH_OPTIONS = {
  out: { type: 'string', short: 'o' },
  priority: { type: 'string' },
  mode: { type: 'string' },
  schema: { type: 'string' },
  'max-pages': { type: 'string' },
  dpi: { type: 'string' },
} as const satisfies Options;

const ESTIMATE_OPTIONS = {
  'max-pages': { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies Options;

/** Every option of every command, to find the command before the strict parse. */
const ALL_OPTIONS = {
  ...GLOBAL_OPTIONS,
  ...PARSE_OPTIONS,
  ...BATCH_OPTIONS,
  ...ESTIMATE_OPTIONS,
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

/** One usage line per command, shown with usage errors. */
export const USAGE_LINES: Readonly<Record<Command, string>> = {
  parse:
    'usage: docparse parse FILE|URL [--out DIR] [--mode ocr|extract|hybrid] [--schema FILE] [--max-pages N] [--dpi N] [--json-only|--markdown-only] [--stdout]',
  batch:
    'usage: docparse batch DIR [--out DIR] [--priority low|normal|high] [--mode ocr|extract|hybrid] [--schema FILE] [--max-pages N] [--dpi N]',
  estimate: 'usage: docparse estimate FILE [--max-pages N] [--json]',
};

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

/** Help text per command. */
export const COMMAND_HELP: Readonly<Record<Command, string>> = {
  parse: `${USAGE_LINES.parse}

Parses one document. A FILE is uploaded and followed live, page by page
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
                       --json-only: the JSON; in extract mode: the extracted object)

${GLOBAL_HELP}

${EXIT_CODES}`,
  batch: `${USAGE_LINES.batch}

Parses every supported file of DIR (not its subfolders) as one batch: each file is sent to an
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
  --dpi N              rasterisation resolution in dots per inch (36 to 600)

${GLOBAL_HELP}

${EXIT_CODES}`,
  estimate: `${USAGE_LINES.estimate}

Estimates a parse (POST /v1/parse/estimate): page count, pages per tier, estimated cost in USD
and document type, from ingestion and classification only; nothing is parsed or charged.

  --max-pages N        count the first N pages only
  --json               print the answer as JSON

${GLOBAL_HELP}

${EXIT_CODES}`,
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

  switch (first) {
    case 'parse': {
      const { values, positionals } = strictParse(argv, PARSE_OPTIONS, first);
      const input = oneArgument(positionals, first, 'a FILE or URL');
      const { options, schemaPath } = parseOptionsOf(values, first);
      if (values['json-only'] === true && values['markdown-only'] === true) {
        throw new UsageError('--json-only and --markdown-only exclude each other', first);
      }
      if (values.stdout === true && values.out !== undefined) {
        throw new UsageError('--stdout writes no files: leave out --out', first);
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
    }
    case 'batch': {
      const { values, positionals } = strictParse(argv, BATCH_OPTIONS, first);
      const dir = oneArgument(positionals, first, 'a DIR');
      const { options, schemaPath } = parseOptionsOf(values, first);
      return {
        kind: 'batch',
        global: globalOptionsOf(values, env),
        dir,
        out: values.out ?? '.',
        priority: values.priority === undefined ? undefined : priorityOf(values.priority),
        options,
        schemaPath,
      };
    }
    case 'estimate': {
      const { values, positionals } = strictParse(argv, ESTIMATE_OPTIONS, first);
      const file = oneArgument(positionals, first, 'a FILE');
      if (isUrl(file)) {
        throw new UsageError('estimate takes a local file, not a URL', first);
      }
      return {
        kind: 'estimate',
        global: globalOptionsOf(values, env),
        file,
        maxPages: positiveInt(values['max-pages'], '--max-pages', first),
        json: values.json === true,
      };
    }
  }
}

/** True when `input` is an http(s) URL (parsed by the service's download) rather than a path. */
export function isUrl(input: string): boolean {
  return /^https?:\/\//i.test(input);
}

function isCommand(name: string): name is Command {
  return (COMMANDS as readonly string[]).includes(name);
}

/** Parses `argv` strictly with the global options and `options`. */
function strictParse<T extends Options>(argv: readonly string[], options: T, command: Command) {
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
function oneArgument(positionals: readonly string[], command: Command, what: string): string {
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

function globalOptionsOf(
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
function parseOptionsOf(
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
