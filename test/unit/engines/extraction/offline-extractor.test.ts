import { describe, expect, it } from 'vitest';
import { compileExtractionSchema } from '../../../../functions/core/domain/extraction/extraction-schema.js';
import { countSearchedProperties } from '../../../../functions/core/domain/extraction/schema-shape.js';
import type { JsonSchemaObject } from '../../../../functions/core/ports/structured-extractor.js';
import { checkboxesOf } from '../../../../functions/engines/extraction/checkboxes.js';
import { coerceValue } from '../../../../functions/engines/extraction/coerce.js';
import {
  fillSchema,
  fillSchemaSteps,
} from '../../../../functions/engines/extraction/fill-schema.js';
import {
  labelTokens,
  matchScore,
} from '../../../../functions/engines/extraction/label-matching.js';
import { labelledValues } from '../../../../functions/engines/extraction/labelled-values.js';
import { OfflineExtractor } from '../../../../functions/engines/extraction/offline-extractor.js';
import { parseDocument } from '../../../../functions/engines/extraction/read-markdown.js';
import {
  parseBoolean,
  parseNumber,
  toIsoDate,
} from '../../../../functions/engines/extraction/value-formats.js';

const md = (...lines: string[]): string => lines.join('\n');
const page = (markdown: string, pageNumber = 1) => ({ pageNumber, markdown });
const fill = (schema: JsonSchemaObject, ...markdown: string[]) =>
  fillSchema(
    schema,
    markdown.map((text, i) => page(text, i + 1)),
  );
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});
const string = { type: 'string' };
const number = { type: 'number' };

/** A bill of lading as a vision model writes it. */
const billOfLading = md(
  '# Bill of Lading',
  '',
  '**Ship Date** September 13, 2021  ',
  '**Bill of Lading Number:** 21099992723  ',
  '',
  '---',
  '',
  '## Ship From',
  '',
  '**Example Pick Up Company**  ',
  '123 Pick Up Street  ',
  'Vancouver, BC V5K 0A4, Canada  ',
  '**Location Type:** Business without Dock or Forklift  ',
  '(123) 456-7890 (Example Pick Up Contact)  ',
  '**SID#:** N/A  ',
  '',
  '## Ship To',
  '',
  '**Example Delivery Company**  ',
  '123 Delivery Street  ',
  'Toronto, ON M1B 0A1, Canada  ',
  '**Location Type:** Business with Dock or Forklift  ',
  'Email: receiving@example.com  ',
  '',
  '## Carrier Information',
  '',
  '**Carrier Name:** EXAMPLE CARRIER  ',
  '**Seal Number(s):**  ',
  '',
  '**Freight Charges Term** (prepaid unless otherwise marked)',
  '',
  '- [ ] Prepaid',
  '- [ ] Collect',
  '- [x] 3rd Party',
  '',
  '- [ ] Master BOL with underlying BOLs',
  '',
  '## Special Instructions',
  '',
  '- **Shipper:** Please call 15 minutes before pickup',
);

describe('OfflineExtractor', () => {
  it('fills the schema from the pages and spends no tokens', async () => {
    // Arrange
    const extractor = new OfflineExtractor();
    // Act
    const result = await extractor.extract({
      schema: object({ invoice_number: string }),
      pages: [page('Invoice No.: A-17')],
      document: { key: 'k', format: 'pdf', hash: 'h' },
    });
    // Assert
    expect(extractor.id).toBe('local-extract');
    expect(result).toEqual({
      data: { invoice_number: 'A-17' },
      model: 'docparse-extract-1',
      tokens: { input: 0, output: 0 },
    });
  });
});

describe('OfflineExtractor: a large schema against a long document', () => {
  const fields = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`field_${String(i)}`, string]));
  const longDocument = Array.from(
    { length: 2000 },
    (_, i) => `Label ${String(i)}: value ${String(i)}`,
  ).join('\n');

  it('pauses after each property and every 256 labelled values searched', () => {
    // Arrange
    const steps = fillSchemaSteps(object(fields(3)), [page(longDocument)]);
    // Act
    let pauses = 0;
    let step = steps.next();
    while (step.done !== true) {
      pauses++;
      step = steps.next();
    }
    // Assert: the document parsed, then per property 2000 / 256 pauses in its labels, 2000 / 256
    // in its lines, and one after it
    expect(pauses).toBe(1 + 3 * (7 + 7 + 1));
    expect(step.value).toEqual(fill(object(fields(3)), longDocument));
  });

  it('lets other callbacks of the event loop run while it works, and fills as fillSchema does', async () => {
    // Arrange
    const extractor = new OfflineExtractor({ sliceMs: 0 });
    const schema = object({ ...fields(20), label_7: string });
    const events: string[] = [];
    // Act
    const extraction = extractor
      .extract({
        schema,
        pages: [page(longDocument)],
        document: { key: 'k', format: 'md', hash: 'h' },
      })
      .then((result) => {
        events.push('extracted');
        return result;
      });
    setImmediate(() => events.push('other work'));
    const result = await extraction;
    // Assert
    expect(events).toEqual(['other work', 'extracted']);
    expect(result.data).toEqual({ label_7: 'value 7' });
    expect(result.data).toEqual(fill(schema, longDocument));
  });

  it('counts the properties it searches, once per place a reference brings them in', () => {
    // Arrange
    const address = object({ street: string, city: string, zip: string });
    const schema = {
      ...object({
        total: { type: 'number' },
        ship_to: { $ref: '#/$defs/address' },
        bill_to: { allOf: [{ $ref: '#/$defs/address' }] },
        lines: { type: 'array', items: object({ sku: string, qty: { type: 'number' } }) },
      }),
      $defs: { address },
    };
    // Act
    const count = countSearchedProperties(schema, 500);
    // Assert: 4 at the root, 3 + 3 in the addresses, 2 in the items
    expect(count).toBe(12);
  });

  it('stops counting just past the limit, for a definition that includes itself without end', () => {
    // Arrange
    const schema = {
      ...object({ root: { $ref: '#/$defs/node' } }),
      $defs: {
        node: object({
          a: { $ref: '#/$defs/node' },
          b: { $ref: '#/$defs/node' },
          c: { $ref: '#/$defs/node' },
        }),
      },
    };
    // Act
    const count = countSearchedProperties(schema, 500);
    // Assert
    expect(count).toBe(501);
  });

  it('fills a property whose definition lists itself three times in allOf', () => {
    // Arrange: expanded branch by branch to a depth of 16, that is 3^16 resolutions
    const schema = {
      ...object({ totals: { $ref: '#/$defs/totals' } }),
      $defs: {
        totals: {
          allOf: [
            { $ref: '#/$defs/totals' },
            { $ref: '#/$defs/totals' },
            { $ref: '#/$defs/totals' },
            object({ grand_total: { type: 'number' } }),
          ],
        },
      },
    };
    // Act
    const data = fill(schema, md('## Totals', '', 'Grand total: 12.50'));
    // Assert
    expect(data).toEqual({ totals: { grand_total: 12.5 } });
  });
});

