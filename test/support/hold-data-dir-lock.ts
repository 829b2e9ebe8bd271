/**
 * A process that holds a data directory's lock and does nothing else, for the tests of what a
 * holder does when its lock is compromised: `tsx test/support/hold-data-dir-lock.ts <dir>`
 * prints `locked` once it holds `<dir>`, then waits (the lock is refreshed every second).
 */
import { lockDataDir } from '../../functions/adapters/local/data-dir-lock.js';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: hold-data-dir-lock.ts <dir>');
await lockDataDir(dir, { staleMs: 2000 });
console.log('locked');
setInterval(() => undefined, 60_000);
