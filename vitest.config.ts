import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/{unit,contract,infra}/**/*.test.ts'],
          setupFiles: ['test/support/setup.ts'],
          testTimeout: 30_000,
          // Infrastructure suites synthesize the stack once in beforeAll (seconds on a busy machine).
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          setupFiles: ['test/support/setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
