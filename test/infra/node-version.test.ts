import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

describe('npm install scripts', () => {
  /** Every installed package (scoped ones included) with an install-time lifecycle script. */
  const withInstallScripts = (): string[] => {
    const root = join(PROJECT_ROOT, 'node_modules');
    const names = readdirSync(root).flatMap((entry) =>
      entry.startsWith('@')
        ? readdirSync(join(root, entry)).map((name) => `${entry}/${name}`)
        : entry.startsWith('.')
          ? []
          : [entry],
    );
    return names.filter((name) => {
      const file = join(root, name, 'package.json');
      if (!existsSync(file)) return false;
      const { scripts = {} } = JSON.parse(readFileSync(file, 'utf8')) as {
        scripts?: Record<string, string>;
      };
      return ['preinstall', 'install', 'postinstall'].some((hook) => hook in scripts);
    });
  };

  it('are each decided in allowScripts, so that npm ci runs none and prints no warning', () => {
    // Arrange: npm 11 skips a dependency's install scripts unless allowScripts approves them,
    // and warns about each one not listed. None is needed: the native modules ship prebuilds.
    const { allowScripts = {} } = JSON.parse(read('package.json')) as {
      allowScripts?: Record<string, boolean>;
    };
    // Act
    const undecided = withInstallScripts().filter((name) => !(name in allowScripts));
    // Assert
    expect(undecided).toEqual([]);
    expect(Object.values(allowScripts).every((allowed) => !allowed)).toBe(true);
  });
});
