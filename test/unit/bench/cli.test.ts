import { describe, expect, it } from 'vitest';
import { defineCommand, parseCommandLine, UsageError } from '../../../bench/cli.js';

const COMMAND = defineCommand({
  usage: 'npm run bench:example [-- options]',
  summary: 'An example bench.',
  options: {
    out: { type: 'string', value: 'dir', default: 'bench/out', description: 'working files' },
    only: { type: 'string', description: 'one document' },
    reader: {
      type: 'string',
      default: 'pdfium',
      choices: ['pdfium', 'pdfjs'],
      description: 'the PDF reader',
    },
    'no-api': { type: 'boolean', description: 'skip the API load' },
    'batch-count': { type: 'number', value: 'n', default: 30, description: 'documents' },
    'warm-passes': { type: 'number', default: 1, min: 0, description: 'passes' },
  },
});

const valuesOf = (argv: string[]) => {
  const parsed = parseCommandLine(COMMAND, argv);
  if (parsed.help !== undefined) throw new Error('help was not asked for');
  return parsed.values;
};

describe('parseCommandLine', () => {
  it('gives every flag its default when none is given', () => {
    // Act
    const values = valuesOf([]);
    // Assert
    expect(values).toEqual({
      out: 'bench/out',
      only: undefined,
      reader: 'pdfium',
      'no-api': false,
      'batch-count': 30,
      'warm-passes': 1,
    });
  });

  it('reads value flags, switches and numbers', () => {
    // Act
    const values = valuesOf([
      '--out',
      '/tmp/x',
      '--no-api',
      '--batch-count=5',
      '--reader',
      'pdfjs',
      '--warm-passes',
      '0',
    ]);
    // Assert
    expect(values).toMatchObject({
      out: '/tmp/x',
      'no-api': true,
      'batch-count': 5,
      reader: 'pdfjs',
      'warm-passes': 0,
    });
  });

  it('returns the help text, listing each flag with its default, for --help or -h', () => {
    // Act
    const long = parseCommandLine(COMMAND, ['--out', 'x', '--help']);
    const short = parseCommandLine(COMMAND, ['-h', '--unknown']);
    // Assert
    expect(long.help).toBeDefined();
    expect(short.help).toBe(long.help);
    expect(long.help).toContain('usage: npm run bench:example [-- options]');
    expect(long.help).toMatch(/--out <dir> +working files \(default bench\/out\)/);
    expect(long.help).toMatch(/--reader <pdfium\|pdfjs> +the PDF reader \(default pdfium\)/);
    expect(long.help).toMatch(/--no-api +skip the API load/);
    expect(long.help).toMatch(/-h, --help/);
  });

  it('throws a UsageError naming an unknown flag', () => {
    // Act
    const parse = () => parseCommandLine(COMMAND, ['--out', 'x', '--onyl', 'abc']);
    // Assert
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(/unknown flag --onyl/);
  });

  it('throws a UsageError for a positional argument', () => {
    expect(() => parseCommandLine(COMMAND, ['stray'])).toThrow(/unexpected argument "stray"/);
  });

  it('throws a UsageError when a value flag has no value', () => {
    expect(() => parseCommandLine(COMMAND, ['--out'])).toThrow(UsageError);
    // The next flag is not taken for the value.
    expect(() => parseCommandLine(COMMAND, ['--only', '--no-api'])).toThrow(UsageError);
  });

  it('throws a UsageError for a number flag that is not a number in range', () => {
    expect(() => valuesOf(['--batch-count', 'many'])).toThrow(
      '--batch-count must be a positive number, not "many"',
    );
    expect(() => valuesOf(['--batch-count', '0'])).toThrow(UsageError);
    expect(() => valuesOf(['--warm-passes', '-1'])).toThrow(UsageError);
  });

  it('throws a UsageError for a value outside the choices', () => {
    expect(() => valuesOf(['--reader', 'poppler'])).toThrow(
      '--reader must be pdfium or pdfjs, not "poppler"',
    );
  });
});
