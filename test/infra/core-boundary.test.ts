import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE_ROOT = fileURLToPath(new URL('../fixtures/boundary-violation/', import.meta.url));
const CONFIG_URL = new URL('../../eslint.config.mjs', import.meta.url).href;

type RuleEntry = Linter.RuleEntry;
let coreBoundary: Record<string, RuleEntry>;

/**
 * An ESLint that applies only the repository's `coreBoundary` rule to `functions/core/**`, with the
 * TypeScript parser and no type information (the full typed config needs every file in the
 * TypeScript project, which the fixture deliberately is not).
 */
function boundaryLinter(cwd: string): ESLint {
  return new ESLint({
    cwd,
    ignore: false,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['functions/core/**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        rules: coreBoundary,
      },
    ],
  });
}

const restricted = (results: ESLint.LintResult[]) =>
  results.flatMap((r) => r.messages).filter((m) => m.ruleId === 'no-restricted-imports');

beforeAll(async () => {
  ({ coreBoundary } = (await import(CONFIG_URL)) as { coreBoundary: Record<string, RuleEntry> });
});

describe('the core boundary lint rule', () => {
  it('fires for an SDK import and an outer-layer import in the fixture', async () => {
    // Arrange
    const eslint = boundaryLinter(FIXTURE_ROOT);
    // Act
    const results = await eslint.lintFiles(['functions/core/bad.ts']);
    // Assert
    const messages = restricted(results);
    expect(messages.map((m) => [m.line, m.message])).toEqual([
      [3, expect.stringContaining('core is infrastructure-free; use a port') as unknown],
      [4, expect.stringContaining('core may not import outer layers') as unknown],
    ]);
    expect(messages.every((m) => m.severity === 2)).toBe(true);
  });

  it.each([
    "import { readFile } from 'node:fs/promises';",
    "import middy from '@middy/core';",
    "import type { Context } from 'aws-lambda';",
    "import { PdfEngine } from '../../engines/pdf/pdf-engine.js';",
    "import { deps } from '../../container.js';",
    "import { loadConfig } from '../../config.js';",
    "import { handler } from '../../api/live.handler.js';",
  ])('fires for %s', async (line) => {
    // Arrange
    const eslint = boundaryLinter(REPO_ROOT);
    // Act
    const results = await eslint.lintText(`${line}\n`, {
      filePath: 'functions/core/domain/bad.ts',
    });
    // Assert
    expect(restricted(results)).toHaveLength(1);
  });

  it('does not fire for the imports the core may use', async () => {
    // Arrange
    const eslint = boundaryLinter(REPO_ROOT);
    const text = [
      "import { createHash } from 'node:crypto';",
      "import { z } from 'zod';",
      "import { gradeOf } from '../confidence.js';",
      "import type { ObjectStore } from '../../ports/object-store.js';",
      '',
    ].join('\n');
    // Act
    const results = await eslint.lintText(text, { filePath: 'functions/core/domain/ok.ts' });
    // Assert
    expect(results.flatMap((r) => r.messages)).toEqual([]);
  });

  it('does not apply outside functions/core', async () => {
    // Arrange
    const eslint = boundaryLinter(REPO_ROOT);
    // Act
    const results = await eslint.lintText(
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\n",
      {
        filePath: 'functions/adapters/aws/ok.ts',
      },
    );
    // Assert
    expect(restricted(results)).toEqual([]);
  });
});

describe('the repository ESLint config', () => {
  it('applies the boundary rule to the core', async () => {
    // Arrange
    const eslint = new ESLint({ cwd: REPO_ROOT });
    // Act
    const config = (await eslint.calculateConfigForFile('functions/core/domain/routing.ts')) as {
      rules: Record<string, unknown>;
    };
    // Assert
    const [, options] = coreBoundary['no-restricted-imports'] as [string, unknown];
    expect(config.rules['no-restricted-imports']).toEqual([2, options]);
  });

  it('ignores the boundary-violation fixture', async () => {
    // Arrange
    const eslint = new ESLint({ cwd: REPO_ROOT });
    // Act
    const ignored = await eslint.isPathIgnored(
      'test/fixtures/boundary-violation/functions/core/bad.ts',
    );
    // Assert
    expect(ignored).toBe(true);
  });
});
