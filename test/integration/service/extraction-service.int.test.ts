import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import {
  ExtractionValidationError,
  HTTPValidationError,
  ParseResponse,
} from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * The `extract` and `hybrid` modes through the running service, on the invoice image of the dev
 * corpus (zerox-0012: a transport invoice with a 10-row table), parsed by the offline OCR and
 * filled by the offline extractor: the values, the validation errors with their pointers, the
 * 422 list of `extraction_strict`, and the refusals before anything is parsed.
 */

const FILES = corpusPath('dev/files');
const INVOICE = readFileSync(join(FILES, 'zerox-0012.png'));
const KEY = 'key-extraction-001';

const INVOICE_SCHEMA = {
  type: 'object',
  properties: {
    subtotal: { type: 'number' },
    total: { type: 'number' },
    line_items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          from: { type: 'string' },
          to: { type: 'string' },
          total: { type: 'number', title: 'Total' },
        },
      },
    },
  },
  required: ['total', 'line_items'],
};

/** The invoice schema with rules the document breaks: a missing field, and totals over 15. */
const STRICTER_SCHEMA = {
  ...INVOICE_SCHEMA,
  properties: {
    ...INVOICE_SCHEMA.properties,
    purchase_order: { type: 'string', description: 'Purchase order number' },
    line_items: {
      ...INVOICE_SCHEMA.properties.line_items,
      items: {
        ...INVOICE_SCHEMA.properties.line_items.items,
        properties: {
          ...INVOICE_SCHEMA.properties.line_items.items.properties,
          total: { type: 'number', title: 'Total', maximum: 15 },
        },
      },
    },
  },
  required: ['total', 'line_items', 'purchase_order'],
};

let running: TestService;
let service: LocalServer;

beforeAll(async () => {
  running = await startTestService('extract', {
    API_KEYS: `${KEY}=extractors:pro`,
    // Many requests in a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
  });
  service = running.server;
});

afterAll(async () => {
  await running.close();
});

async function upload(
  fields: Record<string, string>,
  query = '',
  path = '/v1/parse/upload',
): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([INVOICE], { type: 'image/png' }), 'invoice.png');
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return fetch(`${service.url}${path}${query}`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
}

describe('extraction on the invoice image', () => {
  it('hybrid: answers the Markdown pages and the filled schema, valid, in one response', async () => {
    // Act
    const res = await upload({
      operation_mode: 'hybrid',
      extraction_schema: JSON.stringify(INVOICE_SCHEMA),
    });
    // Assert
    expect(res.status).toBe(200);
    const body = ParseResponse.parse(await res.json());
    expect(body.pages[0]?.content_markdown).toMatch(/INVOICE/);
    expect(body.extracted).toMatchObject({ subtotal: 155, total: 182.9 });
    const items = body.extracted?.line_items as Record<string, unknown>[];
    expect(items.map((item) => item.total)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(items[0]).toMatchObject({ from: 'MASCOT', to: 'SYDENHAM' });
    expect(body.errors).toEqual([]);
    expect(body).toMatchObject({
      extraction: { provider_id: 'local-extract', model_id: 'docparse-extract-1' },
    });
  });

  it('extract: answers the object, with pages that keep their accounting but not their content', async () => {
    // Act
    const res = await upload({
      operation_mode: 'extract',
      extraction_schema: JSON.stringify(INVOICE_SCHEMA),
    });
    // Assert
    expect(res.status).toBe(200);
    const body = ParseResponse.parse(await res.json());
    expect(body.extracted).toMatchObject({ total: 182.9 });
    expect(body.pages).toHaveLength(1);
    expect(body.pages[0]).toMatchObject({
      page_number: 1,
      content_markdown: '',
      grounding: [],
      provider: 'local-ocr',
    });
  });

  it('attaches each schema failure to errors[] with its RFC 6901 pointer, never the value', async () => {
    // Act
    const res = await upload({
      operation_mode: 'hybrid',
      extraction_schema: JSON.stringify(STRICTER_SCHEMA),
    });
    // Assert
    expect(res.status).toBe(200);
    const body = ParseResponse.parse(await res.json());
    const failures = body.errors.map((e) => e.extraction_validation);
    expect(failures).toContainEqual({
      pointer: '/purchase_order',
      schema_rule: 'required',
      message: expect.any(String) as unknown,
    });
    // Rows 6 to 10 cost 16 to 20, over the maximum of 15.
    const overMaximum = failures.filter((f) => f.schema_rule === 'maximum').map((f) => f.pointer);
    expect(overMaximum).toEqual([5, 6, 7, 8, 9].map((row) => `/line_items/${row}/total`));
    for (const failure of failures) {
      expect(failure.message).not.toMatch(/\b(16|17|18|19|20)\b/);
    }
  });

  it('with extraction_strict, answers 422 whose body is the list of failures', async () => {
    // Act
    const res = await upload(
      { operation_mode: 'hybrid', extraction_schema: JSON.stringify(STRICTER_SCHEMA) },
      '?extraction_strict=true',
    );
    // Assert
    expect(res.status).toBe(422);
    const body = (await res.json()) as { extraction_validation: unknown }[];
    expect(Array.isArray(body)).toBe(true);
    const failures = body.map((entry) =>
      ExtractionValidationError.parse(entry.extraction_validation),
    );
    expect(failures.map((f) => [f.pointer, f.schema_rule])).toEqual(
      expect.arrayContaining([
        ['/purchase_order', 'required'],
        ['/line_items/5/total', 'maximum'],
        ['/line_items/9/total', 'maximum'],
      ]),
    );
  });

  it('streams the extraction in result.final on POST /v1/parse/stream', async () => {
    // Act
    const res = await upload(
      { operation_mode: 'hybrid', extraction_schema: JSON.stringify(INVOICE_SCHEMA) },
      '',
      '/v1/parse/stream',
    );
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event) });
    parser.feed(await res.text());
    // Assert
    expect(res.status).toBe(200);
    const last = JSON.parse(events.at(-1)?.data ?? '{}') as { event: string; payload: unknown };
    expect(last.event).toBe('result.final');
    expect(ParseResponse.parse(last.payload).extracted).toMatchObject({ total: 182.9 });
  });

  it.each([
    ['extract without a schema', { operation_mode: 'extract' }, /needs an extraction_schema/],
    [
      'a schema in ocr mode',
      { operation_mode: 'ocr', extraction_schema: JSON.stringify(INVOICE_SCHEMA) },
      /only used by operation_mode extract or hybrid/,
    ],
    [
      'a schema that is not valid JSON Schema',
      {
        operation_mode: 'hybrid',
        extraction_schema: JSON.stringify({ type: 'object', properties: { total: { type: 7 } } }),
      },
      /not a valid JSON Schema/,
    ],
    [
      'a schema whose root is not an object',
      { operation_mode: 'extract', extraction_schema: JSON.stringify({ type: 'array' }) },
      /object/,
    ],
  ])('refuses %s with 422 before parsing', async (_, fields, detail) => {
    // Act
    const res = await upload(fields);
    // Assert
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: unknown };
    expect(String(body.detail)).toMatch(detail);
  });

  it('refuses schema text that is not JSON with a validation error naming the field', async () => {
    // Act
    const res = await upload({ operation_mode: 'hybrid', extraction_schema: '{"type":' });
    // Assert
    expect(res.status).toBe(422);
    const body = HTTPValidationError.parse(await res.json());
    expect(body.detail[0]?.loc).toContain('extraction_schema');
  });
});
