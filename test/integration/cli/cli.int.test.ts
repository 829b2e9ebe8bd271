import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/local-service.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * The `docparse` command as its users run it: `node bin/docparse.mjs …` in its own process,
 * against the local service (real engines) on a free port, with the corpus documents.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/docparse.mjs');
const CORPUS = corpusPath('dev');
const FILES = join(CORPUS, 'files');
const KEY = 'key-cli-0001';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface ManifestDocument {
  id: string;
  file: string;
  pages: number;
  gt?: string;
}

let service: TestService;
/** Serves corpus files under /files/ for URL parses. */
let origin: Server;
let work: string;
let manifest: ManifestDocument[];

/** The manifest entry of a corpus file. */
function doc(file: string): ManifestDocument {
  const found = manifest.find((d) => d.file === `files/${file}`);
  if (!found) throw new Error(`${file} is not in the corpus manifest`);
  return found;
}

/** Starts `docparse args` in `cwd` (default: the work directory) with the service's URL and key. */
function start(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): { child: ChildProcess; done: Promise<Run>; stderrSoFar: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? work,
    env: {
      ...process.env,
      DATA_DIR: '',
      DOCPARSE_API_URL: service.url,
      DOCPARSE_API_KEY: KEY,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<Run>((resolveRun, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      resolveRun({ code, stdout, stderr });
    });
  });
  return { child, done, stderrSoFar: () => stderr };
}

/** Runs `docparse args` to its end. */
function docparse(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<Run> {
  return start(args, options).done;
}

async function aDir(name: string): Promise<string> {
  return mkdtemp(join(work, `${name}-`));
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
}

/** The headings of a ground-truth Markdown file, without their `#` marks. */
async function groundTruthHeadings(document: ManifestDocument): Promise<string[]> {
  if (!document.gt) throw new Error(`${document.id} has no ground truth`);
  const gt = await readFile(join(CORPUS, document.gt), 'utf8');
  return gt
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+ /, '').trim());
}

beforeAll(async () => {
  manifest = (
    JSON.parse(await readFile(join(CORPUS, 'manifest.json'), 'utf8')) as {
      documents: ManifestDocument[];
    }
  ).documents;
  work = await mkdtemp(join(tmpdir(), 'docparse-cli-'));
  origin = createServer((req, res) => {
    const name = /^\/files\/([\w.-]+)$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'GET' || name !== 'pypdf-minimal-document.pdf') {
      res.writeHead(404).end();
      return;
    }
    void readFile(join(FILES, name)).then((bytes) => {
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(bytes);
    });
  });
  await new Promise<void>((ready) => origin.listen(0, '127.0.0.1', ready));
  service = await startTestService('cli', {
    API_KEYS: `${KEY}=cli:pro`,
    // A batch polls many times a minute: rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    URL_FETCH_ALLOWLIST: `127.0.0.1:${(origin.address() as AddressInfo).port}`,
  });
});

afterAll(async () => {
  await service.close();
  origin.close();
  await rm(work, { recursive: true, force: true });
});