describe('fillSchema: labelled values', () => {
  it('does what its documentation example says', () => {
    // Arrange
    const schema = object({ invoiceNumber: string, total: number });
    // Act
    const data = fill(schema, '**Invoice No.:** A-17\n\nTotal due: $1,250.00');
    // Assert
    expect(data).toEqual({ invoiceNumber: 'A-17', total: 1250 });
  });

  it('matches labels to property names through synonyms and casing styles', () => {
    // Arrange
    const schema = object({
      invoiceNumber: string,
      po_number: string,
      'phone-number': string,
      email: string,
      total: number,
    });
    const text = md(
      '**Invoice #:** A-17',
      'Purchase Order No.: PO-9',
      'Tel: (555) 010-2030',
      'E-mail: billing@example.com',
      'Amount Due: $1,250.00',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({
      invoiceNumber: 'A-17',
      po_number: 'PO-9',
      'phone-number': '(555) 010-2030',
      email: 'billing@example.com',
      total: 1250,
    });
  });

  it('uses the title and a short description of a property', () => {
    // Arrange
    const schema = object({
      f1: { type: 'string', title: 'Customer Reference' },
      f2: { type: 'string', description: 'Vendor' },
      f3: {
        type: 'string',
        description: 'The long description of a field nobody labels like this.',
      },
    });
    // Act
    const data = fill(schema, md('Cust. Ref: C-1', 'Supplier: Acme Ltd', 'Field: x'));
    // Assert
    expect(data).toEqual({ f1: 'C-1', f2: 'Acme Ltd' });
  });

  it('reads several labels on one line, and a label whose value is on the next line', () => {
    // Arrange
    const schema = object({
      carrier_name: string,
      trailer_number: string,
      contact_person: string,
      phone_number: string,
      name: string,
      date: string,
      supplier: string,
    });
    const text = md(
      'Carrier Name: EXAMPLE CARRIER Trailer Number: T-77',
      'Contact Person: Kathy Margaret Phone Number: +14 22 045 4952',
      'Name: John Smith Date: 2020-01-01',
      '',
      'Supplier:',
      'BioTech Innovations (Pty) Ltd',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({
      carrier_name: 'EXAMPLE CARRIER',
      trailer_number: 'T-77',
      contact_person: 'Kathy Margaret',
      phone_number: '+14 22 045 4952',
      name: 'John Smith',
      date: '2020-01-01',
      supplier: 'BioTech Innovations (Pty) Ltd',
    });
  });

  it('reads a label without a colon at the start of a line', () => {
    // Arrange
    const schema = object({ ship_date: { type: 'string', format: 'date' } });
    // Act
    const data = fill(schema, 'Ship Date September 13, 2021');
    // Assert
    expect(data).toEqual({ ship_date: '2021-09-13' });
  });

  it('prefers the exact label to a close one', () => {
    // Arrange
    const schema = object({ total: number, subtotal: number });
    // Act
    const data = fill(schema, md('Subtotal: 155.00', 'Total: 182.90'));
    // Assert
    expect(data).toEqual({ total: 182.9, subtotal: 155 });
  });

  it('tolerates OCR slips in a label', () => {
    // Arrange
    const schema = object({ invoice_number: string });
    // Act
    const data = fill(schema, 'Invoce Numbr: 889');
    // Assert
    expect(data).toEqual({ invoice_number: '889' });
  });

  it('matches a label with one qualifier more than a specific property name', () => {
    // Arrange
    const schema = object({ auditor: string, name: string });
    // Act
    const data = fill(schema, md('QAC Auditor: David Thompson', 'Company Name: Acme'));
    // Assert
    expect(data).toEqual({ auditor: 'David Thompson' });
  });

  it('leaves out what the document does not say, and never fills defaults', () => {
    // Arrange
    const schema = object({
      invoice_number: string,
      currency: { type: 'string', default: 'USD' },
      due_date: { type: 'string', format: 'date' },
    });
    // Act
    const data = fill(schema, md('Invoice Number: 7', 'Due Date: upon receipt'));
    // Assert
    expect(data).toEqual({ invoice_number: '7' });
  });

  it('gives null for "N/A" only when the schema allows null', () => {
    // Arrange
    const schema = object({
      pro_number: { type: ['string', 'null'] },
      quote_number: string,
      customer_po: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    });
    // Act
    const data = fill(schema, md('Pro Number: N/A', 'Quote#: N/A', 'Customer PO#: n/a'));
    // Assert
    expect(data).toEqual({ pro_number: null, customer_po: null });
  });

  it('reads a label under a heading together with the heading', () => {
    // Arrange
    const schema = object({ carrier_name: string });
    // Act
    const data = fill(
      schema,
      md('## Carrier', '', 'Name: Fast Freight', '', '## Notes', '', 'Note: x'),
    );
    // Assert
    expect(data).toEqual({ carrier_name: 'Fast Freight' });
  });

  it('takes the first heading as the document title', () => {
    // Arrange
    const schema = object({ title: string });
    // Act
    const data = fill(schema, md('Acme Pty Ltd', '', '## Details', '', '# INVOICE'));
    // Assert
    expect(data).toEqual({ title: 'INVOICE' });
  });

  it('takes the first paragraph of a matching section for a string', () => {
    // Arrange
    const schema = object({ special_instructions: string, seal_number: string });
    const text = md(
      '**Seal Number:**',
      '',
      'Pro: 1',
      '',
      '## Special Instructions',
      '',
      'Call first.',
      'Gate 4.',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({ special_instructions: 'Call first. Gate 4.' });
  });

  it('returns an empty object when nothing matches', () => {
    // Act
    const data = fill(object({ total: number }), md('# Letter', '', 'Dear reader,'));
    // Assert
    expect(data).toEqual({});
  });
});

describe('fillSchema: tables', () => {
  it('reads a two-column table as labels and values, its header row too', () => {
    // Arrange
    const schema = object({ subtotal: number, tax: number, total: number });
    const text = md(
      '| SUBTOTAL | 155.00 |',
      '|---|---|',
      '| GST 10.00% | 15.50 |',
      '| TOTAL | 182.90 |',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({ subtotal: 155, tax: 15.5, total: 182.9 });
  });

  it('takes the last number after a label in a narrow table', () => {
    // Arrange
    const schema = object({ tax: number, bank: string });
    const text = md(
      '| | GST | 10.00% | 15.50 |',
      '|---|---|---|---|',
      '| Bank: First Bank | | | |',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({ tax: 15.5, bank: 'First Bank' });
  });

  it('reads a one-row table as header and value pairs', () => {
    // Arrange
    const schema = object({ invoice_number: string, due_date: { type: 'string', format: 'date' } });
    const text = md('| Invoice # | Due Date |', '| --- | --- |', '| 0042 | 1/2/2024 |');
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({ invoice_number: '0042', due_date: '2024-01-02' });
  });

  it('maps an array of objects to the table whose headers match, converting each cell', () => {
    // Arrange
    const schema = object({
      line_items: {
        type: 'array',
        items: object({
          description: string,
          quantity: { type: 'integer' },
          unit_price: number,
          amount: number,
        }),
      },
    });
    const text = md(
      '| Name | Phone |',
      '|---|---|',
      '| Ann | 1 |',
      '',
      '| Desc | Qty | Unit Price | Amount |',
      '|---|---|---|---|',
      '| Consulting, March | 10 | 120.00 | 1,200.00 |',
      '| Travel \\| hotel | 1 | 85.50 | 85.50 |',
      '| Desc | Qty | Unit Price | Amount |',
      '| | | | |',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({
      line_items: [
        { description: 'Consulting, March', quantity: 10, unit_price: 120, amount: 1200 },
        { description: 'Travel | hotel', quantity: 1, unit_price: 85.5, amount: 85.5 },
      ],
    });
  });

  it('chooses among tables with the same headers by their caption', () => {
    // Arrange
    const schema = object({
      attendees: { type: 'array', items: object({ name: string, email: string }) },
    });
    const text = md(
      'Absent:',
      '',
      '| Name | Email |',
      '|---|---|',
      '| Bob | bob@example.com |',
      '',
      '**Opening Meeting Attendees:**',
      '',
      '| Name | Email |',
      '|---|---|',
      '| Ann | ann@example.com |',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({ attendees: [{ name: 'Ann', email: 'ann@example.com' }] });
  });

  it('does not continue a table with a table of another caption on a later page', () => {
    // Arrange
    const schema = object({
      attendees: { type: 'array', items: object({ name: string, email: string }) },
    });
    const first = md(
      'Attendees:',
      '',
      '| Name | Email |',
      '|---|---|',
      '| Ann | ann@example.com |',
    );
    const second = md('Absent:', '', '| Name | Email |', '|---|---|', '| Bob | bob@example.com |');
    // Act
    const data = fill(schema, first, second);
    // Assert
    expect(data).toEqual({ attendees: [{ name: 'Ann', email: 'ann@example.com' }] });
  });

  it('continues a table on the next page when the header repeats', () => {
    // Arrange
    const schema = object({
      items: { type: 'array', items: object({ sku: string, qty: { type: 'integer' } }) },
    });
    const first = md('| SKU | Qty |', '|---|---|', '| A-1 | 2 |');
    const second = md('| SKU | Qty |', '|---|---|', '| B-2 | 3 |');
    // Act
    const data = fill(schema, first, second);
    // Assert
    expect(data).toEqual({
      items: [
        { sku: 'A-1', qty: 2 },
        { sku: 'B-2', qty: 3 },
      ],
    });
  });

  it('reads HTML tables, splitting a merged header over the columns it spans', () => {
    // Arrange
    const schema = object({
      rows: {
        type: 'array',
        items: object({
          date: { type: 'string', format: 'date' },
          cubic: number,
          weight: number,
          total: number,
        }),
      },
    });
    const text = md(
      '<table>',
      '<tr><th>LETEY</th><th colspan="2">Cubic Weight</th><th>tal</th><th>Rate</th></tr>',
      '<tr><td>6/6/2017</td><td>0.300</td><td>102</td><td>$16.00</td><td>$1.00</td></tr>',
      '<tr><td>11172017</td><td>0.500</td><td>187</td><td>$11.00</td><td>$2.00</td></tr>',
      '<tr><td>9/9/2017</td><td>1.700</td><td>821</td><td>$19.00 &amp; more</td><td>x</td></tr>',
      '</table>',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({
      rows: [
        { date: '2017-06-06', cubic: 0.3, weight: 102, total: 16 },
        { cubic: 0.5, weight: 187, total: 11 },
        { date: '2017-09-09', cubic: 1.7, weight: 821 },
      ],
    });
  });

  it('spreads HTML rowspans down the rows they cover', () => {
    // Arrange
    const schema = object({
      stops: { type: 'array', items: object({ city: string, stop: string }) },
    });
    const text = md(
      '<table><tr><th>City</th><th>Stop</th></tr>',
      '<tr><td rowspan="2">Sydney</td><td>Mascot</td></tr>',
      '<tr><td>Tempe</td></tr></table>',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({
      stops: [
        { city: 'Sydney', stop: 'Mascot' },
        { city: 'Sydney', stop: 'Tempe' },
      ],
    });
  });

  it('finds no array when no table has a matching header', () => {
    // Arrange
    const schema = object({
      items: { type: 'array', items: object({ sku: string }) },
      nested: { type: 'array', items: { type: 'array', items: string } },
      objects: { type: 'array', items: object({ inner: object({ a: string }) }) },
    });
    // Act
    const data = fill(schema, md('| Name | Email |', '|---|---|', '| Bob | b@x.io |'));
    // Assert
    expect(data).toEqual({});
  });
});

describe('fillSchema: format-aware matching', () => {
  /** Transport invoice rows: a rate column beside the date column, as on zerox-0012. */
  const lineItems = (withDate: boolean) => {
    const rows = [
      ['12/31/2024', 'ref#1', '187', '$11.00', '$11.00'],
      ['31 Dec 2024', 'ref#2', '1086', '$12.00', '$12.00'],
      ['Dec 30, 2024', 'ref#3', '117', '$13.00', '$13.00'],
      ['2024-12-29', 'ref#4', '102', '$14.00', '$14.00'],
    ];
    const keep = (cells: string[]) => (withDate ? cells : cells.slice(1));
    return md(
      `| ${keep(['Date', 'Cust Ref', 'Weight', 'Rate', 'Total']).join(' | ')} |`,
      `|${keep(['---', '---', '---', '---', '---']).join('|')}|`,
      ...rows.map((row) => `| ${keep(row).join(' | ')} |`),
    );
  };
  const invoiceSchema = (date: Record<string, unknown>) =>
    object(
      {
        line_items: {
          type: 'array',
          items: object({ weight: number, date, total: number }, { required: ['date', 'total'] }),
        },
      },
      { required: ['line_items'] },
    );
  const isoDate = { type: 'string', format: 'date' };

  it('takes a date-formatted field from the date column, not from the rate column beside it', () => {
    // Act
    const data = fill(invoiceSchema(isoDate), lineItems(true));
    // Assert
    expect(data).toEqual({
      line_items: [
        { weight: 187, date: '2024-12-31', total: 11 },
        { weight: 1086, date: '2024-12-31', total: 12 },
        { weight: 117, date: '2024-12-30', total: 13 },
        { weight: 102, date: '2024-12-29', total: 14 },
      ],
    });
  });

  it.each([
    ['a date-formatted field', isoDate],
    ['a string field named date', string],
  ])(
    'leaves %s out when only the rate column could be read as it, and validation names it',
    (_, date) => {
      // Arrange
      const schema = invoiceSchema(date);
      // Act
      const data = fill(schema, lineItems(false));
      const errors = compileExtractionSchema(schema).validate(data);
      // Assert
      const items = data.line_items as Record<string, unknown>[];
      expect(items).toHaveLength(4);
      expect(items[0]).toEqual({ weight: 187, total: 11 });
      for (const item of items) expect(item).not.toHaveProperty('date');
      expect(errors).toEqual(
        [0, 1, 2, 3].map((row) => ({
          pointer: `/line_items/${String(row)}/date`,
          schema_rule: 'required',
          message: expect.any(String) as unknown,
        })),
      );
    },
  );

  it('reads the date column by its cells when OCR garbled its header, not the rate column', () => {
    // Arrange: the OCR of zerox-0012 that read "Date" as "LETEY" and a date without its slashes.
    const text = md(
      '| LETEY | Weight | Rate | Total |',
      '|---|---|---|---|',
      '| 11172017 | 187 | $11.00 | $11.00 |',
      '| 2/2/2017 | 1086 | $12.00 | $12.00 |',
    );
    // Act
    const data = fill(invoiceSchema(string), text);
    // Assert
    expect(data).toEqual({
      line_items: [
        { weight: 187, date: '11172017', total: 11 },
        { weight: 1086, date: '2/2/2017', total: 12 },
      ],
    });
  });

  it('keeps the text of a string field named date when it reads as a date', () => {
    // Act
    const data = fill(invoiceSchema(string), lineItems(true));
    // Assert
    const items = data.line_items as Record<string, unknown>[];
    expect(items.map((item) => item.date)).toEqual([
      '12/31/2024',
      '31 Dec 2024',
      'Dec 30, 2024',
      '2024-12-29',
    ]);
  });

  it('does not take an amount for a date from a label that is an OCR slip away from its name', () => {
    // Arrange
    const schema = object({ date: string, invoice_date: string, rate: number });
    // Act
    const data = fill(schema, md('Rate: $11.00', 'Invoice Date: $11.00'));
    // Assert
    expect(data).toEqual({ rate: 11 });
  });

  it('maps no column whose cells do not fit the format of the field its header names', () => {
    // Arrange
    const schema = object({
      items: {
        type: 'array',
        items: object({
          id: { type: 'string', format: 'uuid' },
          start: { type: 'string', format: 'time' },
          host: { type: 'string', format: 'ipv4' },
          name: string,
        }),
      },
    });
    const text = md(
      '| ID | Start | Host | Name |',
      '|---|---|---|---|',
      '| ref#1 | $11.00 | 10.0.0.1 | Ann |',
      '| ref#2 | $12.00 | 10.0.0.2 | Bob |',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({
      items: [
        { host: '10.0.0.1', name: 'Ann' },
        { host: '10.0.0.2', name: 'Bob' },
      ],
    });
  });
});

describe('fillSchema: lists and checkboxes', () => {
  it('fills an array of strings from the list under a matching caption', () => {
    // Arrange
    const schema = object({ agenda: { type: 'array', items: string } });
    const text = md(
      'Other:',
      '- x',
      '',
      '**Opening Meeting Agenda:**',
      '',
      '- Introductions',
      '',
      '- Review of audit agenda',
      '1. Confirmation of availability',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({
      agenda: ['Introductions', 'Review of audit agenda', 'Confirmation of availability'],
    });
  });

  it('fills an array of strings from the list of the section whose heading names it', () => {
    // Arrange
    const schema = object({ agenda: { type: 'array', items: string } });
    const text = md(
      '# Notes',
      '',
      '- Bring a laptop',
      '',
      '## Agenda',
      '',
      'We will go through these in order.',
      '',
      '- Introductions',
      '- Review of audit agenda',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({ agenda: ['Introductions', 'Review of audit agenda'] });
  });

  it('fills an array of strings from a table column', () => {
    // Arrange
    const schema = object({
      emails: { type: 'array', items: { type: 'string', format: 'email' } },
    });
    const text = md('| Name | Email |', '|---|---|', '| Ann | ann@example.com |', '| Bob | none |');
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({ emails: ['ann@example.com'] });
  });

  it('fills an enum from the one checked box of a group naming its values', () => {
    // Arrange
    const schema = object({
      freight_charges_term: { type: 'string', enum: ['prepaid', 'collect', '3rd party'] },
    });
    // Act
    const data = fill(schema, billOfLading);
    // Assert
    expect(data).toEqual({ freight_charges_term: '3rd party' });
  });

  it('reads OCR renderings of boxes on one line', () => {
    // Arrange
    const schema = object({ term: { enum: ['Prepaid', 'Collect', '3rd Party'] } });
    // Act
    const data = fill(schema, '[[] Prepaid [] collect [¢/] 3rd Party [[] Master BOL');
    // Assert
    expect(data).toEqual({ term: '3rd Party' });
  });

  it('leaves an enum out when two of its boxes are checked', () => {
    // Arrange
    const schema = object({ term: { enum: ['prepaid', 'collect'] } });
    // Act
    const data = fill(schema, md('- [x] Prepaid', '- [x] Collect'));
    // Assert
    expect(data).toEqual({});
  });

  it('accepts a single matching box when the line before names the property', () => {
    // Arrange
    const schema = object({ hazmat: { enum: ['yes', 'no'] } });
    // Act
    const data = fill(schema, md('Hazmat?', '☐ No ☑ Yes'));
    // Assert
    expect(data).toEqual({ hazmat: 'yes' });
  });

  it('fills booleans from boxes and from yes/no values', () => {
    // Arrange
    const schema = object({
      master_bol: { type: 'boolean' },
      signed: { type: 'boolean' },
      non_stackable: { type: 'boolean' },
    });
    const text = md(
      '- [ ] Master BOL with underlying BOLs',
      '- [X] Signed',
      '',
      'Non-Stackable: Yes',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({ master_bol: false, signed: true, non_stackable: true });
  });

  it('fills an array of enum values from the checked boxes', () => {
    // Arrange
    const schema = object({
      services: { type: 'array', items: { enum: ['liftgate', 'inside delivery', 'residential'] } },
    });
    // Act
    const data = fill(schema, md('- [x] Liftgate', '- [ ] Inside delivery', '- [x] Residential'));
    // Assert
    expect(data).toEqual({ services: ['liftgate', 'residential'] });
  });
});

describe('fillSchema: nested objects', () => {
  const party = object({
    name: string,
    address: string,
    phone: string,
    email: string,
    location_type: string,
  });

  it('searches each object in the section its heading names', () => {
    // Arrange
    const schema = object({ ship_from: party, consignee: party });
    // Act
    const data = fill(schema, billOfLading);
    // Assert
    expect(data).toEqual({
      ship_from: {
        name: 'Example Pick Up Company',
        address: '123 Pick Up Street, Vancouver, BC V5K 0A4, Canada',
        phone: '(123) 456-7890',
        location_type: 'Business without Dock or Forklift',
      },
      consignee: {
        name: 'Example Delivery Company',
        address: '123 Delivery Street, Toronto, ON M1B 0A1, Canada',
        email: 'receiving@example.com',
        location_type: 'Business with Dock or Forklift',
      },
    });
  });

  it('takes an address from the paragraph after a name standing alone', () => {
    // Arrange
    const schema = object({ bill_to: party });
    const text = md(
      '# Third Party Freight Charges Bill To:',
      '',
      'Freightera Logistics Inc.',
      '',
      '408 - 55 Water Street, Vancouver, BC V6B 1A1 800-866-4870',
      '',
      'Ship Date: x',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({
      bill_to: {
        name: 'Freightera Logistics Inc.',
        address: '408 - 55 Water Street, Vancouver, BC V6B 1A1',
        phone: '800-866-4870',
      },
    });
  });

  it('outside a section, matches fields by the object name and labels found once', () => {
    // Arrange
    const schema = object({
      billing: object({ email: string, contact: string }),
      shipping: object({ location_type: string, reference: string }),
    });
    const text = md(
      'Billing Email: ap@example.com',
      'Email: info@example.com',
      'Location Type: Dock',
      'Location Type: Street',
      'Reference: R-1',
    );
    // Act
    const data = fill(schema, text);
    // Assert
    expect(data).toEqual({ billing: { email: 'ap@example.com' }, shipping: { reference: 'R-1' } });
  });

  it('leaves out an object with nothing found', () => {
    // Arrange
    const schema = object({ ship_to: party });
    // Act
    const data = fill(schema, md('## Ship To', '', '| a | b |', '|---|---|'));
    // Assert
    expect(data).toEqual({});
  });

  it('follows local $ref, merges allOf, and stops at self-references', () => {
    // Arrange
    const schema = {
      type: 'object',
      $defs: {
        party: { type: 'object', properties: { name: string, parent: { $ref: '#/$defs/party' } } },
        amount: { type: 'number' },
      },
      properties: {
        shipper: { $ref: '#/$defs/party' },
        totals: {
          allOf: [object({ subtotal: { $ref: '#/$defs/amount' } }), object({ total: number })],
        },
        missing: { $ref: '#/$defs/nothing' },
        remote: { $ref: 'https://example.com/x' },
      },
    };
    // Act
    const data = fill(
      schema,
      md('## Shipper', '', 'Acme Ltd', '', '## Totals', '', 'Subtotal: 5', 'Total: 6'),
    );
    // Assert
    expect(data).toEqual({ shipper: { name: 'Acme Ltd' }, totals: { subtotal: 5, total: 6 } });
  });

  it('gives up on a reference cycle that never reaches a property', () => {
    // Arrange
    const schema = {
      type: 'object',
      $defs: { loop: { allOf: [{ $ref: '#/$defs/loop' }] }, bad: { $ref: '#/%E0%A4%A' } },
      properties: { x: { $ref: '#/$defs/loop' }, y: { $ref: '#/$defs/bad' } },
    };
    // Act
    const data = fill(schema, md('X: 1', 'Y: 2'));
    // Assert
    expect(data).toEqual({ x: '1', y: '2' });
  });

  it('validates against its own schema when everything is found', () => {
    // Arrange
    const schema = object(
      {
        ship_date: { type: 'string', format: 'date' },
        bill_of_lading_number: { type: 'string', pattern: '^[0-9]+$' },
        carrier_name: string,
        freight_charges_term: { enum: ['prepaid', 'collect', '3rd party'] },
        master_bol: { type: 'boolean' },
        ship_from: object({ name: string }, { required: ['name'] }),
      },
      { required: ['ship_date', 'bill_of_lading_number', 'carrier_name', 'ship_from'] },
    );
    // Act
    const data = fill(schema, billOfLading);
    const errors = compileExtractionSchema(schema).validate(data);
    // Assert
    expect(errors).toEqual([]);
    expect(data).toMatchObject({ ship_date: '2021-09-13', bill_of_lading_number: '21099992723' });
  });
});

describe('fillSchema: values', () => {
  it('respects const: the value is given only when the document says it', () => {
    // Arrange
    const schema = object({ document_type: { const: 'invoice' }, currency: { const: 'EUR' } });
    // Act
    const data = fill(schema, md('Document Type: Invoice', 'Currency: USD'));
    // Assert
    expect(data).toEqual({ document_type: 'invoice' });
  });

  it('skips a candidate that breaks the constraints and takes the next one', () => {
    // Arrange
    const schema = object({ total: { type: 'number', minimum: 0 } });
    // Act
    const data = fill(schema, md('Total: (12.00)', 'Total Amount: 12.00'));
    // Assert
    expect(data).toEqual({ total: 12 });
  });

  it('gives a value outside the bounds when no candidate fits, and keeps every table row', () => {
    // Arrange
    const schema = object({
      total: { type: 'number', maximum: 10 },
      items: {
        type: 'array',
        items: { type: 'object', properties: { qty: { type: 'integer', maximum: 2 } } },
      },
    });
    // Act
    const data = fill(schema, md('Total: 12.00', '', '| Qty |', '| --- |', '| 1 |', '| 3 |'));
    // Assert
    expect(data).toEqual({ total: 12, items: [{ qty: 1 }, { qty: 3 }] });
  });

  it('does not take a P.O. Box for a purchase order', () => {
    // Arrange
    const schema = object({
      purchase_order: { type: 'string', description: 'Purchase order number' },
    });
    // Act
    const data = fill(schema, md('P.O. Box 123, City', 'PO Box 9'));
    // Assert
    expect(data).toEqual({});
  });

  it('reads values of pages in order', () => {
    // Arrange
    const schema = object({ invoice_number: string, total: number });
    // Act
    const data = fill(schema, 'Invoice Number: 1', 'Total: 3');
    // Assert
    expect(data).toEqual({ invoice_number: '1', total: 3 });
  });
});

describe('coerceValue', () => {
  it.each([
    ['**Acme**, ', string, 'Acme'],
    ['  [Acme](https://acme.test)  ', string, 'Acme'],
    ['42', { type: 'integer' }, 42],
    ['$1,234.50', number, 1234.5],
    ['Yes', { type: 'boolean' }, true],
    ['checked', { type: 'boolean' }, true],
    ['September 13, 2021', { type: 'string', format: 'date' }, '2021-09-13'],
    ['write to <ap@example.com> today', { type: 'string', format: 'email' }, 'ap@example.com'],
    ['see https://example.com/a.', { type: 'string', format: 'uri' }, 'https://example.com/a'],
    ['2021-09-13T10:00:00Z', { type: 'string', format: 'date-time' }, '2021-09-13T10:00:00Z'],
    ['10:30:00Z', { type: 'string', format: 'time' }, '10:30:00Z'],
    [
      'a8098c1a-f86e-11da-bd1a-00112444be1e',
      { type: 'string', format: 'uuid' },
      'a8098c1a-f86e-11da-bd1a-00112444be1e',
    ],
    ['11.00', { type: 'string', format: 'x-custom' }, '11.00'],
    ['s3cret', { type: 'string', format: 'password' }, 's3cret'],
    ['No. 12345 issued', { type: 'string', pattern: '^[0-9]+$' }, '12345'],
    ['anything', { type: 'string', pattern: '([' }, 'anything'],
    ['Colect', { enum: ['prepaid', 'collect'] }, 'collect'],
    ['PREPAID', { enum: ['prepaid', 'collect'] }, 'prepaid'],
    ['2', { enum: [1, 2] }, 2],
    ['yes', { enum: [true] }, true],
    ['12', { type: ['integer', 'string'] }, 12],
    ['twelve', { type: ['integer', 'string'] }, 'twelve'],
    ['N/A', { type: ['string', 'null'] }, null],
    ['—', { type: 'number', nullable: true, enum: [1, null] }, null],
    ['x', {}, 'x'],
    ['7', { const: 7 }, 7],
    ['5', { allOf: [{ minimum: 0 }, { type: 'number' }] }, 5],
    ['5', { allOf: [{ maxLength: 3 }] }, '5'],
  ])('converts %j with %j', (text, schema, expected) => {
    // Act
    const result = coerceValue(text, schema);
    // Assert
    expect(result).toEqual({ ok: true, value: expected, fits: true });
  });

  it.each([
    ['-1', { type: 'number', minimum: 0 }, -1],
    ['11', { type: 'number', maximum: 10 }, 11],
    ['0', { type: 'number', exclusiveMinimum: 0 }, 0],
    ['10', { type: 'integer', exclusiveMaximum: 10 }, 10],
    ['-1', { allOf: [{ type: 'number' }, { minimum: 0 }] }, -1],
  ])('converts %j for %j but marks it out of bounds', (text, schema, expected) => {
    // Act
    const result = coerceValue(text, schema);
    // Assert
    expect(result).toEqual({ ok: true, value: expected, fits: false });
  });

  it.each([
    ['1.5', { type: 'integer' }],
    ['maybe', { type: 'boolean' }],
    ['13/13/2021', { type: 'string', format: 'date' }],
    ['nobody', { type: 'string', format: 'email' }],
    ['www.example.com', { type: 'string', format: 'uri' }],
    ['2021-09-13', { type: 'string', format: 'date-time' }],
    ['2021-13-45T10:00:00Z', { type: 'string', format: 'date-time' }],
    ['$11.00', { type: 'string', format: 'time' }],
    ['ref#1', { type: 'string', format: 'uuid' }],
    ['300.1.1.1', { type: 'string', format: 'ipv4' }],
    ['A-17', { type: 'string', pattern: '^[0-9]+$' }],
    ['ab', { type: 'string', minLength: 3 }],
    ['abcd', { type: 'string', maxLength: 3 }],
    ['cash', { enum: ['prepaid', 'collect'] }],
    ['N/A', string],
    ['', string],
    ['USD', { const: 'EUR' }],
    ['x', { type: 'object' }],
    ['abcd', { enum: ['abce', 'abcf'] }],
  ])('rejects %j for %j', (text, schema) => {
    // Act
    const result = coerceValue(text, schema);
    // Assert
    expect(result).toEqual({ ok: false });
  });
});

describe('parseNumber', () => {
  it.each([
    ['$1,234.50', 1234.5],
    ['1.234,50 €', 1234.5],
    ['1,5', 1.5],
    ['1,234', 1234],
    ['1,234,567', 1234567],
    ['1.234.567', 1234567],
    ['1 234,50', 1234.5],
    ["1'234.50", 1234.5],
    ['(12.00)', -12],
    ['-$5', -5],
    ['−3', -3],
    ['10.00%', 10],
    ['300 lb', 300],
    ['USD 99', 99],
    ['99 EUR', 99],
    ['AUD$ 7', 7],
    ['0.500', 0.5],
  ])('reads %j as %d', (text, expected) => {
    // Assert
    expect(parseNumber(text)).toBe(expected);
  });

  it.each(['abc', 'ref#1', '12-34', '1 23', '1..2', ''])('reads no number in %j', (text) => {
    // Assert
    expect(parseNumber(text)).toBeUndefined();
  });
});

describe('parseBoolean', () => {
  it.each([
    ['yes', true],
    ['TRUE', true],
    ['x', true],
    ['☑', true],
    ['No.', false],
    ['unchecked', false],
    ['☐', false],
    ['maybe', undefined],
  ])('reads %j as %s', (text, expected) => {
    // Assert
    expect(parseBoolean(text)).toBe(expected);
  });
});

describe('toIsoDate', () => {
  it.each([
    ['September 13, 2021', '2021-09-13'],
    ['Sept 13 2021', '2021-09-13'],
    ['Sep. 3rd, 2021', '2021-09-03'],
    ['13 September 2021', '2021-09-13'],
    ['02 October 2024', '2024-10-02'],
    ['13-Sep-21', '2021-09-13'],
    ['1st of May 1999', '1999-05-01'],
    ['2021-09-13', '2021-09-13'],
    ['2021/9/3', '2021-09-03'],
    ['1/2/2017', '2017-01-02'],
    ['5/15/2017', '2017-05-15'],
    ['13/1/2017', '2017-01-13'],
    ['02.10.2024', '2024-10-02'],
    ['10.13.2024', '2024-10-13'],
    ['1-1-17', '2017-01-01'],
    ['1/1/85', '1985-01-01'],
    ['due on 12/31/2020 or later', '2020-12-31'],
  ])('reads %j as %s', (text, expected) => {
    // Assert
    expect(toIsoDate(text)).toBe(expected);
  });

  it.each(['2/30/2021', '13/13/2021', 'Smarch 3, 2021', 'no date', '11172017'])(
    'reads no date in %j',
    (text) => {
      // Assert
      expect(toIsoDate(text)).toBeUndefined();
    },
  );
});

describe('labelTokens and matchScore', () => {
  it.each([
    ['Invoice No.', ['invoice', 'number']],
    ['invoiceNumber', ['invoice', 'number']],
    ['invoice_number', ['invoice', 'number']],
    ['Invoice #', ['invoice', 'number']],
    ['Bill of Lading Number', ['bol', 'number']],
    ['E-mail Address', ['email', 'address']],
    ['Tel', ['phone']],
    ['Amount Due', ['total']],
    ['Seal Number(s)', ['seal', 'number']],
    ['Ship From', ['shipper']],
    ['GST 10.00%', ['tax']],
    ['POBox', ['pobox']],
    ['Purchase Order #', ['po', 'number']],
    ['Freight Charges', ['freight', 'charge']],
    ['Deliveries', ['delivery']],
    ['the', ['the']],
  ])('normalises %j to %j', (text, expected) => {
    // Assert
    expect(labelTokens(text)).toEqual(expected);
  });

  it('scores an exact match 1, an OCR slip high, a stranger 0', () => {
    // Assert
    expect(matchScore(['invoice', 'number'], ['invoice', 'number'])).toBe(1);
    expect(matchScore(['invoice', 'number'], labelTokens('Invoce Numbr'))).toBeGreaterThan(0.7);
    expect(matchScore(['carrier'], ['invoice'])).toBe(0);
    expect(matchScore([], ['invoice'])).toBe(0);
  });

  it('counts a truncated table header only when asked to', () => {
    // Assert
    expect(matchScore(['total'], ['tal'])).toBeLessThan(0.6);
    expect(matchScore(['total'], ['tal'], true)).toBeGreaterThanOrEqual(0.8);
  });
});

describe('labelledValues', () => {
  it.each([
    ['**Label:** value', [{ label: 'Label', value: 'value', weight: 1 }]],
    ['**Label**: value', [{ label: 'Label', value: 'value', weight: 1 }]],
    [
      '__Ship Date__ September 13, 2021',
      [{ label: 'Ship Date', value: 'September 13, 2021', weight: 0.95 }],
    ],
    ['- **Shipper:** Please call', [{ label: 'Shipper', value: 'Please call', weight: 1 }]],
    [
      '**Contact:** Ann Lee Phone: 555 1234',
      [
        { label: 'Contact', value: 'Ann Lee', weight: 1 },
        { label: 'Phone', value: '555 1234', weight: 1 },
      ],
    ],
    ['**Shipper Signature** ______ **Date** ______', []],
    [
      'Pickup Hours: 9:00AM to 5:00PM SID#: N/A',
      [
        { label: 'Pickup Hours', value: '9:00AM to 5:00PM', weight: 1 },
        { label: 'SID#', value: 'N/A', weight: 1 },
      ],
    ],
    [
      'Toronto, ON M1B 0A1, Canada Location Type: Business',
      [{ label: 'Location Type', value: 'Business', weight: 1 }],
    ],
    [
      'Bill of Lading Number: 1 Terms of Sale: net',
      [
        { label: 'Bill of Lading Number', value: '1', weight: 1 },
        { label: 'Terms of Sale', value: 'net', weight: 1 },
      ],
    ],
    ['see https://example.com at 10:30', []],
    [
      'This long sentence explains things. Then the Note: read it',
      [{ label: 'Note', value: 'read it', weight: 1 }],
    ],
    ['## Invoice #: 12', [{ label: 'Invoice #', value: '12', weight: 1 }]],
    ['12345: 6', []],
  ])('reads %j', (line, expected) => {
    // Assert
    expect(labelledValues(line)).toEqual(expected);
  });
});

describe('checkboxesOf', () => {
  it.each([
    ['- [x] Yes', [{ label: 'Yes', checked: true }]],
    [
      '[ ] Prepaid [x] Collect',
      [
        { label: 'Prepaid', checked: false },
        { label: 'Collect', checked: true },
      ],
    ],
    [
      '[[] Prepaid [] collect [¢/] 3rd Party',
      [
        { label: 'Prepaid', checked: false },
        { label: 'collect', checked: false },
        { label: '3rd Party', checked: true },
      ],
    ],
    [
      '☐ A ☑ B',
      [
        { label: 'A', checked: false },
        { label: 'B', checked: true },
      ],
    ],
    ['see note [1] below', []],
    ['Agree [x]', []],
    ['no boxes here', []],
  ])('reads %j', (line, expected) => {
    // Assert
    expect(checkboxesOf(line)).toEqual(expected);
  });
});

describe('parseDocument', () => {
  it('finds sections, including setext headings and bold titles, and their extent', () => {
    // Arrange
    const text = md(
      'Report',
      '======',
      '',
      '## A',
      'a: 1',
      '**Box**',
      'b: 2',
      '',
      '---',
      'c: 3',
      '## B',
      'd: 4',
      'Totals',
      '---',
    );
    // Act
    const doc = parseDocument([page(text)]);
    // Assert: a line right above `---` is a heading (CommonMark), one after a blank line a rule.
    expect(doc.sections.map((s) => [s.title, s.level, s.line, s.end])).toEqual([
      ['Report', 1, 0, 14],
      ['A', 2, 3, 10],
      ['Box', 7, 5, 8],
      ['B', 2, 10, 12],
      ['Totals', 2, 12, 14],
    ]);
  });

  it('reads GFM tables with escaped pipes and captions, and HTML entities', () => {
    // Arrange
    const text = md(
      'Items:',
      '',
      '| A | B |',
      '|:--|--:|',
      '| x \\| y | &lt;z&gt; &#65;&#x42; &copy; &#x110000; &bogus; |',
    );
    // Act
    const doc = parseDocument([page(text)]);
    // Assert
    expect(doc.tables).toEqual([
      {
        line: 2,
        page: 1,
        header: ['A', 'B'],
        rows: [['x | y', '<z> AB © \uFFFD &bogus;']],
        caption: 'Items',
      },
    ]);
  });

  it('groups lists and checkbox lines, allowing one blank line inside', () => {
    // Arrange
    const text = md('Options:', '- [ ] a', '', '- [x] b', '', '', '- [ ] c', 'Done');
    // Act
    const doc = parseDocument([page(text)]);
    // Assert
    expect(doc.groups.map((g) => g.boxes.map((b) => b.label))).toEqual([['a', 'b'], ['c']]);
    expect(doc.groups[0]?.context).toBe('Options');
    expect(doc.lists.map((l) => l.items.length)).toEqual([2, 1]);
  });
});
