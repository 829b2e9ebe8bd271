import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  ApiError,
  ConnectionError,
  ServerParseError,
  formatDetail,
  formFields,
  jsonFields,
  localFile,
  retryAfter,
  type ProgressEvent,
} from '../../../bin/cli-api.js';
import { DEFAULT_API_URL, UsageError } from '../../../bin/cli-args.js';
import { parseInvocation } from '../../../bin/cli-commands.js';
import { isDefaultApiUrl, resolveApiKey } from '../../../bin/cli-api-key.js';
import { describeFailure } from '../../../bin/cli-context.js';
import { selectBatchInputs } from '../../../bin/commands/batch.js';
import {
  assembleMarkdown,
  formatCost,
  formatDuration,
  formatEstimate,
  formatTiers,
  outputStem,
  uniqueStems,
} from '../../../bin/cli-output.js';

const NO_ENV = {};

/** The UsageError thrown by parsing `argv`. */
function usageError(argv: string[]): UsageError {
  try {
    parseInvocation(argv, NO_ENV);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

describe('parseInvocation', () => {
  it('reads parse with its options, global options before or after the command', () => {
    const inv = parseInvocation(
      [
        '--api-url',
        'http://h:1',
        'parse',
        'a.pdf',
        '-o',
        'out',
        '--max-pages',
        '3',
        '--dpi',
        '150',
        '--api-key',
        'k',
        '--quiet',
      ],
      NO_ENV,
    );
    expect(inv).toMatchObject({
      kind: 'parse',
      input: 'a.pdf',
      out: 'out',
      output: 'both',
      stdout: false,
      options: { maxPages: 3, dpi: 150 },
      global: { apiUrl: 'http://h:1', apiKey: 'k', apiKeySource: 'option', quiet: true },
    });
  });

  it('takes the API URL and key from the environment, options first', () => {
    const env = { DOCPARSE_API_URL: 'https://api.example.com/prod/', DOCPARSE_API_KEY: 'env-key' };
    expect(parseInvocation(['estimate', 'a.pdf'], env)).toMatchObject({
      global: { apiUrl: 'https://api.example.com/prod/', apiKey: 'env-key', apiKeySource: 'env' },
    });
    expect(parseInvocation(['estimate', 'a.pdf', '--api-key', 'opt'], env)).toMatchObject({
      global: { apiKey: 'opt', apiKeySource: 'option' },
    });
    expect(parseInvocation(['estimate', 'a.pdf'], NO_ENV)).toMatchObject({
      global: { apiUrl: DEFAULT_API_URL, apiKey: undefined, apiKeySource: undefined },
    });
  });

  it('makes a schema mean hybrid unless --mode says otherwise', () => {
    expect(parseInvocation(['parse', 'a.pdf', '--schema', 's.json'], NO_ENV)).toMatchObject({
      options: { operationMode: 'hybrid' },
      schemaPath: 's.json',
    });
    expect(
      parseInvocation(['parse', 'a.pdf', '--schema', 's.json', '--mode', 'extract'], NO_ENV),
    ).toMatchObject({ options: { operationMode: 'extract' } });
    expect(usageError(['parse', 'a.pdf', '--mode', 'extract']).message).toContain('--schema');
    expect(usageError(['parse', 'a.pdf', '--mode', 'ocr', '--schema', 's.json']).message).toContain(
      '--mode extract or hybrid',
    );
  });

  it('chooses the written outputs', () => {
    expect(parseInvocation(['parse', 'a.pdf', '--json-only'], NO_ENV)).toMatchObject({
      output: 'json',
    });
    expect(
      parseInvocation(['parse', 'a.pdf', '--markdown-only', '--stdout'], NO_ENV),
    ).toMatchObject({
      output: 'markdown',
      stdout: true,
    });
    expect(usageError(['parse', 'a.pdf', '--json-only', '--markdown-only']).command).toBe('parse');
  });

  it('reads batch and estimate', () => {
    expect(
      parseInvocation(['batch', 'docs', '--priority', 'high', '--mode', 'ocr'], NO_ENV),
    ).toMatchObject({
      kind: 'batch',
      dir: 'docs',
      out: '.',
      priority: 'high',
      options: { operationMode: 'ocr' },
    });
    expect(
      parseInvocation(['estimate', 'a.pdf', '--json', '--max-pages', '2'], NO_ENV),
    ).toMatchObject({
      kind: 'estimate',
      file: 'a.pdf',
      json: true,
      maxPages: 2,
    });
  });

  it('answers help and version', () => {
    expect(parseInvocation(['--help'], NO_ENV)).toEqual({ kind: 'help' });
    expect(parseInvocation(['-h', 'parse'], NO_ENV)).toEqual({ kind: 'help', command: 'parse' });
    expect(parseInvocation(['batch', '--help', '--bogus'], NO_ENV)).toEqual({
      kind: 'help',
      command: 'batch',
    });
    expect(parseInvocation(['help', 'estimate'], NO_ENV)).toEqual({
      kind: 'help',
      command: 'estimate',
    });
    expect(parseInvocation(['--version'], NO_ENV)).toEqual({ kind: 'version' });
  });

  it.each([
    [[], 'no command given'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['parse'], 'parse needs a FILE or URL'],
    [['parse', 'a.pdf', 'b.pdf'], 'takes one argument'],
    [['parse', 'a.pdf', '--priority', 'high'], "Unknown option '--priority'"],
    [['estimate', 'a.pdf', '--stdout'], "Unknown option '--stdout'"],
    [['parse', 'a.pdf', '--mode', 'fast'], '--mode must be one of ocr, extract, hybrid'],
    [['parse', 'a.pdf', '--max-pages', '0'], '--max-pages must be a whole number'],
    [['parse', 'a.pdf', '--dpi', '1.5'], '--dpi must be a whole number'],
    [['parse', 'a.pdf', '--out'], "Option '-o, --out <value>' argument missing"],
    [['parse', 'a.pdf', '--stdout', '-o', 'x'], '--stdout writes no files'],
    [['batch', 'd', '--priority', 'urgent'], '--priority must be one of low, normal, high'],
    [['estimate', 'https://example.com/a.pdf'], 'estimate takes a local file'],
    [['parse', 'a.pdf', '--api-url', 'ftp://x'], 'must start with http:// or https://'],
  ])('refuses %j', (argv, message) => {
    expect(usageError(argv).message).toContain(message);
  });
});

describe('formatDetail', () => {
  it('reads a string detail', () => {
    expect(formatDetail({ detail: 'invalid API key' })).toBe('invalid API key');
  });

  it('formats 422 validation issues as location: message', () => {
    const body = {
      detail: [
        { loc: ['body', 'max_pages'], msg: 'must be an integer or null', type: 'custom' },
        { loc: ['body', 'documents', 0, 'upload_id'], msg: 'required', type: 'missing' },
      ],
    };
    expect(formatDetail(body)).toBe(
      'body.max_pages: must be an integer or null; body.documents.0.upload_id: required',
    );
  });

  it('formats strict extraction failures by JSON pointer', () => {
    const body = [
      {
        extraction_validation: {
          pointer: '/total',
          schema_rule: 'type',
          message: 'must be a number',
        },
      },
      { extraction_validation: { pointer: '', schema_rule: 'required', message: 'missing total' } },
    ];
    expect(formatDetail(body)).toBe('/total: must be a number; /: missing total');
  });

  it('reads an S3 XML error and cuts long text', () => {
    const xml =
      '<?xml version="1.0"?><Error><Code>EntityTooLarge</Code><Message>Your proposed upload exceeds the maximum allowed size</Message></Error>';
    expect(formatDetail(xml)).toBe(
      'EntityTooLarge: Your proposed upload exceeds the maximum allowed size',
    );
    expect(formatDetail('x'.repeat(400))).toHaveLength(301);
    expect(formatDetail('   ')).toBeUndefined();
    expect(formatDetail({ other: 1 })).toBeUndefined();
  });
});

describe('retryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfter('17')).toBe(17);
    expect(retryAfter(null)).toBeUndefined();
    expect(retryAfter('soon')).toBeUndefined();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
  });
});

