import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TURBOFAN_INVOCATIONS } from '../../../functions/engines/v8-tiering.js';

const MODULE = fileURLToPath(new URL('../../../functions/engines/v8-tiering.ts', import.meta.url));
/** V8's `%GetOptimizationStatus` bit for code compiled by TurboFan. */
const TURBOFANNED = 64;

/**
 * Runs a small function `calls` times in a fresh Node process (compilation on the main thread,
 * so that tier-up is deterministic) and returns whether TurboFan compiled it. `tune` applies
 * `tuneTiering` first; `extraArgs` go to Node before the script.
 */
const turbofanned = (calls: number, tune: boolean, extraArgs: string[] = []): boolean => {
  const script = `
    const { tuneTiering } = await import(${JSON.stringify(MODULE)});
    if (${String(tune)}) tuneTiering();
    function f(a, b) { return a * b + (a ^ b); }
    // The loop stays in the interpreter, so that f is compiled on its own (not inlined in it).
    function run(n) { let s = 0; for (let i = 0; i < n; i++) s += f(i, i + 1); return s; }
    %NeverOptimizeFunction(run);
    const s = run(${String(calls)});
    console.log(JSON.stringify({ status: %GetOptimizationStatus(f), s }));
  `;
  const out = execFileSync(
    process.execPath,
    [
      '--allow-natives-syntax',
      '--no-concurrent-recompilation',
      ...extraArgs,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ],
    { encoding: 'utf8' },
  );
  const { status } = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { status: number };
  return (status & TURBOFANNED) !== 0;
};

describe('tuneTiering', () => {
  it('raises the work a function must do before TurboFan compiles it', () => {
    // Well past V8's default (3000) and well short of the raised threshold.
    const calls = 6000;
    expect(TURBOFAN_INVOCATIONS).toBeGreaterThan(2 * calls);
    expect(turbofanned(calls, false)).toBe(true);
    expect(turbofanned(calls, true)).toBe(false);
    // Hot code still gets there.
    expect(turbofanned(400_000, true)).toBe(true);
  });

  it('leaves a threshold given on the command line alone', () => {
    expect(turbofanned(8000, true, ['--invocation-count-for-turbofan=1000'])).toBe(true);
  });
});