describe('docparse parse', () => {
  it('writes the Markdown and the ParseResponse of a born-digital PDF', async () => {
    const file = 'docling-code_and_formula.pdf';
    const expected = doc(file);
    const out = await aDir('parse');
    const run = await docparse(['parse', join(FILES, file), '--out', out]);
    expect(run.stderr).not.toContain('docparse:');
    expect(run.code).toBe(0);

    const markdown = await readFile(join(out, 'docling-code_and_formula.md'), 'utf8');
    const headings = await groundTruthHeadings(expected);
    expect(headings.length).toBeGreaterThan(1);
    for (const heading of headings) expect(markdown).toContain(heading);
    for (let page = 1; page <= expected.pages; page++) {
      expect(markdown).toContain(`<!-- page ${page} -->`);
    }
    // The last heading of the ground truth is on the last page.
    expect(markdown.indexOf(headings.at(-1) ?? '')).toBeGreaterThan(
      markdown.indexOf(`<!-- page ${expected.pages} -->`),
    );

    const json = await readJson(join(out, 'docling-code_and_formula.json'));
    expect(json.status).toBe('completed');
    expect(json.pages).toHaveLength(expected.pages);
    expect(json.document).toMatchObject({ pages: expected.pages, filename: file });
    const id = String(json.id);
    expect(id).toMatch(/^req_/);
    // One summary line: pages, tiers, cost, request id and the files written.
    expect(run.stderr).toMatch(
      new RegExp(
        `^${file}: ${expected.pages} pages \\(fast \\d+.*\\), \\$\\d+\\.\\d{4}, .+, ${id} → `,
        'm',
      ),
    );
    expect(run.stderr).toContain('docling-code_and_formula.md');
  });

  it('prints the Markdown to stdout with --stdout, and writes no file', async () => {
    const cwd = await aDir('stdout');
    const run = await docparse(['parse', join(FILES, 'pypdf-minimal-document.pdf'), '--stdout'], {
      cwd,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith('<!-- page 1 -->\n\n')).toBe(true);
    const gt = await readFile(join(CORPUS, doc('pypdf-minimal-document.pdf').gt ?? ''), 'utf8');
    expect(run.stdout).toContain(gt.split('.')[0]);
    expect(run.stderr).toMatch(/^pypdf-minimal-document\.pdf: 1 page \(fast 1\)/m);
    expect(await readdir(cwd)).toEqual([]);
  });

  it('parses a URL that the service downloads', async () => {
    const out = await aDir('url');
    const port = (origin.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/files/pypdf-minimal-document.pdf`;
    const run = await docparse(['parse', url, '-o', out, '--json-only']);
    expect(run.stderr).not.toContain('docparse:');
    expect(run.code).toBe(0);
    expect(await readdir(out)).toEqual(['pypdf-minimal-document.json']);
    const json = await readJson(join(out, 'pypdf-minimal-document.json'));
    expect(json).toMatchObject({ status: 'completed', document: { pages: 1 } });
  });

  it('exits 1 with the fields the service refused (422)', async () => {
    const run = await docparse(['parse', join(FILES, 'pypdf-minimal-document.pdf'), '--dpi', '5']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('docparse: HTTP 422: body.dpi:');
  });

  it('exits 130 on Ctrl-C during a streaming parse', async () => {
    const cwd = await aDir('interrupt');
    // A scan: OCR takes seconds, so the parse is still running when interrupted.
    const running = start(['parse', join(FILES, 'olmocr-lincoln_letter.pdf'), '--progress'], {
      cwd,
    });
    const deadline = Date.now() + 20_000;
    while (!running.stderrSoFar().includes('pages') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    running.child.kill('SIGINT');
    const run = await running.done;
    expect(run.code).toBe(130);
    expect(run.stderr).toMatch(/docparse: interrupted; the parse req_\w+ continues on the server/);
    expect(await readdir(cwd)).toEqual([]);
  });
});

describe('docparse estimate', () => {
  it('prints the page count, tiers and cost', async () => {
    const file = 'docling-redp5110_sampled.pdf';
    const { pages } = doc(file);
    const run = await docparse(['estimate', join(FILES, file)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^  pages: +${pages}$`, 'm'));
    expect(run.stdout).toMatch(/^ {2}tiers: +fast \d+/m);
    expect(run.stdout).toMatch(/^ {2}estimated cost: +\$\d+\.\d{4}$/m);

    const json = await docparse(['estimate', join(FILES, file), '--json', '--max-pages', '3']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ page_count: 3 });
  });
});