describe('request fields', () => {
  it('leaves out unset options and sends the schema as JSON text in forms', () => {
    const schema = { type: 'object', properties: { total: { type: 'number' } } };
    expect(formFields({})).toEqual([]);
    expect(
      formFields({ operationMode: 'hybrid', maxPages: 2, dpi: 200, extractionSchema: schema }),
    ).toEqual([
      ['operation_mode', 'hybrid'],
      ['max_pages', '2'],
      ['dpi', '200'],
      ['extraction_schema', JSON.stringify(schema)],
    ]);
    expect(jsonFields({ operationMode: 'extract', extractionSchema: schema })).toEqual({
      operation_mode: 'extract',
      extraction_schema: schema,
    });
  });
});

describe('Markdown and file names', () => {
  const page = (page_number: number, content_markdown: string) => ({
    page_number,
    content_markdown,
    tier_used: 'fast',
    provider: 'local-text',
  });

  it('joins the pages in page order, each after its page comment', () => {
    const markdown = assembleMarkdown({
      pages: [page(2, '## Two\n'), page(1, '# One\n\ntext\n\n')],
    });
    expect(markdown).toBe('<!-- page 1 -->\n\n# One\n\ntext\n\n<!-- page 2 -->\n\n## Two\n');
  });

  it('gives nothing for pages without Markdown (extract mode)', () => {
    expect(assembleMarkdown({ pages: [page(1, ''), page(2, '  ')] })).toBe('');
    expect(assembleMarkdown({ pages: [] })).toBe('');
  });

  it('names outputs after the file or the URL', () => {
    expect(outputStem('/docs/Annual Report.v2.pdf')).toBe('Annual Report.v2');
    expect(outputStem('https://example.com/files/q3%20report.pdf?x=1')).toBe('q3 report');
    expect(outputStem('https://example.com/')).toBe('document');
    expect(outputStem('notes')).toBe('notes');
  });

  it('keeps the extension where two files would share a name', () => {
    expect(uniqueStems(['a.pdf', 'a.png', 'b.docx', 'A.md'])).toEqual([
      'a.pdf',
      'a.png',
      'b',
      'A.md',
    ]);
    expect(uniqueStems(['x.pdf', 'y.pdf'])).toEqual(['x', 'y']);
  });
});

