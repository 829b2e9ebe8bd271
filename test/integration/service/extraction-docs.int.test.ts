import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';
import { runDocCommand } from '../../support/doc-examples.js';
import { startTestService, type TestService } from '../../support/local-service.js';

/**
 * The structured extraction example of docs/api.md, run as it is written (bash and curl) against
 * the local service: on the example invoice it answers what the page shows, and on the transport
 * invoice image of the dev corpus (zerox-0012, whose table has a Rate column of amounts beside its
 * Date column) no date field holds an amount.
 */

const ROOT = join(import.meta.dirname, '../../..');
const EXAMPLE_FILE = 'examples/invoice.pdf';
const TRANSPORT_INVOICE = corpusPath('dev/files/zerox-0012.png');

/** The `sh` block of docs/api.md's structured extraction section, and the JSON shown after it. */
function docsExample(): { command: string; shown: unknown } {
  const api = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
  const section = api.split(/^## /m).find((part) => part.startsWith('Structured extraction'));
  const command = section?.match(/```sh\n([\s\S]*?)```/)?.[1];
  const shown = section?.match(/```json\n([\s\S]*?)```/)?.[1];
  if (command === undefined || shown === undefined) {
    throw new Error('docs/api.md has no sh and json blocks under "## Structured extraction"');
  }
  return { command, shown: JSON.parse(shown) };
}

let running: TestService;

/** Runs `command` as bash runs it, against this test's server, with the demo key it created. */
async function run(command: string): Promise<ParseResponse> {
  const { stdout } = await runDocCommand(command, running);
  return ParseResponse.parse(JSON.parse(stdout));
}

const CURRENCY = /[$€£¥₹]|\b\d+[.,]\d{2}\b/;

beforeAll(async () => {
  // No API_KEYS: the first start creates the demo key the example reads, as `npm start` does.
  running = await startTestService('extraction-docs', {});
});

afterAll(async () => {
  await running.close();
});

describe("docs/api.md's structured extraction example", () => {
  it('uploads the example invoice in hybrid mode with a schema of dated line items', () => {
    // Act
    const { command } = docsExample();
    // Assert
    expect(command).toContain(`-F file=@${EXAMPLE_FILE}`);
    expect(command).toContain('-F operation_mode=hybrid');
    expect(command).toMatch(/"date":\{"type":"string","format":"date"\}/);
  });

  it('answers the extracted object the page shows, with no validation error', async () => {
    // Arrange
    const { command, shown } = docsExample();
    // Act
    const body = await run(command);
    // Assert
    expect(body.extracted).toEqual(shown);
    expect(body.errors).toEqual([]);
    expect(body.extraction).toMatchObject({ provider_id: 'local-extract' });
  });

  it('fills no date with an amount on the transport invoice image (zerox-0012)', async () => {
    // Arrange
    const { command } = docsExample();
    // Act
    const body = await run(command.replace(EXAMPLE_FILE, TRANSPORT_INVOICE));
    // Assert
    const items = body.extracted?.line_items as Record<string, unknown>[];
    expect(items.length).toBeGreaterThanOrEqual(10);
    const dates = items.flatMap((item) => ('date' in item ? [item.date] : []));
    // The OCR reads most of the Date column; every date given is an ISO date of that column.
    const onPage = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((d) => `2017-0${String(d)}-0${String(d)}`);
    expect(dates.length).toBeGreaterThanOrEqual(5);
    for (const date of dates) {
      expect(date).not.toMatch(CURRENCY);
      expect([...onPage, '2017-05-15']).toContain(date);
    }
    expect(body.errors).toEqual([]);
  });

  it.each([
    ['a date-formatted field', { type: 'string', format: 'date' }],
    ['a string field named date', { type: 'string' }],
  ])(
    'fills %s beside weight and total from the Date column of zerox-0012, never the Rate column',
    async (_, date) => {
      // Arrange: the schema of the report that got {"weight": 187, "date": "$11.00", "total": 11}.
      const schema = {
        type: 'object',
        properties: {
          line_items: {
            type: 'array',
            items: {
              type: 'object',
              properties: { weight: { type: 'number' }, date, total: { type: 'number' } },
            },
          },
        },
      };
      const command = docsExample()
        .command.replace(EXAMPLE_FILE, TRANSPORT_INVOICE)
        .replace(
          /-F 'extraction_schema=[^']*'/,
          `-F 'extraction_schema=${JSON.stringify(schema)}'`,
        );
      // Act
      const body = await run(command);
      // Assert
      const items = body.extracted?.line_items as Record<string, unknown>[];
      expect(items.map((item) => item.total)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
      expect(items[0]).toMatchObject({ weight: 187, total: 11 });
      for (const item of items) {
        if ('date' in item) expect(item.date).not.toMatch(CURRENCY);
      }
    },
  );
});
