import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../../../functions/local-server.js';
import { loadConfig } from '../../../functions/config.js';
import { HTTPValidationError, ParseResponse } from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';

const DEV = corpusPath('dev');
const HOSTILE = corpusPath('hostile');
const ALPHA = 'key-alpha-0001';
const BETA = 'key-beta-0002';
const MAX_UPLOAD = 4 * 1024 * 1024;

interface DevDoc {
  id: string;
  file: string;
  format: string;
  pages: number;
  categories: string[];
}

const devDocs = (
  JSON.parse(readFileSync(join(DEV, 'manifest.json'), 'utf8')) as { documents: DevDoc[] }
).documents.filter((d) => ['pdf', 'png', 'jpeg', 'jpg'].includes(d.format));

let dataDir: string;
let server: LocalServer;

function configFor(dir: string) {
  const config = loadConfig({
    RUNTIME_MODE: 'local',
    DATA_DIR: dir,
    PORT: '0',
    API_KEYS: `${ALPHA}=alpha:pro,${BETA}=beta:free`,
    // Many requests in a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS:
      '{"free":{"requests_per_minute":null,"pages_per_day":null},"pro":{"requests_per_minute":null}}',
    MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
  });
  if (config.RUNTIME_MODE !== 'local') throw new Error('local config expected');
  return config;
}

async function upload(
  file: string | { name: string; bytes: Uint8Array },
  options: { key?: string | null; fields?: Record<string, string>; query?: string } = {},
) {
  const form = new FormData();
  const { name, bytes } =
    typeof file === 'string' ? { name: basename(file), bytes: readFileSync(file) } : file;
  form.append('file', new Blob([Uint8Array.from(bytes)]), name);
  for (const [k, v] of Object.entries(options.fields ?? {})) form.append(k, v);
  const headers: Record<string, string> = {};
  if (options.key !== null) headers['x-api-key'] = options.key ?? ALPHA;
  const res = await fetch(`${server.url}/v1/parse/upload${options.query ?? ''}`, {
    method: 'POST',
    headers,
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function get(path: string, key: string | null = ALPHA) {
  const res = await fetch(`${server.url}${path}`, { headers: key ? { 'x-api-key': key } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'docparse-int-'));
  server = await startLocalServer(configFor(dataDir));
});

afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('local service: probes and auth', () => {
  it('answers live and health without a key, and lists providers only for a valid key', async () => {
    // Act
    const live = await get('/v1/live', null);
    const anonymous = await get('/v1/health', null);
    const alias = await get('/health', ALPHA);
    const authed = await get('/v1/health', ALPHA);
    // Assert
    expect(live.status).toBe(200);
    expect(anonymous).toMatchObject({ status: 200, body: { status: 'healthy', version: '0.1.0' } });
    expect(anonymous.body.providers).toBeUndefined();
    expect(alias.body.providers).toBeUndefined();
    // Unused since start-up: IDLE; used: CLOSED.
    expect(authed.body.providers).toMatchObject({
      'local-text': { state: expect.stringMatching(/^(IDLE|CLOSED)$/) as string, healthy: true },
      'local-ocr': { state: expect.stringMatching(/^(IDLE|CLOSED)$/) as string, healthy: true },
    });
  });

  it('lists the configured providers with their breaker states on /v1/providers, for a key only', async () => {
    // Act
    const listed = await get('/v1/providers', ALPHA);
    const anonymous = await get('/v1/providers', null);
    // Assert
    expect(anonymous.status).toBe(401);
    expect(listed.status).toBe(200);
    const providers = listed.body.providers as {
      provider_id: string;
      model_id: string;
      model_ids: string[];
      healthy: boolean;
    }[];
    // Each with the model its pages report.
    expect(providers.map((p) => [p.provider_id, p.model_id])).toEqual([
      ['local-text', 'pdf-text-layout-1'],
      ['local-ocr', 'tesseract-5-lstm'],
    ]);
    // local-text also reports the office conversion's model, on office pages.
    expect(providers.map((p) => p.model_ids)).toEqual([
      ['pdf-text-layout-1', 'office-convert-1'],
      ['tesseract-5-lstm'],
    ]);
    for (const provider of providers) {
      expect(provider).toMatchObject({
        circuit_breaker_state: expect.stringMatching(/^(IDLE|CLOSED)$/) as string,
        healthy: true,
      });
    }
  });

  it('rejects uploads without a key or with an unknown key with 401', async () => {
    // Act
    const missing = await upload(join(DEV, 'files/pypdf-minimal-document.pdf'), { key: null });
    const wrong = await upload(join(DEV, 'files/pypdf-minimal-document.pdf'), { key: 'nope-0000' });
    // Assert
    expect(missing.status).toBe(401);
    expect(missing.body.detail).toMatch(/X-API-Key/);
    expect(wrong).toMatchObject({ status: 401, body: { detail: 'invalid API key' } });
  });

  it("answers another tenant's request id exactly like an unknown id (404)", async () => {
    // Arrange
    const parsed = await upload(join(DEV, 'files/pypdf-minimal-document.pdf'));
    const id = String(parsed.body.id);
    // Act
    const foreign = await get(`/v1/parse/${id}`, BETA);
    const unknown = await get('/v1/parse/req_doesnotexist0000', BETA);
    // Assert
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.detail).toBe(`parse request ${id} not found`);
    expect(unknown.body.detail).toBe('parse request req_doesnotexist0000 not found');
    expect((await get(`/v1/parse/${id}`, ALPHA)).status).toBe(200);
  });
});

describe('local service: input errors', () => {
  it('fails with 422 and the HTTPValidationError body for an invalid dpi', async () => {
    // Act
    const res = await upload(join(DEV, 'files/pypdf-minimal-document.pdf'), {
      fields: { dpi: 'abc' },
    });
    // Assert
    expect(res.status).toBe(422);
    const body = HTTPValidationError.parse(res.body);
    expect(body.detail[0]?.loc).toEqual(['body', 'dpi']);
  });

  it('fails with 400 when the file field is missing', async () => {
    // Arrange
    const form = new FormData();
    form.append('operation_mode', 'ocr');
    // Act
    const res = await fetch(`${server.url}/v1/parse/upload`, {
      method: 'POST',
      headers: { 'x-api-key': ALPHA },
      body: form,
    });
    // Assert
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/file/);
  });

  it('fails with 413 above MAX_UPLOAD_BYTES and keeps serving', async () => {
    // Arrange
    const bytes = new Uint8Array(MAX_UPLOAD + 10);
    bytes.set(new TextEncoder().encode('%PDF-1.7\n'));
    // Act
    const res = await upload({ name: 'big.pdf', bytes });
    // Assert
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/maximum upload size/);
    expect((await get('/v1/live', null)).status).toBe(200);
  });

  it('fails with 400 naming the detected type for unsupported content', async () => {
    // Act
    const res = await upload(join(HOSTILE, 'text-named.pdf'));
    // Assert
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/plain text/i);
  });
});

