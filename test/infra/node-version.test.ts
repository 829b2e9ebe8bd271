import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE_TARGET, PROJECT_ROOT, RUNTIME } from '../../lib/constructs/service-function.js';

const read = (name: string) => readFileSync(join(PROJECT_ROOT, name), 'utf8');
const packageJson = JSON.parse(read('package.json')) as { engines: { node: string } };
/** The oldest Node.js major that `engines` accepts, e.g. 22 for `>=22`. */
const requiredMajor = Number(/^>=\s*(\d+)(\.\d+)*$/.exec(packageJson.engines.node)?.[1]);

describe('the Node.js version', () => {
  it('is one major everywhere: engines, .nvmrc, the Lambda runtime and the bundles', () => {
    // Assert
    expect(requiredMajor).toBeGreaterThanOrEqual(22);
    expect(read('.nvmrc').trim()).toBe(String(requiredMajor));
    expect(RUNTIME.name).toBe(`nodejs${requiredMajor}.x`);
    expect(BUNDLE_TARGET).toBe(`node${requiredMajor}`);
  });

  it('running the tests is one that engines accepts', () => {
    // Arrange
    const running = Number(process.versions.node.split('.')[0]);

    // Assert
    expect(
      running,
      `Node.js ${process.versions.node} runs the tests; package.json requires ${packageJson.engines.node} (README: set-up)`,
    ).toBeGreaterThanOrEqual(requiredMajor);
  });
});
