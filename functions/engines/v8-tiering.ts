import { setFlagsFromString } from 'node:v8';

/**
 * How much a function must run before V8 compiles it with TurboFan, its optimising compiler
 * (V8's `--invocation-count-for-turbofan`, 3000 by default; in V8's units of calls weighted by
 * the function's size).
 *
 * The layout analysis is many functions that each run once or a few times per page. At V8's
 * default, hundreds of them reach TurboFan within a document's first pages, and compiling them
 * costs more than they gain: on the papers corpus (67 pages, `npm run bench:quality -- --corpus
 * papers`), V8's background threads spent about 1.0 s of CPU per pass, as much as the PDF
 * workers' own work. At 15,000 they spend about 0.5 s on a server's first pass and 0.35 s on
 * later ones, while the main thread and the PDF workers spend the same as before: the code that
 * matters (per character, per run) still reaches TurboFan within the first pages.
 */
export const TURBOFAN_INVOCATIONS = 15_000;

const FLAG = '--invocation-count-for-turbofan';

/**
 * Sets {@link TURBOFAN_INVOCATIONS} for the whole process (the main thread and every worker
 * thread share V8's flags), unless the process was started with its own
 * `--invocation-count-for-turbofan`. Call it before the engines' code runs hot; calling it again
 * does nothing more.
 */
export const tuneTiering = (execArgv: readonly string[] = process.execArgv): void => {
  if (execArgv.some((arg) => arg === FLAG || arg.startsWith(`${FLAG}=`))) return;
  setFlagsFromString(`${FLAG}=${String(TURBOFAN_INVOCATIONS)}`);
};
