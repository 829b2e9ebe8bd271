import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../../../functions/local-server.js';
import { loadConfig } from '../../../functions/config.js';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * Failover on the running service: a vision model behind the OpenAI wire format (a local server
 * standing in for it) serves the first pages of a document and then dies. The document must
 * still complete with every page, the rest parsed by the next provider of the tier, and the
 * dead provider's circuit must open. With no provider left in a tier, uploads get 503.
 */

const DEV = corpusPath('dev');
const KEY = 'key-failover-0001';
const DOCUMENT = join(DEV, 'files/docling-redp5110_sampled.pdf');
const MODEL_MARKDOWN = '# Page transcribed by the model\n\nEvery word as printed.';

/** A Chat Completions server that answers `answers` requests, then closes for good. */
async function dyingModel(answers: number): Promise<{ url: string; served: () => number }> {
  let served = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (served >= answers) {
        // Killed: the connection is cut and nothing listens any more.
        res.socket?.destroy();
        server.close();
        server.closeAllConnections();
        return;
      }
      served += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [
            { message: { role: 'assistant', content: MODEL_MARKDOWN }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 1000, completion_tokens: 50 },
        }),
      );
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  running.push(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    served: () => served,
  };
}

const running: Server[] = [];
let service: LocalServer | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
  for (const server of running.splice(0)) {
    server.close();
    server.closeAllConnections();
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the local service with `providers` as its provider configuration. */
async function serviceWith(providers: unknown): Promise<LocalServer> {
  dataDir = mkdtempSync(join(tmpdir(), 'docparse-failover-'));
  const config = loadConfig({
    RUNTIME_MODE: 'local',
    DATA_DIR: dataDir,
    PORT: '0',
    API_KEYS: `${KEY}=failover:pro`,
    // Many requests in a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    PROVIDERS_JSON: JSON.stringify(providers),
  });
  if (config.RUNTIME_MODE !== 'local') throw new Error('local config expected');
  service = await startLocalServer(config);
  return service;
}

const vlm = (url: string) => ({
  kind: 'openai-compatible',
  model: 'test-vlm',
  base_url: url,
  max_retries: 0,
  timeout_ms: 10_000,
  price: { per_input_token_usd: 0.000001, per_output_token_usd: 0.00001 },
});

async function upload(server: LocalServer, file: string) {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)]), basename(file));
  const res = await fetch(`${server.url}/v1/parse/upload?include_warnings=true`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function get(server: LocalServer, path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': KEY } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('a provider that dies in the middle of a document', () => {
  it('loses no page: the rest fall over to the next provider and its circuit opens', async () => {
    // Arrange: every tier tries the model first, then the offline engines.
    const model = await dyingModel(3);
    const chain = ['vlm', 'local-text', 'local-ocr'];
    const server = await serviceWith({
      providers: {
        vlm: vlm(model.url),
        'local-text': { kind: 'local-text' },
        'local-ocr': { kind: 'local-ocr' },
      },
      tiers: {
        fast: { providers: chain, price_per_page_usd: 0.001 },
        pro: { providers: chain, price_per_page_usd: 0.01 },
        premium: { providers: chain, price_per_page_usd: 0.03 },
      },
      breaker: { failure_threshold: 2, cooldown_ms: 600_000 },
    });

    // Act
    const result = await upload(server, DOCUMENT);

    // Assert: the whole document, each page from the model or the fallback.
    expect(result.status).toBe(200);
    const response = ParseResponse.parse(result.body);
    expect(response.pages.map((p) => p.page_number)).toEqual(
      Array.from({ length: 18 }, (_, i) => i + 1),
    );
    // Pages the model answered: kept, or re-routed because its canned answer does not match the
    // page's text layer (verification), in which case the first attempt is recorded.
    const answered = response.pages.filter(
      (p) =>
        p.provider === 'vlm' ||
        (p.re_route_result?.from as { provider?: string } | undefined)?.provider === 'vlm',
    );
    const fallen = response.pages.filter((p) => !answered.includes(p));
    expect(model.served()).toBe(3);
    expect(answered).toHaveLength(3);
    for (const page of answered) expect(page.tokens.input_tokens).toBeGreaterThanOrEqual(1000);
    expect(fallen.length).toBe(15);
    for (const page of fallen) expect(page.provider).toMatch(/^local-(text|ocr)$/);
    // Only the document's blank page 17 may come out empty.
    const empty = fallen.filter((p) => p.content_markdown.trim() === '').map((p) => p.page_number);
    expect(empty.filter((n) => n !== 17)).toEqual([]);
    // Model pages cost their tokens on top of the tier price.
    expect(response.usage.total_input_tokens).toBe(3000);
    expect(response.usage.estimated_cost_usd).toBeGreaterThan(3 * (1000 * 0.000001));

    // The dead model's circuit is open; the service is degraded, not down.
    const providers = await get(server, '/v1/providers');
    expect(providers.body.providers).toContainEqual({
      provider_id: 'vlm',
      model_id: 'test-vlm',
      model_ids: ['test-vlm'],
      circuit_breaker_state: 'OPEN',
      healthy: false,
    });
    const health = await get(server, '/v1/health');
    expect(health).toMatchObject({ status: 200, body: { status: 'degraded' } });
  }, 180_000);

  it('answers 503 naming the tier once every provider of it is open', async () => {
    // Arrange: the model is the only provider of every tier, and it is already dead.
    const model = await dyingModel(0);
    const only = { providers: ['vlm'], price_per_page_usd: 0.01 };
    const server = await serviceWith({
      providers: { vlm: vlm(model.url) },
      tiers: { fast: only, pro: only, premium: only },
      breaker: { failure_threshold: 1, cooldown_ms: 600_000 },
    });
    const onePage = join(DEV, 'files/pypdf-minimal-document.pdf');
    const first = await upload(server, onePage);

    // Act
    const second = await upload(server, onePage);
    const health = await get(server, '/v1/health');

    // Assert: the first fails on the dead model (503, retry later); then the circuit is open.
    expect(first.status).toBe(503);
    expect(second.status).toBe(503);
    expect(String(second.body.detail)).toMatch(/every provider of the \w+ tier is unavailable/);
    expect(health).toMatchObject({ status: 503, body: { status: 'unhealthy' } });
    expect(model.served()).toBe(0);
  }, 120_000);
});
