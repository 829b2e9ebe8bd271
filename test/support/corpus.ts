import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The repository's root folder. */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** The variable that says where the test corpus is. */
export const CORPUS_VARIABLE = 'DOCPARSE_CORPUS_DIR';

/**
 * Where the test corpus is under `env`: `DOCPARSE_CORPUS_DIR`, or `../shared/corpus` beside the
 * checkout. A relative value is taken from the repository's root, whatever the working directory.
 */
export function locateCorpus(env: NodeJS.ProcessEnv): string {
  const given = env[CORPUS_VARIABLE];
  return resolve(REPO_ROOT, given === undefined || given === '' ? '../shared/corpus' : given);
}

/**
 * The test corpus of this process (see {@link locateCorpus}).
 *
 * The corpus (real PDFs, scans, office files and their ground truth: `dev/`, `papers/`,
 * `hostile/`) is not part of the repository. Tests and benchmarks that read it take every path
 * from here or from {@link corpusPath}, which is how a test file is known to need it
 * ({@link corpusTestFiles}).
 */
export const corpusDir = (): string => locateCorpus(process.env);

/**
 * A path inside the test corpus.
 *
 * @example
 * const DEV = corpusPath('dev'); // <corpus>/dev, holding manifest.json, files/ and gt/
 */
export const corpusPath = (...parts: string[]): string => join(corpusDir(), ...parts);

/** Whether the test corpus is there to read. */
export const corpusPresent = (env: NodeJS.ProcessEnv = process.env): boolean =>
  existsSync(locateCorpus(env));

/** Whether this run is CI's (`CI=true`), where a missing corpus is an error, not a skip. */
export const isCi = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env.CI === 'true' || env.CI === '1';

const THIS_MODULE = resolve(import.meta.dirname, 'corpus.ts');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

interface ModuleFacts {
  /** Names imported from other test modules by relative path (`'./x.js'` is `x.ts`). */
  imports: { from: string; names: string[] }[];
  /** Each top-level declaration's name with the identifiers its text mentions. */
  declarations: { name: string; mentions: Set<string> }[];
}

function factsOf(file: string): ModuleFacts {
  const text = readFileSync(file, 'utf8');
  const imports = [
    ...text.matchAll(/^import\s+(?:type\s+)?([^;]*?)\s+from\s+'(\.{1,2}\/[^']+)'/gm),
  ].map((match) => ({
    from: resolve(dirname(file), (match[2] ?? '').replace(/\.js$/, '.ts')),
    // `{ a, type B, c as d }` gives a, B, c; a namespace or default import stands for all.
    names: (match[1] ?? '')
      .replace(/[{}]/g, '')
      .split(',')
      .map(
        (part) =>
          part
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0] ?? '',
      )
      .map((name) => (name.startsWith('*') || !/^\w+$/.test(name) ? '*' : name))
      .filter((name) => name !== ''),
  }));
  const declaration = /^(?:export\s+)?(?:async\s+)?(?:const|let|function\*?|class)\s+(\w+)/gm;
  const starts = [...text.matchAll(declaration)];
  const declarations = starts.map((match, i) => ({
    name: match[1] ?? '',
    mentions: new Set(text.slice(match.index, starts[i + 1]?.index).match(/\w+/g) ?? []),
  }));
  return { imports, declarations };
}

/**
 * The test files that need the corpus, relative to `root`: those that import `corpusDir` or
 * `corpusPath` from this module, or import from a test helper something that reads it (a declaration that mentions a name
 * imported from here, or from another such declaration, at any depth). Vitest leaves them out
 * when the corpus is missing (see `vitest.config.ts`), so no test file guards its own reads.
 */
export function corpusTestFiles(root: string = REPO_ROOT): string[] {
  const modules = new Map(sourcesUnder(join(root, 'test')).map((file) => [file, factsOf(file)]));
  /** Per module, the top-level names that read the corpus. */
  const reading = new Map<string, Set<string>>([
    [THIS_MODULE, new Set(['corpusDir', 'corpusPath'])],
  ]);
  const reads = (file: string, name: string): boolean => {
    const names = reading.get(file);
    if (names === undefined) return false;
    // A namespace or default import (`*`) reads the corpus when anything of the module does.
    return names.has('*') || names.has(name) || (name === '*' && names.size > 0);
  };
  for (let grew = true; grew;) {
    grew = false;
    for (const [file, facts] of modules) {
      if (file === THIS_MODULE) continue;
      const names = reading.get(file) ?? new Set<string>();
      const seeds = new Set(
        facts.imports.flatMap(({ from, names: imported }) =>
          imported.filter((name) => reads(from, name)),
        ),
      );
      for (const { name, mentions } of facts.declarations) {
        if (names.has(name)) continue;
        if ([...mentions].some((word) => seeds.has(word) || (word !== name && names.has(word)))) {
          names.add(name);
          grew = true;
        }
      }
      if (seeds.size > 0 && file.endsWith('.test.ts') && !names.has('*')) {
        names.add('*');
        grew = true;
      }
      reading.set(file, names);
    }
  }
  return [...modules.keys()]
    .filter((file) => file.endsWith('.test.ts') && reading.get(file)?.has('*') === true)
    .map((file) => relative(root, file))
    .sort();
}
