/** Command-line flags of the bench scripts: `--name` switches and `--name value` options. */
export interface CliArgs {
  /** True when `--name` is present. */
  flag(name: string): boolean;
  /** The value after `--name`, or `fallback`. */
  option(name: string, fallback: string): string;
  /** The value after `--name` as a positive number, or `fallback`; throws on anything else. */
  number(name: string, fallback: number): number;
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  const option = (name: string, fallback: string): string => {
    const i = argv.indexOf(`--${name}`);
    const value = i >= 0 ? argv[i + 1] : undefined;
    return value !== undefined && !value.startsWith('--') ? value : fallback;
  };
  return {
    flag: (name) => argv.includes(`--${name}`),
    option,
    number: (name, fallback) => {
      const raw = option(name, '');
      if (raw === '') return fallback;
      const value = Number(raw);
      if (!Number.isFinite(value) || value <= 0) {
        throw new Error(`--${name} must be a positive number, not "${raw}"`);
      }
      return value;
    },
  };
}
