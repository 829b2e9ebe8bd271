import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParseResponse, ProviderStatus } from '../../../functions/core/domain/schemas.js';
import { startChildService } from '../../support/child-service.js';
import { corpusPath } from '../../support/corpus.js';
import {
  fencedBlocks,
  runDocCommand,
  shellBlocks,
  type CommandRun,
  type ExampleTarget,
  type FencedBlock,
} from '../../support/doc-examples.js';
import { startTestService, type TestService } from '../../support/local-service.js';

/**
 * Every shell block of the README and of docs/{api,cli,providers,configuration}.md that talks to
 * the local service is run here as written (bash and curl, the `docparse` CLI, `npm start`)
 * against a server started for the test, and its output is compared with what the docs show
 * beside it: the JSON block or `# {...}` comment after it, the transcript lines, or the prose.
 * The comparisons are structural (keys, types, the documented values that do not vary), so a
 * doc and the service that disagree fail here.
 *
 * How a block is made to run offline, in a temporary working directory:
 * - `http://127.0.0.1:8080` becomes the test server's URL, `.data` is a link to its DATA_DIR
 *   (where the demo key is), `examples/` a link to the repository's, and `docparse` on PATH is
 *   `bin/docparse.mjs` (what `npm link` installs);
 * - the public hosts the examples name (`https://arxiv.org`, `https://example.com`,
 *   `https://hooks.example.com`) become one local stand-in server, which the service may fetch
 *   from and post webhooks to (`URL_FETCH_ALLOWLIST`): it serves a document for any path
 *   (arxiv's 2305.03393 is its page 9 from the dev corpus) and records what is posted to it;
 * - files an example assumes the reader has (`big.pdf`, `report.pdf`, `invoice.schema.json`,
 *   the `docs` folder of `docparse batch`) are put in the working directory first.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const DOCS = [
  'README.md',
  'docs/api.md',
  'docs/cli.md',
  'docs/providers.md',
  'docs/configuration.md',
];

/** Blocks run as written by another test, which checks their output. */
const RUN_ELSEWHERE: Readonly<Record<string, string>> = {
  'README.md § Try it #1': 'test/integration/service/quick-start.int.test.ts',
  'docs/api.md § Structured extraction (`extract` and `hybrid`) #1':
    'test/integration/service/extraction-docs.int.test.ts',
};

/** Blocks not run, and why (blocks the docs mark ```sh no-run are not listed: see the docs). */
const SKIPPED: Readonly<Record<string, string>> = {
  'README.md § docparse #1':
    'installs Node 22 from the npm registry into ~/.local: network, and it changes the machine',
  'README.md § docparse #2':
    '`npm ci` reinstalls node_modules from the registry (network, and it would replace the ' +
    "checkout's); the `npm start` after it is run as written by the providers.md blocks here",
  'README.md § docparse #3':
    '`npm ci` as above, then the whole unit suite, which CI runs on its own',
};

/** Lines of blocks that are left out when the block runs, and why. */
const SKIPPED_LINES: readonly { start: string; reason: string }[] = [
  {
    start: 'ollama pull',
    reason:
      'needs Ollama and downloads a model of several GB; the service starts without it (nothing calls it at start)',
  },
];

/** The blocks this file runs, by the describe blocks below. */
const RUN_HERE = [
  'docs/api.md § Progress as Server-Sent Events #1',
  'docs/api.md § Choosing and comparing providers #1',
  'docs/api.md § Webhooks #1',
  'docs/api.md § Tables, equations and figures (`POST /v1/parse/structured`) #1',
  'docs/api.md § Batches #1',
  'docs/api.md § Large uploads #1',
  'docs/cli.md § Command line #1',
  'docs/providers.md § Providers and tiers #1',
  'docs/providers.md § Providers and tiers #2',
  'docs/providers.md § One OpenAI-compatible server on this machine #1',
  'docs/providers.md § Anthropic only #1',
  'docs/providers.md § Every hosted vendor #1',
] as const;
type RunHere = (typeof RUN_HERE)[number];

