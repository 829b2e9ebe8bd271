import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../bench/cli.js';
import { BENCH_COMMAND, benchContext, benchPlan } from '../../../bench/run-options.js';
import type { ManifestDoc } from '../../../bench/corpus.js';

describe('the npm run bench command line', () => {
  const planOf = (argv: string[]) => {
    const parsed = parseCommandLine(BENCH_COMMAND, argv);
    if (parsed.help !== undefined) throw new Error('help was not asked for');
    return benchPlan(parsed.values, argv);
  };

  it('plans a full run, which writes the report, without flags', () => {
    // Act
    const plan = planOf([]);
    // Assert
    expect(plan.runs).toEqual({
      corpus: true,
      baselines: true,
      hundred: true,
      batch: true,
      api: true,
    });
    expect(plan).toMatchObject({
      full: true,
      writeReport: true,
      batchCount: 30,
      apiDoc: 'zerox-0004',
    });
    expect(plan.outDir).toMatch(/\/bench\/out$/);
  });

  it('plans only the API load for --only-api, which is a partial run', () => {
    // Act
    const plan = planOf(['--only-api', '--api-duration', '3']);
    // Assert
    expect(plan.runs).toEqual({
      corpus: false,
      baselines: false,
      hundred: false,
      batch: false,
      api: true,
    });
    expect(plan).toMatchObject({ full: false, writeReport: false, apiDurationSeconds: 3 });
  });

  it('writes the report of a partial run given --report', () => {
    expect(planOf(['--only', 'zerox', '--report'])).toMatchObject({
      only: 'zerox',
      full: false,
      writeReport: true,
    });
  });

  it('throws a UsageError naming an unknown flag', () => {
    expect(() => planOf(['--no-batches'])).toThrow(/unknown flag --no-batches/);
  });
});

describe('benchContext', () => {
  it('runs the parseable documents whose id contains --only', () => {
    // Arrange
    const doc = (id: string, format: string): ManifestDoc => ({
      id,
      file: `files/${id}.${format}`,
      format,
      pages: 1,
      categories: [],
    });
    const manifest = [doc('zerox-1', 'pdf'), doc('zerox-2', 'zip'), doc('other', 'pdf')];
    const parsed = parseCommandLine(BENCH_COMMAND, ['--only', 'zerox']);
    if (parsed.help !== undefined) throw new Error('help was not asked for');
    // Act
    const ctx = benchContext(benchPlan(parsed.values, ['--only', 'zerox']), manifest);
    // Assert
    expect(ctx.docs.map((d) => d.id)).toEqual(['zerox-1']);
    expect(ctx.manifest).toHaveLength(3);
  });
});