describe('selectBatchInputs', () => {
  it('takes the supported files and leaves out earlier output', () => {
    const names = [
      'b.PDF',
      'a.docx',
      'a.json',
      'a.md',
      'notes.txt',
      '.hidden.pdf',
      'readme.md',
      'c',
    ];
    expect(selectBatchInputs(names)).toEqual({
      inputs: ['a.docx', 'b.PDF', 'readme.md'],
      skipped: [
        { name: 'a.json', reason: '.json is not a supported type' },
        { name: 'a.md', reason: 'Markdown beside a.json (the output of an earlier run)' },
        { name: 'c', reason: 'no extension, so no known type' },
        { name: 'notes.txt', reason: '.txt is not a supported type' },
      ],
    });
  });
});

describe('summaries', () => {
  it('formats costs, durations and tiers', () => {
    expect(formatCost(0.002)).toBe('$0.0020');
    expect(formatCost(12.345)).toBe('$12.35');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(4210)).toBe('4.2 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatTiers({ premium: 1, fast: 2, pro: 0 })).toBe('fast 2, premium 1');
    expect(formatTiers({})).toBe('-');
  });

  it('prints an estimate for people', () => {
    const text = formatEstimate('a.pdf', {
      page_count: 18,
      tier_mix: { fast: 17, pro: 1, premium: 0 },
      estimated_cost_usd: 0.027,
      doc_type: 'report_manual',
      applied_preset: { tier_floor: 'fast', return_grounding: true },
    });
    expect(text).toContain('pages:          18');
    expect(text).toContain('tiers:          fast 17, pro 1');
    expect(text).toContain('estimated cost: $0.0270');
    expect(text).toContain('document type:  report manual');
  });

  it('explains failures', () => {
    const ctx = {
      global: {
        apiUrl: DEFAULT_API_URL,
        apiKey: undefined,
        apiKeySource: undefined,
        quiet: false,
        progress: false,
      },
      keySource: undefined,
    };
    expect(describeFailure(new ConnectionError('http://127.0.0.1:9', 'ECONNREFUSED'), ctx)).toBe(
      'cannot reach the API at http://127.0.0.1:9 (ECONNREFUSED; is `npm start` running?)',
    );
    expect(describeFailure(new ApiError(401, 'missing API key'), ctx)).toContain(
      'DOCPARSE_API_KEY',
    );
    expect(
      describeFailure(new ApiError(401, 'invalid API key'), { ...ctx, keySource: 'env' }),
    ).toContain('the API key in DOCPARSE_API_KEY was refused');
    expect(describeFailure(new ApiError(429, 'rate limit exceeded', 12), ctx)).toContain(
      'rate limit reached (HTTP 429): rate limit exceeded (Retry-After: 12 seconds)',
    );
    expect(describeFailure(new ServerParseError('boom', 'req_1'), ctx)).toBe(
      'the parse failed: boom (request req_1)',
    );
  });
});

