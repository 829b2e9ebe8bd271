import { describe, expect, it } from 'vitest';
import {
  assembleDocumentMarkdown,
  CONTINUED_TABLE,
  type DocumentPage,
} from '../../../../functions/core/domain/continued-tables.js';
import { PostprocessWarning } from '../../../../functions/core/domain/schemas.js';

const md = (...lines: string[]): string => lines.join('\n');
const pages = (...markdowns: string[]): DocumentPage[] =>
  markdowns.map((markdown, i) => ({ pageNumber: i + 1, markdown }));

const HEADER = md('| Region | Q1 | Q2 |', '| --- | --- | --- |');

describe('assembleDocumentMarkdown', () => {
  it('joins a table continued on the next page under its header once and says so on that page', () => {
    // Arrange: page 2 repeats the header row, as printed reports do.
    const input = pages(
      md('Sales by region:', '', HEADER, '| North | 10 | 12 |'),
      md(HEADER, '| South | 7 | 9 |', '', 'Totals follow.'),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(
      md(
        'Sales by region:',
        '',
        HEADER,
        '| North | 10 | 12 |',
        '| South | 7 | 9 |',
        '',
        'Totals follow.',
      ),
    );
    expect(result.warnings).toEqual([
      {
        kind: 'duplicate_region',
        severity: 'info',
        page_number: 2,
        detail:
          'the table opening page 2 continues the table ending page 1 (3 columns): joined into ' +
          'one table in the document Markdown, its repeated header row left out; the pages ' +
          'keep their own parts',
      },
    ]);
    expect(() => PostprocessWarning.array().parse(result.warnings)).not.toThrow();
  });

  it('joins pages as they are, a blank line apart, when no table crosses a break', () => {
    // Arrange
    const input = pages('# Title', '', 'Body text.');
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result).toEqual({ markdown: '# Title\n\n\n\nBody text.', warnings: [] });
  });

  it('keeps the first row of a table the layout marked as continued as a data row', () => {
    // Arrange: the continuation has no header of its own; its first row was written as one.
    const input = pages(
      md(HEADER, '| North | 10 | 12 |'),
      md(CONTINUED_TABLE, '| South | 7 | 9 |', '| --- | --- | --- |', '| East | 3 | 4 |'),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(
      md(HEADER, '| North | 10 | 12 |', '| South | 7 | 9 |', '| East | 3 | 4 |'),
    );
    expect(result.warnings[0]?.detail).not.toContain('header');
  });

  it('joins an unmarked continuation whose first row holds numbers under a header of names', () => {
    // Arrange
    const input = pages(
      md(HEADER, '| North | 10 | 12 |'),
      md('| South | 7 | 9 |', '| --- | --- | --- |', '| East | 3 | 4 |'),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(
      md(HEADER, '| North | 10 | 12 |', '| South | 7 | 9 |', '| East | 3 | 4 |'),
    );
    expect(result.warnings).toHaveLength(1);
  });

  it('does not join an unmarked table with a header of its own', () => {
    // Arrange: page 2 opens another table of three columns.
    const input = pages(
      md(HEADER, '| North | 10 | 12 |'),
      md('| Name | Role | Team |', '| --- | --- | --- |', '| Ann | Lead | A |'),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(input.map((p) => p.markdown).join('\n\n'));
    expect(result.warnings).toEqual([]);
  });

  it('does not join tables whose column counts differ, and keeps the continuation mark', () => {
    // Arrange
    const input = pages(
      md(HEADER, '| North | 10 | 12 |'),
      md(CONTINUED_TABLE, '| South | 7 |', '| --- | --- |', '| East | 3 |'),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(input.map((p) => p.markdown).join('\n\n'));
    expect(result.markdown).toContain(CONTINUED_TABLE);
    expect(result.warnings).toEqual([]);
  });

  it('does not join when text follows the first table or precedes the second', () => {
    // Arrange
    const textAfter = pages(
      md(HEADER, '| North | 10 | 12 |', '', 'Note.'),
      md(HEADER, '| S | 1 | 2 |'),
    );
    const captionBefore = pages(
      md(HEADER, '| North | 10 | 12 |'),
      md('Table 2: Costs', '', HEADER, '| S | 1 | 2 |'),
    );
    // Act
    const results = [textAfter, captionBefore].map(assembleDocumentMarkdown);
    // Assert
    expect(results.map((r) => r.warnings)).toEqual([[], []]);
  });

  it('does not join across an empty page', () => {
    // Arrange
    const input = pages(md(HEADER, '| North | 10 | 12 |'), '', md(HEADER, '| South | 7 | 9 |'));
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.warnings).toEqual([]);
    expect(result.markdown).toBe(input.map((p) => p.markdown).join('\n\n'));
  });

  it('joins a table running over three pages into one, with a warning on each later page', () => {
    // Arrange
    const input = pages(
      md('Intro.', '', HEADER, '| A | 1 | 2 |'),
      md(HEADER, '| B | 3 | 4 |'),
      md(HEADER, '| C | 5 | 6 |', '', 'End.'),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(
      md('Intro.', '', HEADER, '| A | 1 | 2 |', '| B | 3 | 4 |', '| C | 5 | 6 |', '', 'End.'),
    );
    expect(result.warnings.map((w) => w.page_number)).toEqual([2, 3]);
  });

  it('joins across running headers and footers and puts them after the joined table', () => {
    // Arrange: a vision model kept the footer and the running header in the Markdown.
    const input: DocumentPage[] = [
      {
        pageNumber: 1,
        markdown: md(HEADER, '| North | 10 | 12 |', '', 'Page 1', ''),
        furniture: ['Page 1'],
      },
      {
        pageNumber: 2,
        markdown: md('**Annual Report**', '', HEADER, '| South | 7 | 9 |'),
        furniture: ['Annual Report', '   '],
      },
    ];
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(
      md(HEADER, '| North | 10 | 12 |', '| South | 7 | 9 |', '', 'Page 1', '', '**Annual Report**'),
    );
  });

  it('appends the rows of an HTML continuation inside the first table body', () => {
    // Arrange: tables with spans are HTML; the header row repeats on page 2.
    const head = '<tr><th colspan="2">Region</th><th>Q1</th></tr>';
    const input = pages(
      md('<table><tbody>', head, '<tr><td>N</td><td>x</td><td>10</td></tr>', '</tbody></table>'),
      md('<table>', head, '<tr><td>S</td><td>y</td><td>7</td></tr>', '</table>', '', 'After.'),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(
      md(
        '<table><tbody>',
        head,
        '<tr><td>N</td><td>x</td><td>10</td></tr>',
        '<tr><td>S</td><td>y</td><td>7</td></tr>',
        '</tbody></table>',
        '',
        'After.',
      ),
    );
  });

  it('writes the table as HTML when a pipe table continues as an HTML table', () => {
    // Arrange: the continuation has a spanning cell; its first row is data written as header.
    const input = pages(
      md('| Item | Note \\| remark | Cost |', '| --- | --- | --- |', '| Pen | a <b> & c | 2 |'),
      md(
        CONTINUED_TABLE,
        '<table>',
        '<tr><th>Ink</th><th>blue</th><th>3</th></tr>',
        '<tr><td colspan="2">Total</td><td>5</td></tr>',
        '</table>',
      ),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(
      md(
        '<table>',
        '<tr><th>Item</th><th>Note | remark</th><th>Cost</th></tr>',
        '<tr><td>Pen</td><td>a &lt;b&gt; &amp; c</td><td>2</td></tr>',
        '<tr><td>Ink</td><td>blue</td><td>3</td></tr>',
        '<tr><td colspan="2">Total</td><td>5</td></tr>',
        '</table>',
      ),
    );
  });

  it('writes the rows of a pipe-table continuation as HTML rows of an HTML table', () => {
    // Arrange
    const input = pages(
      md('<table>', '<tr><th>A</th><th>B</th></tr>', '<tr><td>1</td><td>2</td></tr>', '</table>'),
      md('| A | B |', '| --- | --- |', '| 3 | 4 |'),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(
      md(
        '<table>',
        '<tr><th>A</th><th>B</th></tr>',
        '<tr><td>1</td><td>2</td></tr>',
        '<tr><td>3</td><td>4</td></tr>',
        '</table>',
      ),
    );
  });

  it('keeps the line breaks of pipe-table cells when the table is written as HTML', () => {
    // Arrange: a cell holding two records (`OTSL<br>HTML`) in a pipe table continued as HTML.
    const input = pages(
      md('| Language | TEDs |', '| --- | --- |', '| OTSL<br>HTML | 0.965<br>0.969 |'),
      md(CONTINUED_TABLE, '<table>', '<tr><td colspan="2">Total</td></tr>', '</table>'),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toContain('<tr><td>OTSL<br>HTML</td><td>0.965<br>0.969</td></tr>');
  });

  it('takes the last of two pipe tables ending a page and the first of two opening the next', () => {
    // Arrange
    const other = md('| k | v |', '| --- | --- |', '| a | b |');
    const input = pages(
      md(other, HEADER, '| North | 10 | 12 |'),
      md(HEADER, '| South | 7 | 9 |', other),
    );
    // Act
    const result = assembleDocumentMarkdown(input);
    // Assert
    expect(result.markdown).toBe(
      md(other, HEADER, '| North | 10 | 12 |', '| South | 7 | 9 |', '', other),
    );
  });

  it('leaves alone what only looks like a table at a page break', () => {
    // Arrange: pipe lines without a delimiter row, an unclosed HTML table, a closing tag
    // without its opening, nested tables, and a table of no cells.
    const cases = [
      pages('| not a table |', '| not a table |'),
      pages(md(HEADER, '| A | 1 | 2 |'), md('<table>', '<tr><td>A</td></tr>')),
      pages(md('text', '</table>'), '<table><tr><td>x</td></tr></table>'),
      pages(
        '<table><tr><td><table><tr><td>x</td></tr></table></td></tr></table>',
        '<table><tr><td>y</td></tr></table>',
      ),
      pages('<table></table>', '<table></table>'),
      pages(md(HEADER, '| A | 1 | 2 |'), '| lone row |'),
    ];
    // Act
    const results = cases.map(assembleDocumentMarkdown);
    // Assert
    expect(results.map((r) => r.warnings.length)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
