/**
 * Command lines of the bench scripts, parsed by `node:util` `parseArgs` in strict mode: every
 * script declares its flags once ({@link defineCommand}), and that declaration gives the parsed
 * values their types, checks them, and writes the `--help` text.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** One flag of a bench script. */
export type BenchOption =
  | {
      /** A switch: true when given. */
      type: 'boolean';
      description: string;
    }
  | {
      type: 'string';
      description: string;
      /** Name of the value in the help text, e.g. `dir` for `--out <dir>`. */
      value?: string;
      /** Used when the flag is not given; without one the value is `undefined`. */
      default?: string;
      /** The only values accepted. */
      choices?: readonly string[];
    }
  | {
      type: 'number';
      description: string;
      value?: string;
      default: number;
      /** The smallest value accepted; without it the value must be above 0. */
      min?: number;
    };

type BenchOptions = Readonly<Record<string, BenchOption>>;

/** A bench script's command line: how it is run, what it does, its flags. */
export interface BenchCommand<O extends BenchOptions> {
  /** How the script is invoked, e.g. `npm run bench [-- options]`. */
  usage: string;
  /** What the script does, in a sentence or two. */
  summary: string;
  options: O;
}

type ValueOf<T extends BenchOption> = T extends { type: 'boolean' }
  ? boolean
  : T extends { type: 'number' }
    ? number
    : T extends { choices: readonly (infer C extends string)[]; default: string }
      ? C
      : T extends { choices: readonly (infer C extends string)[] }
        ? C | undefined
        : T extends { default: string }
          ? string
          : string | undefined;

/** The parsed flags of a command, keyed by flag name without the dashes. */
export type BenchValues<O extends BenchOptions> = { -readonly [K in keyof O]: ValueOf<O[K]> };

/** What a command line asks for: the help text, or a run with these values. */
export type ParsedCommandLine<O extends BenchOptions> =
  { help: string } | { help?: undefined; values: BenchValues<O> };

/** A command line the script cannot run: an unknown flag, a missing or bad value. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Declares a command; only gives the declaration its literal types.
 *
 * @example
 * const COMMAND = defineCommand({
 *   usage: 'npm run bench:cache [-- options]',
 *   summary: 'Times a cached upload.',
 *   options: { repeat: { type: 'number', default: 20, description: 'cache hits to time' } },
 * });
 * const { repeat } = parseCommandLineOrExit(COMMAND); // number
 */
export const defineCommand = <const O extends BenchOptions>(
  command: BenchCommand<O>,
): BenchCommand<O> => command;

/** The `--help` text of `command`: usage, summary, then one line per flag with its default. */
export function helpText(command: BenchCommand<BenchOptions>): string {
  const rows: [flag: string, text: string][] = Object.entries(command.options).map(
    ([name, option]) => {
      if (option.type === 'boolean') return [`--${name}`, option.description];
      const choices = option.type === 'string' ? option.choices?.join('|') : undefined;
      const value = option.value ?? choices ?? option.type;
      const fallback =
        option.default === undefined || option.default === ''
          ? ''
          : ` (default ${String(option.default)})`;
      return [`--${name} <${value}>`, `${option.description}${fallback}`];
    },
  );
  rows.push(['-h, --help', 'print this help and exit']);
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  return [
    `usage: ${command.usage}`,
    '',
    ...wrap(command.summary, 100),
    '',
    'options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`),
    '',
  ].join('\n');
}

/**
 * Parses `argv` (the arguments after the script) against `command`.
 *
 * @throws {UsageError} for a flag `command` does not declare (the message names it), a
 *   positional argument, a missing value, a value that is not a number where one is expected, or
 *   a value outside the choices.
 * @example
 * parseCommandLine(COMMAND, ['--repeat', '5']); // { values: { repeat: 5 } }
 * parseCommandLine(COMMAND, ['--help']); // { help: 'usage: …' }
 */
export function parseCommandLine<O extends BenchOptions>(
  command: BenchCommand<O>,
  argv: readonly string[],
): ParsedCommandLine<O> {
  const config: ParseArgsOptionsConfig = { help: { type: 'boolean', short: 'h' } };
  for (const [name, option] of Object.entries(command.options)) {
    config[name] = { type: option.type === 'boolean' ? 'boolean' : 'string' };
  }
  // A first, lenient pass finds --help wherever it is and names an unknown flag plainly; the
  // strict pass then reports missing and ambiguous values.
  const { tokens } = parseArgs({
    args: [...argv],
    options: config,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) {
    return { help: helpText(command) };
  }
  for (const token of tokens) {
    if (token.kind === 'option' && !Object.hasOwn(config, token.name)) {
      throw new UsageError(`unknown flag ${token.rawName} (--help lists the flags)`);
    }
    if (token.kind === 'positional') {
      throw new UsageError(`unexpected argument "${token.value}" (--help lists the flags)`);
    }
  }
  let parsed: Record<string, string | boolean | undefined>;
  try {
    parsed = parseArgs({ args: [...argv], options: config, strict: true }).values as Record<
      string,
      string | boolean | undefined
    >;
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  const values: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(command.options)) {
    values[name] = valueOf(name, option, parsed[name]);
  }
  return { values: values as BenchValues<O> };
}

/** `text` in lines of at most `width` characters, broken at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

function valueOf(name: string, option: BenchOption, raw: string | boolean | undefined): unknown {
  switch (option.type) {
    case 'boolean':
      return raw === true;
    case 'string': {
      const value = typeof raw === 'string' ? raw : option.default;
      if (value !== undefined && option.choices && !option.choices.includes(value)) {
        const last = option.choices.at(-1);
        const listed =
          option.choices.length > 1
            ? `${option.choices.slice(0, -1).join(', ')} or ${String(last)}`
            : String(last);
        throw new UsageError(`--${name} must be ${listed}, not "${value}"`);
      }
      return value;
    }
    case 'number': {
      if (typeof raw !== 'string') return option.default;
      const value = Number(raw);
      const min = option.min;
      const ok =
        raw.trim() !== '' &&
        Number.isFinite(value) &&
        (min === undefined ? value > 0 : value >= min);
      if (!ok) {
        const wanted = min === undefined ? 'a positive number' : `a number from ${String(min)}`;
        throw new UsageError(`--${name} must be ${wanted}, not "${raw}"`);
      }
      return value;
    }
  }
}

/**
 * {@link parseCommandLine} for a script's entry: prints the help and exits 0 on `--help`, prints
 * the error and exits 2 on a bad command line.
 */
export function parseCommandLineOrExit<O extends BenchOptions>(
  command: BenchCommand<O>,
  argv: readonly string[] = process.argv.slice(2),
): BenchValues<O> {
  try {
    const parsed = parseCommandLine(command, argv);
    if (parsed.help !== undefined) {
      process.stdout.write(parsed.help);
      process.exit(0);
    }
    return parsed.values;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\nusage: ${command.usage}\n`);
    process.exit(2);
  }
}
