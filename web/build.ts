import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import type { StaticAsset } from '../functions/local-server.js';

export type { StaticAsset };

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'playground');

/** pdf.js data folders served under `/playground/pdfjs/<folder>/`: fonts, CMaps, decoders. */
const PDFJS_FOLDERS = ['standard_fonts', 'cmaps', 'wasm', 'iccs'] as const;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.ttf': 'font/ttf',
  '.icc': 'application/vnd.iccprofile',
  '': 'text/plain; charset=utf-8',
};

/**
 * The Content-Security-Policy the playground is written for (the local server sends the same):
 * scripts, styles, fonts and API calls from its own origin only, workers also from blob URLs and
 * images also from blob and data URLs, and WebAssembly compilation for pdf.js's image decoders.
 * A static deployment whose API is on another origin adds that origin to `connect-src`.
 */
export const PLAYGROUND_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "img-src 'self' blob: data:",
  "style-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Builds the playground page in memory (about half a second): `/` (index.html),
 * `/playground/app.js` (the page's script, an ES2022 module bundled and minified with esbuild)
 * and its lazily loaded chunks under `/playground/chunks/`, `/playground/app.css`,
 * `/playground/pdf.worker.min.js` (the pdf.js worker, pdfjs-dist's `pdf.worker.min.mjs` under a
 * `.js` name that every static host serves as JavaScript) and pdf.js's data files under
 * `/playground/pdfjs/`. Every path is absolute from the site root, and the page refers to its files
 * relatively, so the set works at any origin whose `/` is the page.
 *
 * @returns the files, each with its URL path, `Content-Type` and bytes.
 * @throws when a source file is missing or does not compile (esbuild's error, with locations).
 */
export async function buildPlayground(): Promise<StaticAsset[]> {
  // Never written (write: false): esbuild names its output files relative to it.
  const outdir = join(SOURCE, 'out');
  const [bundle, css, html, worker, pdfjsData] = await Promise.all([
    build({
      entryPoints: { app: join(SOURCE, 'main.ts') },
      outdir,
      bundle: true,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      format: 'esm',
      target: 'es2022',
      platform: 'browser',
      minify: true,
      write: false,
      logLevel: 'silent',
      legalComments: 'eof',
    }),
    readFile(join(SOURCE, 'style.css'), 'utf8').then((text) =>
      transform(text, { loader: 'css', minify: true, target: 'chrome110' }),
    ),
    readFile(join(SOURCE, 'index.html')),
    readFile(join(pdfjsRoot(), 'build', 'pdf.worker.min.mjs')),
    pdfjsDataFiles(),
  ]);
  const scripts = bundle.outputFiles.map((file) =>
    asset(`/playground/${relative(outdir, file.path).split(sep).join('/')}`, file.contents),
  );
  return [
    asset('/', html, CONTENT_TYPES['.html']),
    ...scripts,
    asset('/playground/app.css', Buffer.from(css.code)),
    asset('/playground/pdf.worker.min.js', worker),
    ...pdfjsData,
  ];
}

/**
 * Builds the playground and writes it under `dir` for a static site: each asset at its path,
 * `/` as `index.html` (created folders included). Serve them with the content type of their
 * extension (`.js` as JavaScript, `.wasm` as `application/wasm`; the pdf.js module worker is
 * refused under any other type) and {@link PLAYGROUND_CONTENT_SECURITY_POLICY}.
 *
 * @returns the written files' paths relative to `dir`, with `/` separators, e.g. `index.html`,
 * `playground/app.js`.
 * @throws as {@link buildPlayground} does, or when a file cannot be written.
 */
export async function writePlayground(dir: string): Promise<string[]> {
  const assets = await buildPlayground();
  const written: string[] = [];
  for (const { path, body } of assets) {
    const name = path === '/' ? 'index.html' : path.slice(1);
    const target = join(dir, ...name.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, body);
    written.push(name);
  }
  return written;
}

function asset(path: string, body: Uint8Array, contentType?: string): StaticAsset {
  return {
    path,
    contentType: contentType ?? CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
    body: Buffer.from(body.buffer, body.byteOffset, body.byteLength),
  };
}

function pdfjsRoot(): string {
  return dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
}

/** pdf.js's standard fonts, CMaps, wasm decoders and ICC profiles, with their licences. */
async function pdfjsDataFiles(): Promise<StaticAsset[]> {
  const root = pdfjsRoot();
  const folders = await Promise.all(
    PDFJS_FOLDERS.map(async (folder) => {
      const names = (await readdir(join(root, folder))).sort();
      return Promise.all(
        names.map(async (name) =>
          asset(`/playground/pdfjs/${folder}/${name}`, await readFile(join(root, folder, name))),
        ),
      );
    }),
  );
  return folders.flat();
}