describe('the API key', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('falls back to the demo key file only for the default local URL', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'docparse-cli-key-'));
    dirs.push(cwd);
    await mkdir(join(cwd, '.data'));
    await writeFile(join(cwd, '.data', 'demo-api-key'), 'demo-key\n');
    const global = (apiUrl: string) => ({
      apiUrl,
      apiKey: undefined,
      apiKeySource: undefined,
      quiet: false,
      progress: false,
    });
    expect(await resolveApiKey(global(DEFAULT_API_URL), {}, cwd)).toEqual({
      apiKey: 'demo-key',
      source: 'demo-key-file',
    });
    expect(await resolveApiKey(global('http://localhost:8080/'), {}, cwd)).toMatchObject({
      apiKey: 'demo-key',
    });
    expect(await resolveApiKey(global('https://api.example.com'), {}, cwd)).toEqual({
      apiKey: undefined,
      source: undefined,
    });
    expect(
      await resolveApiKey(
        { ...global(DEFAULT_API_URL), apiKey: 'k', apiKeySource: 'env' },
        {},
        cwd,
      ),
    ).toEqual({ apiKey: 'k', source: 'env' });
    expect(isDefaultApiUrl('http://127.0.0.1:8081')).toBe(false);
  });

  it('uses the demo key with the local server that recorded its port beside it, only', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'docparse-cli-key-'));
    dirs.push(cwd);
    await mkdir(join(cwd, 'data'));
    await writeFile(join(cwd, 'data', 'demo-api-key'), 'demo-key\n');
    await writeFile(
      join(cwd, 'data', 'demo-server.json'),
      JSON.stringify({ url: 'http://127.0.0.1:41234', port: 41234 }),
    );
    const global = (apiUrl: string) => ({
      apiUrl,
      apiKey: undefined,
      apiKeySource: undefined,
      quiet: false,
      progress: false,
    });
    const env = { DATA_DIR: 'data' };
    expect(await resolveApiKey(global('http://127.0.0.1:41234'), env, cwd)).toEqual({
      apiKey: 'demo-key',
      source: 'demo-key-file',
    });
    expect(await resolveApiKey(global('http://localhost:41234/'), env, cwd)).toMatchObject({
      apiKey: 'demo-key',
    });
    // Another server's port, the default one included, does not get this server's key.
    expect(await resolveApiKey(global(DEFAULT_API_URL), env, cwd)).toEqual({
      apiKey: undefined,
      source: undefined,
    });
    expect(await resolveApiKey(global('http://127.0.0.1:41235'), env, cwd)).toEqual({
      apiKey: undefined,
      source: undefined,
    });
    expect(await resolveApiKey(global('http://example.com:41234'), env, cwd)).toEqual({
      apiKey: undefined,
      source: undefined,
    });
  });
});