describe('docparse batch', () => {
  it('parses every supported file of a folder and writes one .md and .json each', async () => {
    const dir = await aDir('batch-in');
    const out = await aDir('batch-out');
    const files = ['pypdf-minimal-document.pdf', 'zerox-0004.pdf', 'docling-unit_test_lists.docx'];
    for (const file of files) await copyFile(join(FILES, file), join(dir, file));
    await writeFile(join(dir, 'notes.txt'), 'not a document for the batch');

    const run = await docparse(['batch', dir, '--out', out, '--priority', 'high']);
    expect(run.stderr).not.toContain('fail ');
    expect(run.code).toBe(0);
    const expected = files.flatMap((file) => {
      const stem = file.replace(/\.[^.]+$/, '');
      return [`${stem}.json`, `${stem}.md`];
    });
    expect((await readdir(out)).sort()).toEqual(expected.sort());
    const threePages = await readJson(join(out, 'zerox-0004.json'));
    expect(threePages).toMatchObject({
      status: 'completed',
      document: { pages: doc('zerox-0004.pdf').pages },
    });
    const lists = await readFile(join(out, 'docling-unit_test_lists.md'), 'utf8');
    expect(lists).toContain('List item 1');
    for (const file of files)
      expect(run.stdout).toMatch(new RegExp(`^ok +${file.replace('.', '\\.')} `, 'm'));
    expect(run.stderr).toMatch(/3 documents: 3 completed, 0 failed/);
    // The file it could not send is named, with the reason, in one line.
    expect(run.stderr).toMatch(/^skipped notes\.txt: \.txt is not a supported type$/m);
  });

  it('exits 3 and names the documents that failed, with the reason', async () => {
    const dir = await aDir('batch-partial');
    const out = await aDir('batch-partial-out');
    await copyFile(join(FILES, 'pypdf-minimal-document.pdf'), join(dir, 'good.pdf'));
    await writeFile(join(dir, 'broken.pdf'), 'this is plain text, not a PDF');

    const run = await docparse(['batch', dir, '--out', out, '--priority', 'high']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^fail +broken\.pdf +unsupported file type/m);
    expect(run.stderr).toContain('docparse: failed: broken.pdf');
    expect(run.stdout).toMatch(/^ok +good\.pdf /m);
    expect((await readdir(out)).sort()).toEqual(['good.json', 'good.md']);
  });
});

describe('the demo key', () => {
  it('is found for a local server on any port, from the data directory it shares', async () => {
    // No API_KEYS: the server makes a demo key, as `npm start` does, here on a random port.
    const demo = await startTestService('cli-demo', {});
    try {
      expect(new URL(demo.url).port).not.toBe('8080');
      const run = await docparse(['estimate', join(FILES, 'pypdf-minimal-document.pdf')], {
        env: { DOCPARSE_API_URL: demo.url, DOCPARSE_API_KEY: '', DATA_DIR: demo.dataDir },
      });
      expect(run.stderr).not.toContain('docparse:');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('pages:          1');
    } finally {
      await demo.close();
    }
  });
});

describe('docparse errors', () => {
  it('exits 2 for an unknown command, an unknown option and a missing file', async () => {
    const unknown = await docparse(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(unknown.stderr).toContain('usage: docparse');

    const option = await docparse(['parse', join(FILES, 'pypdf-minimal-document.pdf'), '--nope']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("Unknown option '--nope'");

    const missing = await docparse(['parse', 'no-such-file.pdf']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file: no-such-file.pdf');
    expect(missing.stderr).toContain('usage: docparse parse FILE|URL');
  });

  it('exits 1 and says how to set the key when the key is refused', async () => {
    const run = await docparse(['estimate', join(FILES, 'pypdf-minimal-document.pdf')], {
      env: { DOCPARSE_API_KEY: 'not-a-key' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the API key in DOCPARSE_API_KEY was refused (HTTP 401');
  });

  it('exits 1 when the API cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((ready) => closed.listen(0, '127.0.0.1', ready));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((done) => {
      closed.close(() => {
        done();
      });
    });

    const run = await docparse(['parse', join(FILES, 'pypdf-minimal-document.pdf')], {
      env: { DOCPARSE_API_URL: url },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `cannot reach the API at ${url} (ECONNREFUSED; is \`npm start\` running?)`,
    );
  });
});