const allShellBlocks = (): FencedBlock[] => DOCS.flatMap((file) => shellBlocks(file));

/** The shell block named `key`, and the blocks after it up to the next shell block. */
function example(
  key: RunHere | 'docs/api.md § Structured extraction (`extract` and `hybrid`) #1',
): {
  block: FencedBlock;
  after: FencedBlock[];
} {
  const file = key.slice(0, key.indexOf(' § '));
  const blocks = fencedBlocks(file);
  const at = blocks.findIndex((b) => b.key === key);
  const block = blocks[at];
  if (block === undefined) throw new Error(`no shell block ${key}`);
  const rest = blocks.slice(at + 1);
  const next = rest.findIndex((b) => b.info[0] === 'sh');
  return { block, after: next === -1 ? rest : rest.slice(0, next) };
}

/** The text of `file` between the line of `block`'s closing fence and the next heading. */
function proseAfter(block: FencedBlock): string {
  const lines = readFileSync(join(ROOT, block.file), 'utf8').split('\n');
  const from = block.line + block.code.split('\n').length;
  const end = lines.findIndex((line, i) => i >= from && /^#{1,6}\s/.test(line));
  return lines.slice(from, end === -1 ? undefined : end).join('\n');
}

/** The JSON a block shows in its trailing `# ...` comment lines. */
function commentJson(block: FencedBlock): unknown {
  const comment = block.code
    .split('\n')
    .filter((line) => line.startsWith('# '))
    .map((line) => line.slice(2))
    .join('');
  return JSON.parse(comment);
}

/** The block's code without the lines {@link SKIPPED_LINES} leaves out. */
const runnable = (block: FencedBlock): string =>
  block.code
    .split('\n')
    .filter((line) => !SKIPPED_LINES.some(({ start }) => line.startsWith(start)))
    .join('\n');

/** The keys of a JSON object and, recursively, of its object values: `a`, `a.b`, ... */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    `${prefix}${key}`,
    ...keyPaths(inner, `${prefix}${key}.`),
  ]);
}

// The stand-in for the public hosts the examples name.

const PUBLIC_HOSTS = ['https://arxiv.org', 'https://hooks.example.com', 'https://example.com'];

interface Posted {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

let standIn: { server: Server; url: string; posted: Posted[] };

/** A document for each path of the examples' public URLs. */
function standInFile(path: string): string {
  if (path === '/pdf/2305.03393') return corpusPath('dev/files/docling-2305.03393v1-pg9.pdf');
  if (path.endsWith('.png')) return corpusPath('dev/files/zerox-0012.png');
  return join(ROOT, 'examples/invoice.pdf');
}

async function startStandIn(): Promise<typeof standIn> {
  const posted: Posted[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST') {
        const text = Buffer.concat(chunks).toString('utf8');
        posted.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) });
        res.writeHead(204).end();
        return;
      }
      const file = standInFile(new URL(req.url ?? '/', 'http://x').pathname);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(readFileSync(file));
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${String(port)}`, posted };
}

/** The event posted to the stand-in's `path` that `match` accepts, waiting up to `ms`. */
async function postedTo(
  path: string,
  match: (body: Record<string, unknown>) => boolean,
  ms = 120_000,
) {
  for (const deadline = Date.now() + ms; Date.now() < deadline;) {
    const found = standIn.posted.find(
      (p) => p.path === path && match(p.body as Record<string, unknown>),
    );
    if (found !== undefined) return found;
    await new Promise((wake) => setTimeout(wake, 200));
  }
  throw new Error(`nothing was posted to ${path} within ${String(ms)} ms`);
}

const offline = (code: string): string =>
  PUBLIC_HOSTS.reduce((text, host) => text.replaceAll(host, standIn.url), code);

// Working directories.

const made: string[] = [];

/**
 * A new working directory for examples against `target`: `.data` is its data directory,
 * `examples/` the repository's, and `bin/docparse` the CLI.
 */
function workspace(target: ExampleTarget): { cwd: string; env: Record<string, string> } {
  const cwd = mkdtempSync(join(tmpdir(), 'docparse-docs-examples-'));
  made.push(cwd);
  symlinkSync(target.dataDir, join(cwd, '.data'));
  symlinkSync(join(ROOT, 'examples'), join(cwd, 'examples'));
  const bin = join(cwd, '.bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'docparse'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin/docparse.mjs'))} "$@"\n`,
    { mode: 0o755 },
  );
  return { cwd, env: { PATH: `${bin}:${process.env.PATH ?? ''}` } };
}

