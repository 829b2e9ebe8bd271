import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';

interface PackageJson {
  name?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/**
 * The directories of `packages` and of every package they depend on at run time, as installed
 * under `root`'s node_modules (Node's resolution from each dependent; optional dependencies that
 * are not installed, such as native builds for other platforms, are skipped).
 *
 * Used to ship packages that cannot be bundled (native addons, WebAssembly, worker scripts and
 * data files resolved from their package) next to a Lambda bundle, from the local install and
 * without a network.
 *
 * @returns paths relative to `root`, e.g. `node_modules/sharp`, sorted.
 * @throws {Error} when a listed package or a required dependency is not installed.
 */
export function packageClosure(root: string, packages: readonly string[]): string[] {
  const found = new Set<string>();
  const visit = (name: string, from: string, optional: boolean) => {
    const dir = packageDir(name, from);
    if (dir === undefined) {
      if (optional) return;
      throw new Error(
        `package ${name} (needed from ${relative(root, from) || '.'}) is not installed`,
      );
    }
    if (found.has(dir)) return;
    found.add(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) visit(dep, dir, true);
  };
  for (const name of packages) visit(name, root, false);
  return [...found].map((dir) => relative(root, dir).split(sep).join('/')).sort();
}

/** The installed directory of package `name` as Node resolves it from directory `from`. */
function packageDir(name: string, from: string): string | undefined {
  // Walk node_modules folders upwards, as Node does; a package need not export package.json.
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) break;
  }
  try {
    const manifest = createRequire(join(from, 'noop.js')).resolve(`${name}/package.json`);
    return dirname(manifest);
  } catch {
    return undefined;
  }
}
