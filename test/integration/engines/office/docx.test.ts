import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnsupportedDocumentError } from '../../../../functions/core/domain/errors.js';
import { convertDocx, withExplicitBreaks } from '../../../../functions/engines/office/docx.js';
import { MAX_FLOW_PAGE_CHARS } from '../../../../functions/engines/office/pages.js';
import type { OfficePage } from '../../../../functions/engines/office/office-document.js';
import { HOSTILE, devFile, docxOf, para, zipOf } from '../../../support/office-fixtures.js';

/** Every element box lies inside its page, with a positive size. */
function expectBoxesInside(page: OfficePage) {
  for (const { box } of page.elements) {
    expect(box.w).toBeGreaterThan(0);
    expect(box.h).toBeGreaterThan(0);
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.x + box.w).toBeLessThanOrEqual(page.widthPt + 1e-6);
    expect(box.y + box.h).toBeLessThanOrEqual(page.heightPt + 1e-6);
  }
}

describe('convertDocx on the dev corpus', () => {
  it('maps Word heading styles to levels, the Title style first', async () => {
    // Act
    const { pages } = await convertDocx(devFile('docling-unit_test_headers_numbered.docx'));
    // Assert: two pages, as Word laid it out (the manifest's page count)
    expect(pages).toHaveLength(2);
    const headings = pages.flatMap((p) => p.markdown.split('\n')).filter((l) => l.startsWith('#'));
    expect(headings).toEqual([
      '# Test Document',
      '## Section 1',
      '### Section 1.1',
      '### Section 1.2',
      '#### Section 1.2.3',
      '## Section 2',
      '#### Section 2.1.1',
      '### Section 2.1',
    ]);
  });

  it('writes bulleted and numbered lists with their nesting', async () => {
    // Act
    const { pages } = await convertDocx(devFile('docling-unit_test_lists.docx'));
    // Assert
    const markdown = pages[0]?.markdown ?? '';
    expect(markdown).toContain('# Test Document');
    expect(markdown).toContain('1. List item a\n2. List item b\n3. List item c');
    expect(markdown).toContain(
      '- List item 1\n  - List item 1.1\n    - List item 1.1.1\n- List item 3',
    );
    const items = markdown.split('\n').filter((l) => /^\s*(-|\d+\.) /.test(l));
    expect(pages[0]?.elements.filter((e) => e.elementType === 'list_item')).toHaveLength(
      items.length,
    );
  });

  it('writes tables as GFM with merged cells repeated in every cell they cover', async () => {
    // Act
    const { pages } = await convertDocx(devFile('docling-word_tables.docx'));
    // Assert
    const markdown = pages[0]?.markdown ?? '';
    expect(markdown).toContain(
      '| Header 0.0 | Header 0.1 | Header 0.2 |\n| --- | --- | --- |\n| Cell 1.0 | Cell 1.1 | Cell 1.2 |',
    );
    expect(markdown).toContain('| Cell 1.0 | Merged Cell 1.1 1.2 | Merged Cell 1.1 1.2 |');
    expect(markdown).toContain(
      '| Cell 1.0 | Merged Cell 1.1 2.1 | Cell 1.2 |\n| Cell 2.0 | Merged Cell 1.1 2.1 | Cell 2.2 |',
    );
    expect(markdown).toContain(
      '| Cell 4.0 | Merged Cell 3.1 4.1 | Cell 4.2 |  | Merged Cell 4.4 5.4 |',
    );
    expect(markdown).toContain('|  |  |  |  | Merged Cell 4.4 5.4 |');
    expect(pages[0]?.elements.filter((e) => e.label === 'table')).toHaveLength(5);
    // The evidence repeats merged cells as the tables do (two tables, two rows each).
    expect(pages[0]?.sourceText?.match(/Merged Cell 1\.1 2\.1/g)).toHaveLength(4);
  });

  it('keeps text, lists, the table and a figure with its alt text, boxes inside the page', async () => {
    // Act
    const { pages, geometry } = await convertDocx(devFile('docling-word_sample.docx'));
    // Assert
    expect(pages).toHaveLength(2);
    const [first, second] = pages;
    expect(geometry).toBe('flow');
    expect(first?.markdown).toContain('# Swimming in the lake');
    expect(first?.markdown).toContain('## Let’s swim!');
    expect(first?.markdown).toContain('![A cartoon duck holding a paper](#figure-1)');
    expect(first?.markdown).toContain('- You can relax and look around');
    expect(second?.markdown).toMatch(/^### Let’s eat/);
    expect(second?.markdown).toContain('|  | Food | Calories per portion |');
    expect(first?.elements.find((e) => e.label === 'figure')).toMatchObject({
      text: 'A cartoon duck holding a paper',
      elementType: 'figure',
    });
    for (const page of pages) {
      expectBoxesInside(page);
      expect(page.elements.map((e) => e.box.y)).toEqual(
        [...page.elements].map((e) => e.box.y).sort((a, b) => a - b),
      );
    }
  });

  it('gives an empty document one empty page', async () => {
    // Act
    const { pages } = await convertDocx(readFileSync(join(HOSTILE, 'docx-empty.docx')));
    // Assert
    expect(pages).toEqual([expect.objectContaining({ markdown: '', elements: [] })]);
  });
});

describe('convertDocx: pages', () => {
  it('starts a page at page breaks, at pageBreakBefore and after a section that ends on a new page', async () => {
    // Arrange
    const body = [
      para('One'),
      '<w:p><w:r><w:t>Two a</w:t></w:r><w:r><w:br w:type="page"/></w:r><w:r><w:t>Two b</w:t></w:r></w:p>',
      para('Three', '<w:sectPr><w:type w:val="continuous"/></w:sectPr>'),
      para('Four', '<w:sectPr/>'),
      para('Five', '<w:pageBreakBefore/>'),
      para('Six', '<w:pageBreakBefore w:val="false"/>'),
      '<w:sectPr><w:type w:val="continuous"/><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1134" w:bottom="1440" w:left="1134"/></w:sectPr>',
    ].join('');
    // Act
    const { pages } = await convertDocx(docxOf(body));
    // Assert
    expect(pages.map((p) => p.markdown)).toEqual([
      'One\n\nTwo a',
      'Two b\n\nThree',
      'Four',
      'Five\n\nSix',
    ]);
    expect(pages.map((p) => p.sourceText)).toEqual([
      'One Two a',
      'Two b Three',
      'Four',
      'Five Six',
    ]);
    expect(pages[0]).toMatchObject({ widthPt: 595.3, heightPt: 841.9 });
    expect(pages[0]?.elements[0]?.box).toMatchObject({ x: 56.7, y: 72 });
  });

  it("starts a page where Word's layout last did, with the paragraph whole, not inside tables", async () => {
    // Arrange
    const marker = '<w:lastRenderedPageBreak/>';
    const body = [
      para('One'),
      `<w:p><w:r><w:t>Two a</w:t></w:r><w:r>${marker}<w:t> two b</w:t></w:r></w:p>`,
      `<w:tbl><w:tr><w:tc><w:p><w:r>${marker}<w:t>Cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`,
      `<w:p><w:pPr><w:jc w:val="left"/></w:pPr><w:r>${marker}<w:t>Three</w:t></w:r></w:p>`,
      '<w:sectPr/>',
    ].join('');
    // Act
    const { pages } = await convertDocx(docxOf(body));
    // Assert
    expect(pages.map((p) => p.sourceText)).toEqual(['One', 'Two a two b Cell', 'Three']);
  });

  it('leaves out empty pages between consecutive breaks', async () => {
    // Arrange
    const breaks = '<w:p><w:r><w:br w:type="page"/><w:br w:type="page"/></w:r></w:p>';
    // Act
    const { pages } = await convertDocx(docxOf(`${para('Before')}${breaks}${para('After')}`));
    // Assert
    expect(pages.map((p) => p.markdown)).toEqual(['Before', 'After']);
    expect(pages[0]).toMatchObject({ widthPt: 612, heightPt: 792 });
  });

  it('adds nothing to a document of one section without pageBreakBefore', () => {
    // Act
    const prepared = withExplicitBreaks(
      '<w:document><w:body><w:p/><w:sectPr/></w:body></w:document>',
    );
    // Assert
    expect(prepared).toBeNull();
  });

  it('refuses a package without a main document part', async () => {
    // Arrange
    const noDocument = zipOf({
      '[Content_Types].xml': '<Types/>',
      'word/styles.xml': '<w:styles/>',
    });
    // Act
    const converting = convertDocx(noDocument);
    // Assert
    await expect(converting).rejects.toBeInstanceOf(UnsupportedDocumentError);
    await expect(converting).rejects.toThrow(/no main document part \(word\/document\.xml\)/);
  });

  it('cuts one paragraph longer than MAX_PAGE_CHARS into pages, its evidence with it', async () => {
    // Arrange: one paragraph of 30,000 numbered words (about 300,000 characters)
    const words = Array.from({ length: 30_000 }, (_, i) => `w${String(i).padStart(7, '0')}`);
    const file = docxOf(para(words.join(' ')));
    // Act
    const { pages } = await convertDocx(file);
    // Assert: every word once, in order, on pages of at most MAX_FLOW_PAGE_CHARS
    expect(pages.length).toBeGreaterThanOrEqual(6);
    expect(pages.flatMap((p) => p.markdown.split(' '))).toEqual(words);
    for (const page of pages) {
      expect(page.markdown.length).toBeLessThanOrEqual(MAX_FLOW_PAGE_CHARS);
      expect(page.sourceText).toBe(page.markdown);
    }
  });

  it('starts a new page at a paragraph once a page without breaks has MAX_FLOW_PAGE_CHARS of text', async () => {
    // Arrange: 1,500 paragraphs of about 110 characters (165,000), no page break anywhere
    const text = (i: number) => `Paragraph ${i}: ${'lorem ipsum '.repeat(7)}end ${i}.`;
    const file = docxOf(Array.from({ length: 1500 }, (_, i) => para(text(i))).join(''));
    // Act
    const { pages } = await convertDocx(file);
    // Assert: cut between paragraphs into pages of at most the limit and one paragraph more
    expect(pages.length).toBeGreaterThan(2);
    for (const page of pages.slice(0, -1)) {
      expect(page.sourceText?.length).toBeGreaterThanOrEqual(MAX_FLOW_PAGE_CHARS);
    }
    const all = pages.flatMap((p) => p.markdown.split('\n\n'));
    expect(all).toEqual(Array.from({ length: 1500 }, (_, i) => text(i)));
    for (const page of pages) {
      // (the limit counts the runs' text, not the space after each paragraph)
      expect(page.sourceText?.length).toBeLessThan(MAX_FLOW_PAGE_CHARS + 1000);
      // The evidence of each page is the text of that page only.
      expect(page.sourceText).toBe(page.markdown.split('\n\n').join(' '));
      expect(page.elements).toHaveLength(page.markdown.split('\n\n').length);
    }
  });

  it('counts the limit from the last page break, and keeps a document under it on one page', async () => {
    // Arrange: 40,000 characters, a page break, 40,000 more
    const block = (from: number) =>
      Array.from({ length: 400 }, (_, i) => para(`Paragraph ${from + i} ${'x'.repeat(85)}`)).join(
        '',
      );
    const breakRun = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';
    // Act
    const { pages } = await convertDocx(docxOf(block(0) + breakRun + block(400)));
    const single = await convertDocx(docxOf(block(0)));
    // Assert
    expect(pages).toHaveLength(2);
    expect(single.pages).toHaveLength(1);
  });
});
