// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import vitest from '@vitest/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** The boundary rule: the domain core imports no SDK, no middy, no filesystem and no outer layer. */
export const coreBoundary = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: ['@aws-sdk/*', '@middy/*', 'aws-lambda', 'node:fs*', 'fs', 'fs/*'],
          message: 'core is infrastructure-free; use a port',
        },
        {
          group: [
            '**/adapters/**',
            '**/api/**',
            '**/engines/**',
            '**/providers/**',
            '**/*.handler*',
            '**/container*',
            '**/config*',
          ],
          message: 'core may not import outer layers',
        },
      ],
    },
  ],
};

/**
 * No `import()` through a template string under functions/: dependency-cruiser (`npm run
 * lint:deps`) cannot follow one, so an import circle through it would go unseen.
 */
export const noTemplateImports = {
  'no-restricted-syntax': [
    'error',
    {
      selector: 'ImportExpression[source.type="TemplateLiteral"]',
      message:
        'import() through a template string hides the dependency from lint:deps; import the module by name',
    },
  ],
};

export default defineConfig(
  globalIgnores([
    'cdk.out',
    'coverage',
    '.data',
    '.local',
    'bench/out',
    'node_modules',
    'test/fixtures/boundary-violation/**',
    'test/fixtures/uncompiled-worker/**',
    'eslint.config.mjs',
  ]),
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  { files: ['functions/core/**/*.ts'], rules: coreBoundary },
  { files: ['functions/**/*.ts'], rules: noTemplateImports },
  {
    files: ['test/**/*.ts'],
    plugins: { vitest },
    rules: {
      'vitest/no-focused-tests': 'error',
      'vitest/no-disabled-tests': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    // Benchmark scripts index tables they just built.
    files: ['bench/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  prettier,
);
