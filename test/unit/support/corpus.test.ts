import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusTestFiles, locateCorpus, REPO_ROOT } from '../../support/corpus.js';

/** Runs vitest on `files` in a child process with `env` added (and no vitest state inherited). */
function vitest(files: string[], env: Record<string, string>) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST') && key !== 'CI'),
  );
  const run = spawnSync(
    process.execPath,
    [join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...files],
    { cwd: REPO_ROOT, env: { ...inherited, NO_COLOR: '1', ...env }, encoding: 'utf8' },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('locateCorpus', () => {
  it('defaults to ../shared/corpus beside the checkout', () => {
    expect(locateCorpus({})).toBe(resolve(REPO_ROOT, '../shared/corpus'));
    expect(locateCorpus({ DOCPARSE_CORPUS_DIR: '' })).toBe(resolve(REPO_ROOT, '../shared/corpus'));
  });

  it('takes DOCPARSE_CORPUS_DIR, a relative value from the repository root', () => {
    expect(locateCorpus({ DOCPARSE_CORPUS_DIR: '/data/corpus' })).toBe('/data/corpus');
    expect(locateCorpus({ DOCPARSE_CORPUS_DIR: 'corpus' })).toBe(join(REPO_ROOT, 'corpus'));
  });
});

describe('corpusTestFiles', () => {
  const files = corpusTestFiles();

  it('lists the test files that read corpus paths themselves', () => {
    expect(files).toContain('test/integration/service/local-service.int.test.ts');
    expect(files).toContain('test/integration/engines/image/detect-format.test.ts');
  });

  it('lists the test files that read the corpus through a test helper', () => {
    // devFile and HOSTILE of office-fixtures.ts; CorpusStore of corpus-store.ts.
    expect(files).toContain('test/integration/engines/office/sheets.test.ts');
    expect(files).toContain('test/integration/engines/pdf/pdf-engine.test.ts');
  });

  it('finds none in the unit project: tests that read the corpus are integration tests', () => {
    expect(files.filter((file) => /^test\/(unit|contract|infra)\//.test(file))).toEqual([]);
  });

  it('leaves out test files that take only corpus-free helpers from the same modules', () => {
    // Both import docxOf and para from office-fixtures.ts, which also exports corpus paths.
    expect(files).not.toContain('test/integration/service/office-worker.int.test.ts');
    expect(files).not.toContain('test/integration/service/office-long-page.int.test.ts');
    expect(files).not.toContain('test/unit/support/corpus.test.ts');
    expect(files).not.toContain('test/integration/service/quick-start.int.test.ts');
  });
});

describe('a run without the corpus', () => {
  const CORPUS_TESTS = [
    'test/integration/engines/image/detect-format.test.ts',
    'test/integration/engines/office/sheets.test.ts',
  ];

  it('skips the corpus tests with one line naming DOCPARSE_CORPUS_DIR', () => {
    // Act
    const run = vitest(CORPUS_TESTS, { DOCPARSE_CORPUS_DIR: '/nonexistent/corpus' });
    // Assert
    expect(run.status).toBe(0);
    const lines = run.output.split('\n').filter((line) => line.includes('DOCPARSE_CORPUS_DIR'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('/nonexistent/corpus does not exist');
    expect(run.output).toMatch(/Test Files\s+2 skipped \(2\)/);
  });

  it('fails in CI, naming DOCPARSE_CORPUS_DIR', () => {
    // Act
    const run = vitest(CORPUS_TESTS, { DOCPARSE_CORPUS_DIR: '/nonexistent/corpus', CI: 'true' });
    // Assert
    expect(run.status).not.toBe(0);
    expect(run.output).toContain(
      'the test corpus is missing: /nonexistent/corpus does not exist (set DOCPARSE_CORPUS_DIR',
    );
  });
});
