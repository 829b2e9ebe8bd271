import { readFileSync } from 'node:fs';
import { runCli } from './cli-commands.js';
import { EXIT } from './cli-context.js';

/**
 * `docparse`: the command line client of the docparse API (`docparse --help`). Run it as
 * `docparse` after `npm link`, as `node bin/docparse.mjs`, or as `npm run cli --`.
 *
 * Ctrl-C aborts the running requests and exits 130; a second Ctrl-C exits at once.
 */

const { version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as { version: string };

const abort = new AbortController();
process.on('SIGINT', () => {
  if (abort.signal.aborted) process.exit(EXIT.interrupted);
  abort.abort();
});
// A closed pipe (`docparse parse a.pdf --stdout | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: abort.signal,
  version,
});
