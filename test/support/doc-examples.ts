import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { demoKeyFile } from '../../functions/adapters/local/api-key-bootstrap.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** The address the docs give for the local server (`npm start`'s default). */
export const DOCS_URLS = ['http://127.0.0.1:8080', 'http://localhost:8080'] as const;

/** The demo key file the docs read (`npm start` keeps it in `.data`). */
export const DOCS_KEY_FILE = '.data/demo-api-key';

/** One fenced code block of a Markdown file. */
export interface FencedBlock {
  /** The Markdown file, relative to the repository (`docs/api.md`). */
  file: string;
  /** Line of the opening fence, from 1. */
  line: number;
  /** The info string's words: `['sh']`, `['sh', 'no-run']`, `['json']`, `[]`. */
  info: string[];
  /** The nearest heading above the block, without its `#`s. */
  heading: string;
  /** The block's text, ending with a newline. */
  code: string;
  /**
   * A name that survives edits elsewhere in the file: `docs/api.md § Batches #1`, the n-th
   * block of its info string's language under that heading.
   */
  key: string;
}

/**
 * The fenced code blocks of `file` (relative to the repository), in order.
 *
 * @example
 * const streams = fencedBlocks('docs/api.md').filter((b) => b.heading.startsWith('Progress'));
 */
export function fencedBlocks(file: string): FencedBlock[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: FencedBlock[] = [];
  const counts = new Map<string, number>();
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    const title = /^#{1,6}\s+(.*)$/.exec(text)?.[1];
    if (title !== undefined) heading = title.trim();
    const fence = /^```(.*)$/.exec(text);
    if (fence === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? '').startsWith('```'); i++)
      body.push(lines[i] ?? '');
    const info = (fence[1] ?? '').trim().split(/\s+/).filter(Boolean);
    const counter = `${heading}\0${info[0] ?? ''}`;
    const n = (counts.get(counter) ?? 0) + 1;
    counts.set(counter, n);
    blocks.push({
      file,
      line: start + 1,
      info,
      heading,
      code: `${body.join('\n')}\n`,
      key: `${file} § ${heading} #${String(n)}${info[0] === 'sh' ? '' : ` (${info[0] ?? 'plain'})`}`,
    });
  }
  return blocks;
}

/** The shell blocks (` ```sh `) of `file`, those marked `no-run` included. */
export const shellBlocks = (file: string): FencedBlock[] =>
  fencedBlocks(file).filter((block) => block.info[0] === 'sh');

/** A local server that a docs command is pointed at. */
export interface ExampleTarget {
  /** Its base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Its data directory, which holds the demo key. */
  dataDir: string;
}

/** What a command printed, and how it exited. */
export interface CommandRun {
  stdout: string;
  stderr: string;
  /** The exit code (a signal counts as 128 + its number, as bash reports it). */
  code: number;
}

/** Options of {@link runDocCommand}. */
export interface RunDocCommandOptions {
  /** Working directory; default the repository, where `examples/` is. */
  cwd?: string;
  /** Added to this process's environment. */
  env?: Readonly<Record<string, string>>;
  /** @default 120000 */
  timeoutMs?: number;
  /** @default true: a non-zero exit rejects, with what the command printed. */
  check?: boolean;
}

/**
 * Runs a shell command shown in the docs as bash runs it (`bash -euo pipefail`), against
 * `target`: the docs' local URL becomes the target's, and `.data/demo-api-key` its demo key
 * file.
 *
 * @example
 * const { stdout } = await runDocCommand(block.code, { url: service.url, dataDir: service.dataDir });
 */
export async function runDocCommand(
  command: string,
  target: ExampleTarget,
  options: RunDocCommandOptions = {},
): Promise<CommandRun> {
  let script = command.replaceAll(DOCS_KEY_FILE, demoKeyFile(target.dataDir));
  for (const url of DOCS_URLS) script = script.replaceAll(url, target.url);
  const run = await new Promise<CommandRun>((done) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      {
        cwd: options.cwd ?? ROOT,
        env: { ...process.env, ...options.env },
        encoding: 'utf8',
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 128;
        done({ stdout, stderr, code });
      },
    );
  });
  if ((options.check ?? true) && run.code !== 0) {
    throw new Error(
      `the command exited ${String(run.code)}:\n${script}\n${run.stderr}${run.stdout}`,
    );
  }
  return run;
}