let api: TestService;
let apiDir: { cwd: string; env: Record<string, string> };

beforeAll(async () => {
  standIn = await startStandIn();
  // No API_KEYS: the first start creates the demo key that the examples read, as `npm start` does.
  api = await startTestService('docs-examples', {
    URL_FETCH_ALLOWLIST: new URL(standIn.url).host,
  });
  apiDir = workspace(api);
});

afterAll(async () => {
  await api.close();
  await new Promise((done) => standIn.server.close(done));
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Runs the example against the API server, in its working directory, offline. */
const runApi = (code: string, check = true): Promise<CommandRun> =>
  runDocCommand(offline(code), api, { cwd: apiDir.cwd, env: apiDir.env, check });

describe('the shell blocks of the docs', () => {
  it('are each run here, run by another test, skipped for a stated reason, or marked no-run', () => {
    // Arrange
    const blocks = allShellBlocks();
    const handled = [...RUN_HERE, ...Object.keys(RUN_ELSEWHERE), ...Object.keys(SKIPPED)];
    // Act
    const unhandled = blocks.filter((b) => !b.info.includes('no-run') && !handled.includes(b.key));
    const markedAndListed = blocks.filter(
      (b) => b.info.includes('no-run') && handled.includes(b.key),
    );
    const missing = handled.filter((key) => !blocks.some((b) => b.key === key));
    // Assert
    expect(unhandled.map((b) => `${b.key} (line ${String(b.line)})`)).toEqual([]);
    expect(markedAndListed.map((b) => b.key)).toEqual([]);
    expect(missing).toEqual([]);
    for (const file of Object.values(RUN_ELSEWHERE))
      expect(existsSync(join(ROOT, file))).toBe(true);
  });

  it('leave a no-run mark only on commands that deploy to or change an AWS account', () => {
    // Act
    const marked = allShellBlocks().filter((b) => b.info.includes('no-run'));
    // Assert
    expect(marked.map((b) => b.code.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'npx cdk',
      'aws secretsmanager',
    ]);
  });
});

describe('docs/api.md', () => {
  it('streams the events the prose names, ending with result.final holding the pages', async () => {
    // Arrange
    const { block } = example('docs/api.md § Progress as Server-Sent Events #1');
    const prose = readFileSync(join(ROOT, 'docs/api.md'), 'utf8')
      .split(/^## /m)
      .find((s) => s.startsWith('Progress as Server-Sent Events'));
    const documented = [
      ...(prose ?? '').matchAll(
        /`([a-z]+\.[a-z.]+)`(?:\s+\/\s+`([a-z]+\.[a-z.]+)`)?\s+\(([^)]*)\)/g,
      ),
    ].flatMap((m) => {
      // The keys before a `;` (what follows it is a remark: `node`, `page`; left out with ...).
      const named = (m[3] ?? '').split(';')[0] ?? '';
      const keys = [...named.matchAll(/`(\w+)`/g)].map((k) => k[1] ?? '');
      return [m[1], m[2]].filter((name) => name !== undefined).map((name) => ({ name, keys }));
    });
    // Act
    const { stdout } = await runApi(block.code);
    // Assert
    const events = stdout
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    expect(documented.map((d) => d.name)).toEqual([
      'ingest.start',
      'classify.page',
      'route.page',
      'vlm.page.done',
      'node.started',
      'node.completed',
    ]);
    for (const { name, keys } of documented) {
      const named = events.filter((e) => e.event === name);
      expect(named.length, name).toBeGreaterThan(0);
      expect(
        named.some((e) => keys.every((key) => key in e)),
        `${name} has ${keys.join(', ')}`,
      ).toBe(true);
    }
    const last = events.at(-1);
    expect(last?.event).toBe('result.final');
    const result = ParseResponse.parse(last?.payload);
    expect(result.status).toBe('completed');
    expect(result.pages).toHaveLength(1);
    expect(result.pages[0]?.content_markdown).toContain('# Invoice INV-2026-0042');
  });

  it('lists local-text and local-ocr with the model ids the comment shows', async () => {
    // Arrange
    const { block } = example('docs/api.md § Choosing and comparing providers #1');
    const shown = commentJson(block) as { providers: Record<string, unknown>[] };
    const stable = (p: Record<string, unknown>) => ({
      provider_id: p.provider_id,
      model_id: p.model_id,
      model_ids: p.model_ids,
      healthy: p.healthy,
    });
    // Act
    const { stdout } = await runApi(block.code);
    // Assert
    const listed = (JSON.parse(stdout) as { providers: Record<string, unknown>[] }).providers;
    expect(listed.map(stable)).toEqual(shown.providers.map(stable));
    expect(shown.providers.map((p) => p.provider_id)).toEqual(['local-text', 'local-ocr']);
    for (const [i, provider] of listed.entries()) {
      expect(Object.keys(provider).sort()).toEqual(Object.keys(shown.providers[i] ?? {}).sort());
      expect(ProviderStatus.parse(provider).circuit_breaker_state).toMatch(
        /^(CLOSED|OPEN|HALF_OPEN|IDLE)$/,
      );
    }
  });

  it('answers Prefer: respond-async with 202 and Location, then posts the event shown', async () => {
    // Arrange
    const { block, after } = example('docs/api.md § Webhooks #1');
    const shownEvent = JSON.parse(after[0]?.code ?? '') as Record<string, unknown>;
    // Act
    const { stdout } = await runApi(block.code);
    // Assert
    const [head = '', body = ''] = stdout.split(/\r\n\r\n/);
    const [statusLine, ...headerLines] = head.split('\r\n');
    const headers = Object.fromEntries(
      headerLines.map((line) => [
        line.slice(0, line.indexOf(':')).toLowerCase(),
        line.slice(line.indexOf(':') + 1).trim(),
      ]),
    );
    expect(statusLine).toMatch(/^HTTP\/1\.1 202 /);
    expect(headers['preference-applied']).toBe('respond-async');
    const answer = JSON.parse(body) as { id: string; status: string };
    expect(answer.id).toMatch(/^req_/);
    expect(answer.status).toBe('queued');
    expect(headers.location).toBe(`${api.url}/v1/parse/${answer.id}`);
    const event = await postedTo('/parses', (b) => {
      const data = b.data as { request_id?: string } | undefined;
      return data?.request_id === answer.id;
    });
    expect(keyPaths(event.body).sort()).toEqual(keyPaths(shownEvent).sort());
    expect(event.body).toMatchObject({
      type: shownEvent.type,
      data: { request_id: answer.id, status: 'completed', result_url: headers.location },
    });
    expect(event.headers['webhook-id']).toBe(`msg_${answer.id}_completed`);
    expect(event.headers['webhook-signature']).toMatch(/^v1,/);
  });

  it("answers the invoice's table as one table block holding the cell the prose shows", async () => {
    // Arrange
    const { block } = example(
      'docs/api.md § Tables, equations and figures (`POST /v1/parse/structured`) #1',
    );
    const shownCell: unknown = JSON.parse(
      /`(\{"row": 1, "col": 0[^`]*\})`/.exec(proseAfter(block))?.[1] ?? '',
    );
    // Act
    const { stdout } = await runApi(block.code);
    // Assert
    const answer = JSON.parse(stdout) as { blocks: { type: string; cells?: unknown[] }[] };
    const tables = answer.blocks.filter((b) => b.type === 'table');
    expect(tables).toHaveLength(1);
    expect(tables[0]?.cells).toContainEqual(shownCell);
    for (const cell of tables[0]?.cells ?? []) {
      expect(Object.keys(cell as object).sort()).toEqual(Object.keys(shownCell as object).sort());
    }
  });

  it('queues the batch as the comment shows, and ends it as the JSON blocks after it show', async () => {
    // Arrange
    const { block, after } = example('docs/api.md § Batches #1');
    const shownAnswer = commentJson(block) as Record<string, unknown>;
    const [shownBatch, shownEvent] = after.map(
      (b) => JSON.parse(b.code) as Record<string, unknown>,
    );
    // Act
    const { stdout } = await runApi(block.code);
    // Assert
    const answer = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(answer).sort()).toEqual(Object.keys(shownAnswer).sort());
    expect(answer.batch_id).toMatch(/^batch_/);
    expect(answer).toMatchObject({
      status: shownAnswer.status,
      item_count: shownAnswer.item_count,
    });
    const event = await postedTo('/batches', (b) => {
      const data = b.data as { batch_id?: string } | undefined;
      return data?.batch_id === answer.batch_id;
    });
    expect(keyPaths(event.body).sort()).toEqual(keyPaths(shownEvent).sort());
    expect(event.body).toMatchObject({
      type: shownEvent?.type,
      data: { status: 'completed', totals: { queued: 0, in_progress: 0, completed: 2, failed: 0 } },
    });
    const batch = await fetch(`${api.url}/v1/batch/${String(answer.batch_id)}`, {
      headers: { 'x-api-key': readFileSync(join(api.dataDir, 'demo-api-key'), 'utf8').trim() },
    });
    const polled = (await batch.json()) as Record<string, unknown>;
    expect(Object.keys(polled).sort()).toEqual(
      expect.arrayContaining(Object.keys(shownBatch ?? {}).sort()),
    );
    expect(polled).toMatchObject({ status: 'completed', item_count: 2, completed_documents: 2 });
  });

  it('creates an upload slot, sends the file (204) and parses it by reference', async () => {
    // Arrange: the big file the example sends (its size does not matter here).
    const { block } = example('docs/api.md § Large uploads #1');
    copyFileSync(join(ROOT, 'examples/invoice.pdf'), join(apiDir.cwd, 'big.pdf'));
    // Act
    const { stdout } = await runApi(block.code);
    // Assert
    const [sent, ...rest] = stdout.split('\n');
    expect(sent).toBe(/# (\d{3})$/m.exec(block.code)?.[1]);
    const result = ParseResponse.parse(JSON.parse(rest.join('\n')));
    expect(result.status).toBe('completed');
    expect(result.pages[0]?.content_markdown).toContain('# Invoice INV-2026-0042');
  });
});

/** One `$ command` of a transcript block, with the lines shown after it. */
interface TranscriptStep {
  command: string;
  shown: string[];
}

function transcript(block: FencedBlock): TranscriptStep[] {
  const steps: TranscriptStep[] = [];
  for (const line of block.code.trimEnd().split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), shown: [] });
    else steps.at(-1)?.shown.push(line);
  }
  return steps;
}

/**
 * A pattern for a line shown in a transcript: the text as shown, but for what varies from run to
 * run (request ids, times in ms or s) and what the docs cut short (`…`).
 */
function lineMatcher(shown: string): RegExp {
  const varying = /req_[A-Za-z0-9]+|\b\d+ ms\b|\b\d+(?:\.\d+)? s$|…/g;
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let pattern = '';
  let from = 0;
  for (const match of shown.matchAll(varying)) {
    pattern += escape(shown.slice(from, match.index));
    const [text] = match;
    pattern += text.startsWith('req_')
      ? 'req_[A-Za-z0-9]+'
      : text === '…'
        ? '.*'
        : text.endsWith('ms')
          ? '\\d+ ms'
          : '\\d+(?:\\.\\d+)? s';
    from = match.index + text.length;
  }
  return new RegExp(`^${pattern}${escape(shown.slice(from))}$`);
}

/** The lines a command printed, stdout then stderr. */
const printed = (run: CommandRun): string[] => `${run.stdout}\n${run.stderr}`.split('\n');

describe('docs/cli.md', () => {
  const KEY = 'docs/cli.md § Command line #1';
  let cli: TestService;
  let dir: { cwd: string; env: Record<string, string> };

  const step = (start: string): TranscriptStep => {
    const found = transcript(example(KEY).block).find((s) => s.command.startsWith(start));
    if (found === undefined) throw new Error(`docs/cli.md shows no \`${start}\``);
    return found;
  };
  /** Runs a transcript command against this describe's server, its pager replaced by cat. */
  const runCli = (command: string) =>
    runDocCommand(offline(command).replace(/\| less\b/, '| cat'), cli, {
      cwd: dir.cwd,
      env: { ...dir.env, DOCPARSE_API_URL: cli.url },
      check: false,
    });

  beforeAll(async () => {
    // A server of its own: the transcript estimates the invoice before any parse of it.
    cli = await startTestService('docs-examples-cli', {
      URL_FETCH_ALLOWLIST: new URL(standIn.url).host,
    });
    dir = workspace(cli);
    // The files the transcript assumes: a report, the schema of docs/api.md's extraction
    // example, and the folder of the batch with the documents its lines name.
    copyFileSync(join(ROOT, 'examples/invoice.pdf'), join(dir.cwd, 'report.pdf'));
    const extraction = example('docs/api.md § Structured extraction (`extract` and `hybrid`) #1');
    const schema = /-F 'extraction_schema=([^']*)'/.exec(extraction.block.code)?.[1] ?? '';
    writeFileSync(join(dir.cwd, 'invoice.schema.json'), schema);
    const folder = join(dir.cwd, 'docs');
    mkdirSync(folder);
    for (const line of step('docparse batch').shown) {
      const name = /^(?:ok|fail)\s+(\S+)/.exec(line)?.[1];
      if (name === undefined) continue;
      const source = corpusPath('dev/files', name);
      if (existsSync(source)) copyFileSync(source, join(folder, name));
      else writeFileSync(join(folder, name), 'Notes for the meeting.\nNothing to parse here.\n');
    }
  });

  afterAll(async () => {
    await cli.close();
  });

  it('shows the commands run below, in the order they run', () => {
    // Act
    const commands = transcript(example(KEY).block).map((s) => s.command.split(/\s+/).slice(0, 2));
    // Assert
    expect(commands.map((c) => c.join(' '))).toEqual([
      'docparse estimate',
      'docparse parse',
      'docparse parse',
      'docparse parse',
      'docparse batch',
    ]);
  });

  it('estimate prints the lines shown', async () => {
    // Arrange
    const { command, shown } = step('docparse estimate');
    // Act
    const run = await runCli(command);
    // Assert
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toEqual(shown);
  });

  it('parse --out prints the line shown and writes the Markdown and the ParseResponse', async () => {
    // Arrange
    const { command, shown } = step('docparse parse examples/invoice.pdf --out out');
    // Act
    const run = await runCli(command);
    // Assert
    expect(run.code).toBe(0);
    expect(shown).toHaveLength(1);
    expect(printed(run).some((line) => lineMatcher(shown[0] ?? '').test(line))).toBe(true);
    const markdown = readFileSync(join(dir.cwd, 'out/invoice.md'), 'utf8');
    expect(markdown.split('\n')[0]).toBe('<!-- page 1 -->');
    expect(markdown).toContain('# Invoice INV-2026-0042');
    const json = ParseResponse.parse(
      JSON.parse(readFileSync(join(dir.cwd, 'out/invoice.json'), 'utf8')),
    );
    expect(json.pages).toHaveLength(1);
  });

  it('parse --stdout prints the Markdown and writes no file', async () => {
    // Arrange
    const { command } = step('docparse parse report.pdf --stdout');
    // Act
    const run = await runCli(command);
    // Assert
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('<!-- page 1 -->');
    expect(run.stdout).toContain('# Invoice INV-2026-0042');
    expect(existsSync(join(dir.cwd, 'report.md'))).toBe(false);
    expect(existsSync(join(dir.cwd, 'report.json'))).toBe(false);
  });

  it('parse URL --schema writes the extracted object docs/api.md shows into the .json', async () => {
    // Arrange
    const { command } = step('docparse parse https://');
    const shownExtracted = JSON.parse(
      example('docs/api.md § Structured extraction (`extract` and `hybrid`) #1').after[0]?.code ??
        '',
    ) as unknown;
    // Act
    const run = await runCli(command);
    // Assert
    expect(run.code).toBe(0);
    const json = ParseResponse.parse(
      JSON.parse(readFileSync(join(dir.cwd, 'invoice.json'), 'utf8')),
    );
    expect(json.extracted).toEqual(shownExtracted);
    expect(readFileSync(join(dir.cwd, 'invoice.md'), 'utf8')).toContain('# Invoice INV-2026-0042');
  });

  it('batch prints the line shown for each document and the totals, and exits 3', async () => {
    // Arrange
    const { command, shown } = step('docparse batch');
    // Act
    const run = await runCli(command);
    // Assert
    const lines = printed(run);
    for (const line of shown) {
      expect(
        lines.some((out) => lineMatcher(line).test(out)),
        `prints ${line}`,
      ).toBe(true);
    }
    expect(lines.filter((line) => /^(ok|fail) /.test(line))).toHaveLength(
      shown.filter((line) => /^(ok|fail) /.test(line)).length,
    );
    expect(existsSync(join(dir.cwd, 'out/zerox-0004.md'))).toBe(true);
    expect(run.code).toBe(3);
  });
});

