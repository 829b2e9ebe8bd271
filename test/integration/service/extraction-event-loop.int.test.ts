import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { startChildService, type ChildService } from '../../support/child-service.js';

/**
 * A large `extraction_schema` against a long document cannot hold the server's event loop: the
 * offline extractor works in slices, so `GET /v1/live` keeps answering while it fills 500
 * properties from 2,000 lines (seconds of work, done in one go before), and a schema past
 * MAX_EXTRACTION_SCHEMA_PROPERTIES is refused with 422 before anything is parsed.
 */

const KEY = 'key-extraction-loop-01';

let service: ChildService;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'docparse-extraction-loop-'));
  service = await startChildService({
    DATA_DIR: dataDir,
    API_KEYS: `${KEY}=extraction-loop:scale`,
  });
});

afterAll(async () => {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const WORDS = ['invoice', 'total', 'customer', 'shipping', 'vendor', 'tax', 'order', 'carrier'];
const word = (i: number) => WORDS[i % WORDS.length] ?? '';

/** 2,000 lines: a heading every 100, `label: value` lines in paragraphs of nine. */
const longDocument = Array.from({ length: 2000 }, (_, i) =>
  i % 100 === 0
    ? `## Section ${word(i)} ${String(i)}`
    : i % 10 === 0
      ? ''
      : `${word(i)} ${word(i * 3)} field ${String(i)}: value ${String(i)}`,
).join('\n');

const schemaOf = (count: number) => ({
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `${word(i * 5)}_${word(i * 7)}_f${String(i)}`,
      { type: i % 3 === 0 ? 'number' : 'string' },
    ]),
  ),
});

function upload(schema: unknown): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([longDocument], { type: 'text/markdown' }), 'long.md');
  form.append('operation_mode', 'extract');
  form.append('extraction_schema', JSON.stringify(schema));
  return fetch(`${service.url}/v1/parse/upload`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
    signal: AbortSignal.timeout(120_000),
  });
}

describe('local service: extraction with a large schema', () => {
  it('answers GET /v1/live within 1 s throughout the extraction of 500 properties from 2,000 lines', async () => {
    // Arrange: one small extraction first, so that the measured one pays no module loading
    const warm = await upload({ type: 'object', properties: { total: { type: 'number' } } });
    await warm.arrayBuffer();
    const state = { settled: false };
    // Act
    const parse = upload(schemaOf(500)).finally(() => {
      state.settled = true;
    });
    const gaps: number[] = [];
    let last = performance.now();
    while (!state.settled) {
      const live = await fetch(`${service.url}/v1/live`);
      await live.arrayBuffer();
      expect(live.status).toBe(200);
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const res = await parse;
    // Assert
    expect(warm.status).toBe(200);
    expect(res.status).toBe(200);
    ParseResponse.parse(await res.json());
    expect(gaps.length).toBeGreaterThan(3);
    expect(Math.max(...gaps)).toBeLessThan(1000);
  });

  it('refuses a schema of 1,500 properties with 422 naming MAX_EXTRACTION_SCHEMA_PROPERTIES', async () => {
    // Act
    const res = await upload(schemaOf(1500));
    // Assert
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: string };
    expect(body.detail).toBe(
      'extraction_schema has 1500 properties, more than the 500 allowed (MAX_EXTRACTION_SCHEMA_PROPERTIES); split the extraction into several requests with smaller schemas',
    );
  });
});
