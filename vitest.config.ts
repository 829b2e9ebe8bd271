import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';
import {
  CORPUS_VARIABLE,
  corpusDir,
  corpusPresent,
  corpusTestFiles,
  isCi,
  REPO_ROOT,
} from './test/support/corpus.js';

/**
 * The test files that read the test corpus (not part of the repository), when it is missing:
 * one line says so, and each of them runs as one skipped test. In CI a missing corpus fails the
 * run instead.
 */
const withoutCorpus = (): Set<string> => {
  if (corpusPresent()) return new Set();
  const message = `the test corpus is missing: ${corpusDir()} does not exist (set ${CORPUS_VARIABLE} to its location)`;
  if (isCi()) throw new Error(message);
  const files = corpusTestFiles();
  console.log(`${message}; the ${files.length} test files that read it are skipped`);
  return new Set(files.map((file) => resolve(REPO_ROOT, file)));
};
const corpusMissing = withoutCorpus();

/** Replaces a test file that needs the missing corpus by one skipped test, before it reads a file. */
const skipCorpusTests: Plugin = {
  name: 'docparse:skip-corpus-tests',
  enforce: 'pre',
  transform(_code, id) {
    if (!corpusMissing.has(id)) return null;
    return {
      code: `import { test } from 'vitest';\ntest.skip(${JSON.stringify(`needs the test corpus (${CORPUS_VARIABLE})`)}, () => {});\n`,
      map: null,
    };
  },
};

/** Integration tests of single engines and adapters (no service started). */
const ENGINE_TESTS = 'test/integration/{engines,adapters,providers}';

/**
 * Test files that measure time or memory in their own process (event-loop gaps, request and
 * worker timeouts, RSS after a corpus, a start within a deadline): they run one at a time, after
 * the others, so that no other test file competes with them for the CPU.
 */
const SERIAL_TESTS = [
  'test/integration/engines/pdf/pdf-worker-client.test.ts',
  'test/integration/engines/image/image-engine.test.ts',
  ...[
    'extraction-event-loop',
    'hostile-corpus',
    'hostile-office-images',
    'limits',
    'malformed-requests',
    'npm-start',
    'office-long-page',
    'office-worker',
    'pdf-engine-budgets',
    'regex-safety',
  ].map((name) => `test/integration/service/${name}.int.test.ts`),
];

/**
 * Test files run at once by the other projects: at least two, as most integration tests wait on
 * servers, child processes and workers more than they compute (vitest's default is one fewer
 * than the CPUs, a single one on two).
 */
const WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [skipCorpusTests],
        test: {
          name: 'unit',
          include: ['test/{unit,contract,infra}/**/*.test.ts'],
          maxWorkers: WORKERS,
          testTimeout: 30_000,
          // Infrastructure suites synthesize the stack once in beforeAll (seconds on a busy machine).
          hookTimeout: 60_000,
        },
      },
      {
        // Engines and adapters against the corpus, real OCR and worker threads: files in parallel.
        plugins: [skipCorpusTests],
        test: {
          name: 'engines',
          include: [`${ENGINE_TESTS}/**/*.test.ts`],
          exclude: SERIAL_TESTS,
          maxWorkers: WORKERS,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        // Whole services (servers, child processes, ports, each its own data directory).
        plugins: [skipCorpusTests],
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [`${ENGINE_TESTS}/**`, ...SERIAL_TESTS],
          maxWorkers: WORKERS,
          testTimeout: 180_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins: [skipCorpusTests],
        test: {
          name: 'serial',
          include: SERIAL_TESTS,
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