describe('docs/providers.md', () => {
  const LISTING = 'docs/providers.md § Providers and tiers #2';

  interface ProvidersFile {
    providers: Record<string, { model?: string }>;
    tiers: Record<string, { providers: string[] }>;
  }

  /** Runs the listing example against `target` and checks it against the configuration file. */
  async function expectListing(target: ExampleTarget, configFile: string): Promise<void> {
    const file = JSON.parse(readFileSync(join(ROOT, configFile), 'utf8')) as ProvidersFile;
    const dir = workspace(target);
    const { stdout } = await runDocCommand(example(LISTING).block.code, target, dir);
    const listed = (JSON.parse(stdout) as { providers: unknown[] }).providers.map((p) =>
      ProviderStatus.parse(p),
    );
    const tierIds = [...new Set(Object.values(file.tiers).flatMap((tier) => tier.providers))];
    expect(listed.map((p) => p.provider_id)).toEqual(tierIds);
    for (const provider of listed) {
      const model = file.providers[provider.provider_id]?.model;
      if (model !== undefined) expect(provider.model_id).toBe(model);
      expect(provider.circuit_breaker_state).toMatch(/^(CLOSED|OPEN|HALF_OPEN|IDLE)$/);
    }
  }

  it('lists the providers of the default configuration, each with its model and breaker state', async () => {
    await expectListing(api, 'config/providers.json');
  });

  it.each([
    'docs/providers.md § Providers and tiers #1',
    'docs/providers.md § One OpenAI-compatible server on this machine #1',
    'docs/providers.md § Anthropic only #1',
    'docs/providers.md § Every hosted vendor #1',
  ] as const)('%s starts the service, which lists the providers of that file', async (key) => {
    // Arrange
    const command = runnable(example(key).block).trim();
    const configFile = /PROVIDERS_FILE=(\S+)/.exec(command)?.[1];
    expect(command).toMatch(/npm start$/);
    expect(configFile).toBeDefined();
    const dataDir = mkdtempSync(join(tmpdir(), 'docparse-docs-examples-start-'));
    made.push(dataDir);
    // Act: the command as written, on a free port and a data directory of its own.
    const service = await startChildService({ DATA_DIR: dataDir }, 90_000, command);
    try {
      // Assert
      await expectListing({ url: service.url, dataDir }, configFile ?? '');
    } finally {
      await service.stop();
    }
  });
});
