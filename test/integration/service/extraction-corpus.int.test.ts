import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsObjectStore } from '../../../functions/adapters/local/fs-object-store.js';
import { loadConfig } from '../../../functions/config.js';
import { compileExtractionSchema } from '../../../functions/core/domain/extraction/extraction-schema.js';
import type { DocumentFormat } from '../../../functions/core/domain/schemas.js';
import type { DocumentRef } from '../../../functions/core/ports/document-engine.js';
import type { JsonSchemaObject } from '../../../functions/core/ports/structured-extractor.js';
import { buildEngines, type EmbeddedEngines } from '../../../functions/engines/embedded-engines.js';
import { OfflineExtractor } from '../../../functions/engines/extraction/offline-extractor.js';
import { corpusPath } from '../../support/corpus.js';

const FILES = corpusPath('dev/files');

let dataDir: string;
let engines: EmbeddedEngines;
let objects: FsObjectStore;
const parsed = new Map<string, { ref: DocumentRef; markdown: string }>();

/** Stores a corpus file and reads its first page with the offline OCR provider. */
async function ocr(file: string, format: DocumentFormat) {
  const bytes = readFileSync(join(FILES, file));
  const ref = {
    key: `corpus/${file}`,
    format,
    hash: createHash('sha256').update(bytes).digest('hex'),
  };
  await objects.put(ref.key, bytes);
  const engine = engines.engineFor(format);
  if (!engine) throw new Error(`no engine for ${format}`);
  await engine.open(ref);
  const { profile } = await engine.inspect(ref, [1]);
  const provider = engines.runtime.local.get('local-ocr');
  if (!provider) throw new Error('no local-ocr provider');
  const page = await provider.parsePage({
    document: ref,
    pageNumber: 1,
    dpi: null,
    profile,
    maintainFormat: true,
  });
  parsed.set(file, { ref, markdown: page.markdown });
}

/** Runs the offline extractor on a parsed corpus file and validates its answer against `schema`. */
async function extract(file: string, schema: JsonSchemaObject) {
  const document = parsed.get(file);
  if (!document) throw new Error(`${file} was not parsed`);
  const result = await new OfflineExtractor().extract({
    schema,
    pages: [{ pageNumber: 1, markdown: document.markdown }],
    document: document.ref,
  });
  return { ...result, errors: compileExtractionSchema(schema).validate(result.data) };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'docparse-extraction-'));
  const config = loadConfig({ RUNTIME_MODE: 'local', DATA_DIR: dataDir, PORT: '0' });
  objects = new FsObjectStore(join(dataDir, 'objects'));
  engines = buildEngines(config, objects);
  // Scans and photos: the embedded OCR (tesseract) gives the Markdown, as in production.
  await ocr('zerox-0012.png', 'png');
  await ocr('zerox-0011.png', 'png');
  await ocr('zerox-0002.pdf', 'pdf');
});

