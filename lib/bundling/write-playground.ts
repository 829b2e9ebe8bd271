import { writePlayground } from '../../web/build.js';

/**
 * Writes the built playground to the directory given as the only argument (the static site's
 * asset, see `PlaygroundSite`): `index.html` and `playground/…`.
 *
 *   node --import tsx lib/bundling/write-playground.ts <dir>
 */
const dir = process.argv[2];
if (dir === undefined || process.argv.length !== 3) {
  console.error('usage: write-playground <output directory>');
  process.exit(2);
}
const written = await writePlayground(dir);
console.log(`playground: ${String(written.length)} files written to ${dir}`);
