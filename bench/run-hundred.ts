/** The 100-page part of `npm run bench`: `hundred-pages.ts` in a child process. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './corpus.js';
import type { HundredPageResult } from './report.js';
import type { BenchContext } from './run-options.js';

/**
 * Runs `bench/hundred-pages.ts` in a fresh Node process (its peak RSS is then the document's
 * own), passes its output through, and returns its figures, or null when it failed.
 */
export function runHundredPages(ctx: BenchContext): HundredPageResult | null {
  mkdirSync(ctx.outDir, { recursive: true });
  const json = join(ctx.outDir, 'rss-100.json');
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'bench/hundred-pages.ts'),
      '--json',
      json,
      '--reader',
      ctx.reader,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  process.stdout.write(child.stdout);
  if (child.status !== 0) {
    process.stderr.write(child.stderr);
    return null;
  }
  return existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as HundredPageResult) : null;
}