afterAll(async () => {
  await engines.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const string = { type: 'string' };
const number = { type: 'number' };
const isoDate = { type: 'string', format: 'date' };

describe('offline extraction over OCR of the dev corpus (real engines)', () => {
  it('reads the invoice totals and its line items table (zerox-0012, a transport invoice image)', async () => {
    // Arrange
    const schema = {
      type: 'object',
      properties: {
        title: string,
        subtotal: number,
        tax: number,
        total: number,
        line_items: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              date: isoDate,
              cust_ref: string,
              from: string,
              to: string,
              weight: number,
              total: number,
            },
          },
        },
      },
      required: ['total', 'line_items'],
    };
    // Act
    const { data, model, tokens, errors } = await extract('zerox-0012.png', schema);
    // Assert
    expect(errors).toEqual([]);
    expect({ model, tokens }).toEqual({
      model: 'docparse-extract-1',
      tokens: { input: 0, output: 0 },
    });
    expect(data).toMatchObject({ title: 'INVOICE', subtotal: 155, tax: 15.5, total: 182.9 });
    const items = data.line_items as Record<string, unknown>[];
    expect(items).toHaveLength(10);
    // The OCR reads the merged "Cubic Weight" header and the truncated "tal" (Total) header.
    expect(items.map((item) => item.total)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(items[0]).toMatchObject({ from: 'MASCOT', to: 'SYDENHAM', weight: 187, total: 11 });
    expect(items[1]).toMatchObject({ from: 'ALEXANDRIA', weight: 1086, total: 12 });
    expect(items[5]).toMatchObject({
      date: '2017-06-06',
      from: 'PORT BOTANY',
      to: 'EAST BOTANY',
      weight: 102,
      total: 16,
    });
    expect(items[8]).toEqual({
      date: '2017-09-09',
      cust_ref: 'ref#1',
      from: 'MASCOT',
      to: 'TEMPE',
      weight: 821,
      total: 19,
    });
    // Dates whose slashes the OCR read as digits ("11172017" for 1/1/2017) are repaired from the
    // dates of their column; one it cannot repair ("70712017", a 0 for a slash) is left out
    // rather than guessed. Every date given is the page's.
    const onPage = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((d) => `2017-0${d}-0${d}`).concat('2017-05-15');
    expect(items[0]).toMatchObject({ date: '2017-01-01' });
    const dated = items.flatMap((item, i) => ('date' in item ? [[item.date, onPage[i]]] : []));
    expect(dated.length).toBeGreaterThanOrEqual(8);
    for (const [given, truth] of dated) expect(given).toBe(truth);
  });

  it('reads the bill of lading fields, checkboxes and third-party block (zerox-0011, a form image)', async () => {
    // Arrange
    const party = {
      type: 'object',
      properties: { name: string, address: string, phone: string, location_type: string },
    };
    const schema = {
      type: 'object',
      properties: {
        ship_date: isoDate,
        bill_of_lading_number: { type: 'string', pattern: '^[0-9]+$' },
        carrier_name: string,
        pickup_hours: string,
        customer_po: { type: ['string', 'null'] },
        freight_charges_term: { enum: ['prepaid', 'collect', '3rd party'] },
        master_bol: { type: 'boolean' },
        ship_from: party,
        third_party_bill_to: party,
        special_instructions: string,
      },
      required: ['ship_date', 'bill_of_lading_number', 'carrier_name'],
    };
    // Act
    const { data, errors } = await extract('zerox-0011.png', schema);
    // Assert
    expect(errors).toEqual([]);
    expect(data).toMatchObject({
      ship_date: '2021-09-13',
      bill_of_lading_number: '21099992723',
      carrier_name: 'EXAMPLE CARRIER',
      pickup_hours: '9:00AM to 5:00PM',
      customer_po: null,
      freight_charges_term: '3rd party',
      master_bol: false,
      third_party_bill_to: {
        name: 'Freightera Logistics Inc.',
        address: '408 - 55 Water Street, Office 8036 Vancouver, BC V6B 1A1',
        phone: '800-866-4870',
      },
    });
    expect(data.special_instructions).toContain('Please call 15 minutes before pickup');
    // The "Ship From" / "Ship To" titles sit on dark bands, read apart: the block under
    // "Ship From" gives its labelled fields (its unlabelled name and address lines are not taken).
    expect(data.ship_from).toMatchObject({
      location_type: 'Business without Dock or Forklift',
      phone: '(123) 456-7890',
    });
  });

  it('reads the audit sign-in sheet header and attendees (zerox-0002, a scanned PDF form)', async () => {
    // Arrange
    const schema = {
      type: 'object',
      properties: {
        audit_date: isoDate,
        supplier: string,
        contact_person: string,
        phone_number: string,
        auditor: string,
        attendees: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              job_title: string,
              email: { type: 'string', format: 'email' },
            },
          },
        },
      },
    };
    // Act
    const { data, errors } = await extract('zerox-0002.pdf', schema);
    // Assert
    expect(errors).toEqual([]);
    expect(data).toMatchObject({
      audit_date: '2024-10-02',
      contact_person: 'Kathy Margaret',
      phone_number: '+14 22 045 4952',
    });
    expect(data.supplier).toMatch(/^BioTech Innovations \(Pty\) Ltd; 67 River Rd, Kensington/);
    expect(data.auditor).toMatch(/^David Thompson, Lead Quality Auditor/);
    const attendees = data.attendees as Record<string, unknown>[];
    // Job titles the ground truth's attendee table lists: the OCR reads two of them cleanly.
    const truth = readFileSync(corpusPath('dev/gt/zerox-0002.md'), 'utf8');
    const titles = new Set(
      truth
        .split('\n')
        .filter((line) => /^\|\s*\d+\s*\|/.test(line))
        .map((line) => line.split('|')[3]?.trim())
        .filter((title): title is string => Boolean(title)),
    );
    const found = attendees.map((a) => a.job_title).filter((t) => titles.has(String(t)));
    expect(found.length).toBeGreaterThanOrEqual(2);
    // The handwritten emails come out of the OCR unreadable; none passes as an email address.
    expect(attendees.filter((a) => 'email' in a)).toEqual([]);
  });
});
