import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = join(REPO_ROOT, '.dependency-cruiser.mjs');
const CLI = join(REPO_ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'docparse-depcruise-'));
  write('tsconfig.json', '{ "compilerOptions": { "module": "NodeNext", "strict": true } }\n');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

/** Runs the repository's `npm run lint:deps` command on the temporary directory's `functions/`. */
function lintDeps(...extra: string[]) {
  return spawnSync(process.execPath, [CLI, 'functions', '--config', CONFIG, ...extra], {
    cwd: dir,
    encoding: 'utf8',
  });
}

/** The violations `lintDeps` finds (its JSON report, which exits 0 whatever it finds). */
function cruise(): Violation[] {
  const run = lintDeps('--output-type', 'json');
  if (run.stdout === '') throw new Error(`dependency-cruiser printed nothing: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const ruleOf = (violations: Violation[]) =>
  violations.map(({ from, to, rule }) => [rule.name, from, to]).sort();

describe('the dependency-cruiser rules (.dependency-cruiser.mjs)', () => {
  it('fail on two modules under functions/ that import each other', () => {
    // Arrange
    write('functions/a.ts', "import { b } from './b.js';\nexport const a = (): number => b();\n");
    write('functions/b.ts', "import { a } from './a.js';\nexport const b = (): number => a();\n");
    // Act
    const violations = cruise();
    const lint = lintDeps();
    // Assert
    expect(violations.map((v) => v.rule.name)).toEqual(['no-circular']);
    expect(violations[0]?.rule.severity).toBe('error');
    expect(lint.status).not.toBe(0);
    expect(lint.stdout).toContain('error no-circular: functions/a.ts');
  });

  it('fail on a circle closed by a dynamic import, as container.ts and its local twin made', () => {
    // Arrange
    write(
      'functions/container.ts',
      "export const deps = async (): Promise<unknown> => (await import('./container-local.js')).local;\n",
    );
    write(
      'functions/container-local.ts',
      "import { deps } from './container.js';\nexport const local = deps;\n",
    );
    // Act
    const violations = cruise();
    // Assert
    expect(violations.map((v) => v.rule.name)).toEqual(['no-circular']);
  });

  it('pass a type-only import back (erased at compile time)', () => {
    // Arrange
    write('functions/a.ts', "import { b } from './b.js';\nexport const a = (): number => b();\n");
    write(
      'functions/b.ts',
      "import type { a } from './a.js';\nexport const b = (): number => 1;\nexport type A = typeof a;\n",
    );
    // Act
    const violations = cruise();
    const lint = lintDeps();
    // Assert
    expect(violations).toEqual([]);
    expect(lint.status).toBe(0);
  });

  it('fail on the layer imports: core to infrastructure, outer layers and the container', () => {
    // Arrange
    write('node_modules/@aws-sdk/client-s3/package.json', '{ "name": "@aws-sdk/client-s3" }\n');
    write('node_modules/@aws-sdk/client-s3/index.js', 'exports.S3Client = class {};\n');
    write('functions/container.ts', 'export const deps = 1;\n');
    write('functions/adapters/store.ts', 'export const store = 1;\n');
    write(
      'functions/core/bad.ts',
      [
        "import { readFile } from 'node:fs/promises';",
        "import { S3Client } from '@aws-sdk/client-s3';",
        "import { store } from '../adapters/store.js';",
        "import { deps } from '../container.js';",
        'export const bad = [readFile, S3Client, store, deps];',
        '',
      ].join('\n'),
    );
    // Act
    const violations = cruise();
    // Assert
    expect(ruleOf(violations)).toEqual([
      ['core-infrastructure-free', 'functions/core/bad.ts', 'fs/promises'],
      [
        'core-infrastructure-free',
        'functions/core/bad.ts',
        'node_modules/@aws-sdk/client-s3/index.js',
      ],
      ['core-no-container', 'functions/core/bad.ts', 'functions/container.ts'],
      ['core-no-outer-layers', 'functions/core/bad.ts', 'functions/adapters/store.ts'],
    ]);
  });

  it('fail on an adapter importing a handler module or a composition root', () => {
    // Arrange
    write('functions/container.ts', 'export const deps = 1;\n');
    write('functions/api/live.handler.ts', 'export const handler = 1;\n');
    write('functions/pipeline/ingest.handler.ts', 'export const handler = 1;\n');
    write(
      'functions/adapters/local/queue.ts',
      [
        "import { handler as live } from '../../api/live.handler.js';",
        "import { handler as ingest } from '../../pipeline/ingest.handler.js';",
        "import { deps } from '../../container.js';",
        'export const queue = [live, ingest, deps];',
        '',
      ].join('\n'),
    );
    // Act
    const violations = cruise();
    // Assert
    expect(ruleOf(violations)).toEqual([
      [
        'adapters-no-composition-root',
        'functions/adapters/local/queue.ts',
        'functions/container.ts',
      ],
      [
        'adapters-no-handlers',
        'functions/adapters/local/queue.ts',
        'functions/api/live.handler.ts',
      ],
      [
        'adapters-no-handlers',
        'functions/adapters/local/queue.ts',
        'functions/pipeline/ingest.handler.ts',
      ],
    ]);
  });
  it('fail on a handler module that reaches the local runtime, which its Lambda bundle would hold', () => {
    // Arrange
    write('functions/adapters/local/fs-store.ts', 'export const store = 1;\n');
    write(
      'functions/container.ts',
      "export const deps = async () => (await import('./adapters/local/fs-store.js')).store;\n",
    );
    write(
      'functions/api/live.handler.ts',
      "import { deps } from '../container.js';\nexport const handler = deps;\n",
    );
    // Act
    const violations = cruise();
    // Assert
    expect(ruleOf(violations)).toEqual([
      [
        'handlers-not-to-local-runtime',
        'functions/api/live.handler.ts',
        'functions/adapters/local/fs-store.ts',
      ],
    ]);
  });
});

describe('the noTemplateImports lint rule (eslint.config.mjs)', () => {
  /** An ESLint applying only `noTemplateImports` to `functions/**`, without type information. */
  async function linter(): Promise<ESLint> {
    const { noTemplateImports } = (await import(
      new URL('../../eslint.config.mjs', import.meta.url).href
    )) as { noTemplateImports: Record<string, Linter.RuleEntry> };
    return new ESLint({
      cwd: REPO_ROOT,
      ignore: false,
      overrideConfigFile: true,
      overrideConfig: [
        {
          files: ['functions/**/*.ts'],
          languageOptions: { parser: tseslint.parser },
          rules: noTemplateImports,
        },
      ],
    });
  }

  it('fires for an import() through a template string, which lint:deps cannot follow', async () => {
    // Arrange
    const eslint = await linter();
    // Act
    const [result] = await eslint.lintText(
      'export const load = (name: string) => import(`./pipeline/${name}.js`);\n',
      { filePath: 'functions/runtime.ts' },
    );
    // Assert
    expect(result?.messages.map((m) => m.ruleId)).toEqual(['no-restricted-syntax']);
  });

  it('does not fire for an import() of a module named by a literal', async () => {
    // Arrange
    const eslint = await linter();
    // Act
    const [result] = await eslint.lintText(
      "export const load = () => import('./pipeline/ingest.handler.js');\n",
      { filePath: 'functions/runtime.ts' },
    );
    // Assert
    expect(result?.messages).toEqual([]);
  });
});
