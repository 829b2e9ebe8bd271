import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as XLSX from '@e965/xlsx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';

const DEV = corpusPath('dev');
const KEY = 'key-office-0001';

interface DevDoc {
  id: string;
  file: string;
  format: string;
  categories: string[];
}

const officeDocs = (
  JSON.parse(readFileSync(join(DEV, 'manifest.json'), 'utf8')) as { documents: DevDoc[] }
).documents.filter((d) => ['docx', 'pptx', 'xlsx'].includes(d.format));

let running: TestService;
let server: LocalServer;

beforeAll(async () => {
  running = await startTestService('office', {
    API_KEYS: `${KEY}=office:pro`,
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
  });
  server = running.server;
});

afterAll(async () => {
  await running.close();
});

async function upload(name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('file', new Blob([Uint8Array.from(bytes)]), name);
  const res = await fetch(`${server.url}/v1/parse/upload?include_warnings=true`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function parsed(name: string, bytes: Uint8Array) {
  const res = await upload(name, bytes);
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  const response = ParseResponse.parse(res.body);
  for (const page of response.pages) {
    // Office pages stay on the offline text provider, on the cheapest tier.
    expect(page).toMatchObject({ provider: 'local-text', tier_used: 'fast', re_routed: false });
    for (const g of page.grounding) {
      expect(g.bbox.w).toBeGreaterThan(0);
      expect(g.bbox.h).toBeGreaterThan(0);
      expect(g.bbox.x + g.bbox.w).toBeLessThanOrEqual(page.width! + 0.01);
      expect(g.bbox.y + g.bbox.h).toBeLessThanOrEqual(page.height! + 0.01);
    }
  }
  return response;
}

const markdownOf = (response: ParseResponse) =>
  response.pages.map((p) => p.content_markdown).join('\n\n');

describe('local service: office documents of the dev corpus', () => {
  it.each(officeDocs.map((d) => [d.id, d] as const))(
    'parses %s with 200, text, pages on local-text and boxes inside the page',
    async (_id, doc) => {
      // Act
      const response = await parsed(basename(doc.file), readFileSync(join(DEV, doc.file)));
      // Assert
      expect(response.document.format).toBe(doc.format);
      expect(response.pages.length).toBe(response.document.pages);
      expect(markdownOf(response).trim().length).toBeGreaterThan(20);
      expect(response.pages.some((p) => p.grounding.length > 0)).toBe(true);
    },
  );

  it('keeps Word headings, lists and tables', async () => {
    // Act
    const sample = await parsed(
      'w.docx',
      readFileSync(join(DEV, 'files/docling-word_sample.docx')),
    );
    const tables = await parsed(
      't.docx',
      readFileSync(join(DEV, 'files/docling-word_tables.docx')),
    );
    // Assert
    const markdown = markdownOf(sample);
    expect(markdown).toMatch(/^# Swimming in the lake$/m);
    expect(markdown).toMatch(/^## Let’s swim!$/m);
    expect(markdown).toContain('- Paddle about');
    expect(markdown).toContain('| Leaves | Ash, Elm, Maple | 50 |');
    expect(markdownOf(tables)).toContain(
      '| Cell 1.0 | Merged Cell 1.1 1.2 | Merged Cell 1.1 1.2 |',
    );
    expect(sample.pages[0]?.grounding.map((g) => g.element_type)).toContain('figure');
  });

  it('gives one page per slide with titles, tables, notes and real shape boxes', async () => {
    // Act
    const response = await parsed(
      's.pptx',
      readFileSync(join(DEV, 'files/docling-powerpoint_sample.pptx')),
    );
    // Assert
    expect(response.document.pages).toBe(3);
    const [first, second] = response.pages;
    expect(first?.content_markdown).toMatch(/^# Test Table Slide$/m);
    expect(first?.content_markdown).toContain(
      '| R4 | True | False | True | False | True | False |',
    );
    expect(second?.content_markdown).toContain(
      '> **Notes:**\n>\n> Some notes on the second slide.',
    );
    // 1524000 EMU = 120 pt = 240 px at the default 144 DPI.
    expect(first?.grounding[0]).toMatchObject({
      element_type: 'title',
      bbox: { x: 240, label: 'paragraph' },
    });
    expect(first).toMatchObject({ width: 1920, height: 1080, dpi: 144 });
  });

  it('gives one page per sheet with merged cells repeated', async () => {
    // Act
    const response = await parsed('b.xlsx', readFileSync(join(DEV, 'files/docling-test-01.xlsx')));
    // Assert
    expect(response.pages.map((p) => p.content_markdown.split('\n')[0])).toEqual([
      '# Sheet1',
      '# Sheet2',
      '# Sheet3',
    ]);
    expect(response.pages[2]?.content_markdown).toContain('| first | header | header |');
    expect(response.pages[1]?.grounding.filter((g) => g.bbox.label === 'table')).toHaveLength(3);
  });
});

describe('local service: legacy Excel, HTML and Markdown', () => {
  it('parses a legacy xls workbook', async () => {
    // Arrange
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(
      book,
      XLSX.utils.aoa_to_sheet([
        ['Name', 'Qty'],
        ['Tea', 3],
      ]),
      'Stock',
    );
    const bytes = new Uint8Array(
      XLSX.write(book, { type: 'array', bookType: 'biff8' }) as ArrayBuffer,
    );
    // Act
    const response = await parsed('stock.xls', bytes);
    // Assert
    expect(response.document.format).toBe('xls');
    expect(response.pages[0]?.content_markdown).toBe(
      '# Stock\n\n| Name | Qty |\n| --- | --- |\n| Tea | 3 |',
    );
  });

  it('parses HTML into Markdown, one page per CSS page break', async () => {
    // Arrange
    const html =
      '<!doctype html><html><body><h1>Menu</h1><table><tr><th>Dish</th><th>Price</th></tr><tr><td>Soup</td><td>4</td></tr></table><h2 style="page-break-before: always">Drinks</h2><p>Tea</p></body></html>';
    // Act
    const response = await parsed('menu.html', new TextEncoder().encode(html));
    // Assert
    expect(response.document.format).toBe('html');
    expect(response.pages.map((p) => p.content_markdown)).toEqual([
      '# Menu\n\n| Dish | Price |\n| --- | --- |\n| Soup | 4 |',
      '## Drinks\n\nTea',
    ]);
  });

  it('parses Markdown named .md as it is, and refuses plain text', async () => {
    // Act
    const md = await parsed('notes.md', new TextEncoder().encode('Plain words, but named .md\n'));
    const text = await upload('notes.txt', new TextEncoder().encode('Plain words, no sign.\n'));
    // Assert
    expect(md.document.format).toBe('md');
    expect(md.pages[0]?.content_markdown).toBe('Plain words, but named .md');
    expect(text.status).toBe(400);
    expect(text.body.detail).toMatch(
      /the content is plain text; supported formats are .* html and md/,
    );
  });
});