describe('ApiClient', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function aFile(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'docparse-cli-api-'));
    dirs.push(dir);
    const path = join(dir, 'doc.pdf');
    await writeFile(path, '%PDF-1.7\n');
    return path;
  }

  /** A fetch answering `responses` in turn, recording the requests. */
  function fakeFetch(responses: (() => Response)[]) {
    const requests: { url: string; init: RequestInit | undefined }[] = [];
    const fetchFn = (input: string | URL | Request, init?: RequestInit) => {
      requests.push({ url: input instanceof Request ? input.url : input.toString(), init });
      const next = responses.shift();
      if (!next) return Promise.reject(new Error('no more responses'));
      return Promise.resolve(next());
    };
    return { fetch: fetchFn, requests };
  }

  /** A body sent in uneven chunks, splitting lines and events. */
  function chunked(text: string, size: number): ReadableStream<Uint8Array> {
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    return new ReadableStream({
      pull(controller) {
        if (at >= bytes.length) {
          controller.close();
          return;
        }
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      },
    });
  }

  const result = { id: 'req_abc', status: 'completed', pages: [], document: { pages: 0 } };

  it('follows a stream to result.final, across chunk boundaries, with the key', async () => {
    const events = [
      { event: 'ingest.start', page_count: 2 },
      { event: 'vlm.page.done', page: 1, confidence: 0.9 },
      { event: 'vlm.page.done', page: 2, confidence: 0.9 },
      { event: 'result.final', payload: result },
    ];
    const sse = `: keepalive\n\n${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}`;
    const fake = fakeFetch([
      () => new Response(chunked(sse, 7), { headers: { 'x-request-id': 'req_abc' } }),
    ]);
    const client = new ApiClient({ baseUrl: 'http://h:1/prod', apiKey: 'k', fetch: fake.fetch });
    const seen: ProgressEvent[] = [];
    let id: string | undefined;
    const response = await client.parseStream(
      localFile(await aFile()),
      { operationMode: 'ocr' },
      { onEvent: (e) => seen.push(e), onRequestId: (r) => (id = r) },
    );
    expect(response).toEqual(result);
    expect(id).toBe('req_abc');
    expect(seen.map((e) => e.event)).toEqual([
      'ingest.start',
      'vlm.page.done',
      'vlm.page.done',
      'result.final',
    ]);
    const [request] = fake.requests;
    expect(request?.url).toBe('http://h:1/prod/v1/parse/stream');
    expect(new Headers(request?.init?.headers).get('x-api-key')).toBe('k');
    const form = request?.init?.body as FormData;
    expect(form.get('operation_mode')).toBe('ocr');
    expect((form.get('file') as File).name).toBe('doc.pdf');
  });

  it('turns an error event into a failed parse', async () => {
    const failed = { ...result, status: 'failed', detail: 'the document is damaged' };
    const sse = [
      { event: 'error', kind: 'invalid', detail: 'the document is damaged' },
      { event: 'result.final', payload: failed },
    ]
      .map((e) => `data: ${JSON.stringify(e)}\n\n`)
      .join('');
    const fake = fakeFetch([() => new Response(sse)]);
    const client = new ApiClient({ baseUrl: 'http://h:1', apiKey: 'k', fetch: fake.fetch });
    const error = await client
      .parseStream(localFile(await aFile()), {}, {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerParseError);
    expect(error).toMatchObject({ detail: 'the document is damaged', requestId: 'req_abc' });
  });

  it('fails a stream that ends without a result', async () => {
    const sse = `data: ${JSON.stringify({ event: 'error', kind: 'internal', detail: 'Error: lost' })}\n\n`;
    const fake = fakeFetch([() => new Response(sse)]);
    const client = new ApiClient({ baseUrl: 'http://h:1', apiKey: 'k', fetch: fake.fetch });
    await expect(client.parseStream(localFile(await aFile()), {}, {})).rejects.toMatchObject({
      name: 'ServerParseError',
      detail: 'Error: lost',
    });
  });

  it('reads a URL parse after keepalive spaces, and an error body under a 200', async () => {
    const fake = fakeFetch([
      () => new Response(`   ${JSON.stringify(result)}`),
      () => new Response(`  ${JSON.stringify({ detail: 'the provider timed out' })}`),
    ]);
    const client = new ApiClient({ baseUrl: 'http://h:1', apiKey: 'k', fetch: fake.fetch });
    expect(await client.parseUrl('https://e.com/a.pdf', { maxPages: 1 })).toEqual(result);
    expect(JSON.parse(fake.requests[0]?.init?.body as string)).toEqual({
      file_url: 'https://e.com/a.pdf',
      max_pages: 1,
    });
    await expect(client.parseUrl('https://e.com/a.pdf', {})).rejects.toMatchObject({
      name: 'ServerParseError',
      detail: 'the provider timed out',
    });
  });

  it('raises the API error with its formatted detail and Retry-After', async () => {
    const fake = fakeFetch([
      () =>
        Response.json(
          { detail: [{ loc: ['body', 'dpi'], msg: 'must be between 36 and 600', type: 'custom' }] },
          { status: 422 },
        ),
      () =>
        Response.json(
          { detail: 'rate limit exceeded' },
          { status: 429, headers: { 'retry-after': '7' } },
        ),
    ]);
    const client = new ApiClient({ baseUrl: 'http://h:1', apiKey: undefined, fetch: fake.fetch });
    await expect(client.getParse('req_x')).rejects.toMatchObject({
      status: 422,
      detail: 'body.dpi: must be between 36 and 600',
    });
    await expect(client.getBatch('batch_x')).rejects.toMatchObject({
      status: 429,
      retryAfterSeconds: 7,
    });
    expect(new Headers(fake.requests[0]?.init?.headers).has('x-api-key')).toBe(false);
  });

  it('waits out a 429 when asked to', async () => {
    const state = {
      batch_id: 'batch_x',
      status: 'completed',
      item_count: 0,
      totals: {},
      items: [],
    };
    const fake = fakeFetch([
      () =>
        Response.json({ detail: 'slow down' }, { status: 429, headers: { 'retry-after': '0' } }),
      () => Response.json(state),
    ]);
    const client = new ApiClient({ baseUrl: 'http://h:1', apiKey: 'k', fetch: fake.fetch });
    const waits: number[] = [];
    expect(
      await client.getBatch('batch_x', {
        retryRateLimited: 2,
        onRateLimited: (s) => waits.push(s),
      }),
    ).toEqual(state);
    expect(waits).toEqual([0]);
  });

  it('reports an unreachable API as a connection error', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const fetchFn = () => Promise.reject(new TypeError('fetch failed', { cause: refused }));
    const client = new ApiClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', fetch: fetchFn });
    await expect(client.estimate(localFile(await aFile()), undefined)).rejects.toMatchObject({
      name: 'ConnectionError',
      reason: 'ECONNREFUSED',
      message: 'cannot reach the API at http://127.0.0.1:9 (ECONNREFUSED)',
    });
  });

  it('sends an upload form with the fields first, without the API key', async () => {
    const fake = fakeFetch([() => new Response(null, { status: 204 })]);
    const client = new ApiClient({ baseUrl: 'http://h:1', apiKey: 'k', fetch: fake.fetch });
    await client.upload(
      {
        upload_id: 'upl_1',
        url: 'https://bucket.s3.amazonaws.com/',
        fields: { key: 'uploads/x', policy: 'p' },
        max_bytes: 10,
        expires_at: '2026-01-01T00:15:00Z',
      },
      localFile(await aFile()),
    );
    const [request] = fake.requests;
    expect(request?.url).toBe('https://bucket.s3.amazonaws.com/');
    expect(new Headers(request?.init?.headers).has('x-api-key')).toBe(false);
    const form = request?.init?.body as FormData;
    expect([...form.keys()]).toEqual(['key', 'policy', 'file']);
  });
});