describe('local service: the dev corpus', () => {
  it.each(devDocs.map((d) => [d.id, d] as const))(
    'parses %s with 200 and a schema-valid ParseResponse whose boxes lie inside the page',
    async (_id, doc) => {
      // Act
      const res = await upload(join(DEV, doc.file), { query: '?include_warnings=true' });
      // Assert
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
      const response = ParseResponse.parse(res.body);
      expect(response.id).toMatch(/^req_/);
      expect(response.document.pages).toBe(doc.pages);
      expect(response.pages).toHaveLength(doc.pages);
      expect(response.document.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(response.usage.pages_by_tier).toBeDefined();
      const markdown = response.pages.map((p) => p.content_markdown).join('\n');
      expect(markdown.trim().length).toBeGreaterThan(20);
      for (const page of response.pages) {
        expect(page.warnings).toBeDefined();
        for (const g of page.grounding) {
          expect(g.bbox.x + g.bbox.w).toBeLessThanOrEqual(page.width! + 0.01);
          expect(g.bbox.y + g.bbox.h).toBeLessThanOrEqual(page.height! + 0.01);
        }
        const ocr = doc.format !== 'pdf' || doc.categories.includes('scanned');
        expect(page.provider).toBe(ocr ? 'local-ocr' : 'local-text');
      }
    },
  );

  it('keeps tables and headings of a born-digital paper', async () => {
    // Act
    const res = await upload(join(DEV, 'files/docling-2305.03393v1-pg9.pdf'));
    // Assert
    const markdown = ParseResponse.parse(res.body).pages[0]!.content_markdown;
    expect(markdown).toMatch(/^#{1,6} .*Hyper Parameter Optimization/im);
    expect(markdown).toMatch(/^#{1,6} .*Quantitative Results/im);
    // The table's two header rows (TEDs spanning three columns) come out as one HTML table.
    expect(markdown.match(/<table>/g)).toHaveLength(1);
    expect(markdown).toMatch(/<th colspan="3">TEDs<\/th>/);
    expect(markdown).toMatch(/<t[hd]>simple<\/t[hd]><t[hd]>complex<\/t[hd]><t[hd]>all<\/t[hd]>/);
  });

  it('logs the progress events of every stage in pipeline order', async () => {
    // Arrange: parsed afresh, not answered from the result cache (an earlier test parsed it).
    const res = await upload(join(DEV, 'files/docling-picture_classification.pdf'), {
      fields: { invalidate_cache: 'true' },
    });
    const id = String(res.body.id);
    // Act: the last events may still be being written when the response arrives.
    let logged: Awaited<ReturnType<typeof server.deps.events.list>> = [];
    for (let attempt = 0; attempt < 50; attempt++) {
      logged = await server.deps.events.list(id);
      if (logged.some((e) => e.body.event === 'node.completed' && e.body.node === 'Deliver')) {
        break;
      }
      await new Promise((wake) => setTimeout(wake, 20));
    }
    const events = logged.map((e) => e.body);
    // Assert
    const names = events.map((e) =>
      [e.event, e.node, e.page]
        .filter((v) => typeof v === 'string' || typeof v === 'number')
        .map(String)
        .join(' '),
    );
    const at = (name: string) => names.indexOf(name);
    const stages = ['Ingest', 'Classify', 'Route', 'Verify', 'Deliver'];
    for (const [i, stage] of stages.entries()) {
      expect(at(`node.started ${stage}`)).toBeLessThan(at(`node.completed ${stage}`));
      const next = stages[i + 1];
      if (next) expect(at(`node.completed ${stage}`)).toBeLessThan(at(`node.started ${next}`));
    }
    expect(at('ingest.start')).toBeLessThan(at('node.completed Ingest'));
    for (const page of [1, 2]) {
      expect(at(`classify.page ${page}`)).toBeLessThan(at('node.completed Classify'));
      expect(at(`route.page ${page}`)).toBeGreaterThan(at('node.started Route'));
      expect(at(`route.page ${page}`)).toBeLessThan(at('node.completed Route'));
      expect(at(`node.started ParsePage ${page}`)).toBeGreaterThan(at('node.completed Route'));
      expect(at(`vlm.page.done ${page}`)).toBeLessThan(at(`node.completed ParsePage ${page}`));
      expect(at(`node.completed ParsePage ${page}`)).toBeLessThan(at('node.started Verify'));
    }
    expect(names.slice(-2)).toEqual(['result.final', 'node.completed Deliver']);
    expect(logged.map((e) => e.seq)).toEqual(logged.map((_, i) => i + 1));
  });

  it('parses only max_pages pages and reports the document page count', async () => {
    // Act
    const res = await upload(join(DEV, 'files/docling-redp5110_sampled.pdf'), {
      fields: { max_pages: '2' },
    });
    // Assert
    const response = ParseResponse.parse(res.body);
    expect(response.pages.map((p) => p.page_number)).toEqual([1, 2]);
    expect(response.document.pages).toBe(18);
  });

  it('parses concurrent uploads independently', async () => {
    // Arrange
    const files = [
      'pypdf-minimal-document.pdf',
      'docling-amt_handbook_sample.pdf',
      'olmocr-earnings.pdf',
      'zerox-0003.pdf',
    ];
    // Act
    const results = await Promise.all(files.map((f) => upload(join(DEV, 'files', f))));
    // Assert
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(files.length);
    results.forEach((r, i) => {
      expect(r.status).toBe(200);
      expect((r.body.document as { filename: string }).filename).toBe(files[i]);
    });
  });
});

describe('local service: reading a result', () => {
  it('sends a kept result as the UTF-8 bytes of its JSON, the same on every read', async () => {
    // Arrange
    const parsed = await upload(join(DEV, 'files/zerox-0003.pdf'));
    const read = async () => {
      const res = await fetch(`${server.url}/v1/parse/${String(parsed.body.id)}`, {
        headers: { 'x-api-key': ALPHA },
      });
      return Buffer.from(await res.arrayBuffer());
    };
    // Act
    const first = await read();
    const again = await read();
    // Assert
    expect(again.equals(first)).toBe(true);
    expect(JSON.parse(again.toString('utf8'))).toEqual(parsed.body);
  });
});

describe('local service: restart', () => {
  it('returns the stored result after the server restarts on the same DATA_DIR', async () => {
    // Arrange
    const parsed = await upload(join(DEV, 'files/zerox-0003.pdf'));
    expect(parsed.status).toBe(200);
    // Act
    await server.close();
    server = await startLocalServer(configFor(dataDir));
    const again = await get(`/v1/parse/${String(parsed.body.id)}`);
    // Assert
    expect(again.status).toBe(200);
    expect(again.body).toEqual(parsed.body);
  });
});
