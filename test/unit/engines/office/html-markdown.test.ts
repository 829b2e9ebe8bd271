import { describe, expect, it } from 'vitest';
import {
  flowLayout,
  LETTER_PAGE,
  markdownBlocks,
} from '../../../../functions/engines/office/flow-layout.js';
import { convertHtml } from '../../../../functions/engines/office/html.js';
import {
  htmlToMarkdown,
  normaliseMarkdown,
  PAGE_BREAK,
  splitPages,
} from '../../../../functions/engines/office/html-markdown.js';
import { convertMarkdown } from '../../../../functions/engines/office/markdown-document.js';
import { MAX_FLOW_PAGE_CHARS } from '../../../../functions/engines/office/pages.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('htmlToMarkdown', () => {
  it('writes a table with row and column spans as GFM, repeating the spanning cells', () => {
    // Arrange
    const html = `<table>
      <thead><tr><th>Item</th><th colspan="2">Quarter</th></tr></thead>
      <tbody>
        <tr><td rowspan="2">Tea <b>green</b></td><td><p>Q1</p><p>note</p></td><td>9|1</td></tr>
        <tr><td>Q2</td><td></td></tr>
      </tbody></table>`;
    // Act
    const markdown = htmlToMarkdown(html);
    // Assert
    expect(markdown).toBe(
      [
        '| Item | Quarter | Quarter |',
        '| --- | --- | --- |',
        '| Tea **green** | Q1<br>note | 9\\|1 |',
        '| Tea **green** | Q2 |  |',
      ].join('\n'),
    );
  });

  it('keeps the content of a cell spanning more than 64 grid cells in its first cell only', () => {
    // Arrange: a cell over 1000 rows × 10 columns, then a 2 × 2 span.
    const rows = Array.from({ length: 999 }, () => '<tr></tr>').join('');
    const html =
      '<table><tr><th>h</th></tr><tr><td rowspan="1000" colspan="10">long text</td></tr>' +
      `${rows}</table><table><tr><td rowspan="2" colspan="2">four</td></tr><tr></tr></table>`;
    // Act
    const markdown = htmlToMarkdown(html);
    // Assert
    expect(markdown.split('long text')).toHaveLength(2);
    expect(markdown).toContain('| four | four |\n| --- | --- |\n| four | four |');
  });

  it('flattens a table inside a cell to its text', () => {
    // Arrange
    const html =
      '<table><tr><td>outer</td><td><table><tr><td>a</td><td>b</td></tr></table></td></tr></table>';
    // Act
    const markdown = htmlToMarkdown(html);
    // Assert
    expect(markdown).toBe('| outer | a b |\n| --- | --- |');
  });

  it('turns embedded images into numbered figure placeholders and keeps linked ones', () => {
    // Arrange
    const html =
      '<p><img alt="A chart [2024]" src="data:image/png;base64,AAAA"></p><p><img src="https://x.test/a b.png" alt=""></p><img src="#figure-7" alt="kept">';
    // Act
    const markdown = htmlToMarkdown(html, { figures: { count: 2 } });
    // Assert
    expect(markdown).toBe(
      '![A chart \\[2024\\]](#figure-3)\n\n![](https://x.test/a%20b.png)\n\n![kept](#figure-7)',
    );
  });

  it('drops scripts, styles and the head, and keeps headings, lists and emphasis', () => {
    // Arrange
    const html =
      '<html><head><title>T</title><style>p{}</style></head><body><script>alert(1)</script><h2>Plan</h2><ol start="3"><li>three<ul><li>inner</li></ul></li><li>four</li></ol><p><em>done</em> <s>old</s></p></body></html>';
    // Act
    const markdown = htmlToMarkdown(html);
    // Assert
    expect(markdown).toBe('## Plan\n\n3. three\n   - inner\n4. four\n\n*done* ~~old~~');
  });

  it('marks CSS page breaks before and after elements', () => {
    // Arrange
    const html =
      '<p>one</p><h1 style="page-break-before: always">two</h1><div style="break-after:page">three</div><p>four</p>';
    // Act
    const pages = splitPages(htmlToMarkdown(html));
    // Assert
    expect(pages).toEqual(['one', '# two\n\nthree', 'four']);
  });
});

describe('splitPages and normaliseMarkdown', () => {
  it('keeps a block prefix with the text after a break and a table whole', () => {
    // Arrange
    const markdown = `# ${PAGE_BREAK}Title\n\n| a ${PAGE_BREAK}| b |\n\nend ${PAGE_BREAK} next`;
    // Act
    const pages = splitPages(markdown);
    // Assert
    expect(pages).toEqual(['', '# Title\n\n| a | b |\n\nend', 'next']);
  });

  it('normalises line ends, the BOM, trailing blanks and blank runs, but not code', () => {
    // Arrange
    const markdown = '\ufeffa  \r\nb \r\n\r\n\r\n\r\n```\nx  \n\n\n\ny\n```\n\n\n';
    // Act
    const normal = normaliseMarkdown(markdown);
    // Assert
    expect(normal).toBe('a  \nb\n\n```\nx  \n\n\n\ny\n```');
  });
});

describe('convertHtml', () => {
  it('gives one Letter page per CSS page, boxes in reading order inside the page', () => {
    // Arrange
    const html =
      '<h1>Report</h1><p>Intro text.</p><ul><li>a</li><li>b</li></ul><p style="page-break-before:always">Second page</p>';
    // Act
    const { pages, geometry } = convertHtml(utf8(html));
    // Assert
    expect(geometry).toBe('flow');
    expect(pages.map((p) => p.markdown)).toEqual([
      '# Report\n\nIntro text.\n\n- a\n- b',
      'Second page',
    ]);
    expect(pages[0]?.elements.map((e) => e.elementType)).toEqual([
      'heading',
      'paragraph',
      'list_item',
      'list_item',
    ]);
    expect(pages[0]).toMatchObject({ widthPt: 612, heightPt: 792, sourceText: null });
  });

  it('decodes the charset the page declares', () => {
    // Arrange: "café" in windows-1252.
    const bytes = Uint8Array.from([
      ...utf8('<meta charset="windows-1252"><p>caf'),
      0xe9,
      ...utf8('</p>'),
    ]);
    // Act
    const { pages } = convertHtml(bytes);
    // Assert
    expect(pages[0]?.markdown).toBe('café');
  });

  it('gives an empty page to an HTML file without content', () => {
    // Act
    const { pages } = convertHtml(utf8('<html><body><script>x()</script></body></html>'));
    // Assert
    expect(pages).toHaveLength(1);
    expect(pages[0]?.markdown).toBe('');
  });
});

describe('convertMarkdown', () => {
  it('keeps Markdown as it is, split at form feeds and page-break comments outside code', () => {
    // Arrange
    const source =
      '# One\r\n\r\ntext\f\n## Two\n\n```\n<!-- pagebreak -->\n```\n\n<!-- pagebreak -->\n\n\n\n- last\n\\newpage\n';
    // Act
    const { pages } = convertMarkdown(utf8(source));
    // Assert
    expect(pages.map((p) => p.markdown)).toEqual([
      '# One\n\ntext',
      '## Two\n\n```\n<!-- pagebreak -->\n```',
      '- last',
    ]);
    expect(pages[2]?.sourceText).toBe('- last');
  });

  it('cuts a page longer than MAX_FLOW_PAGE_CHARS at blank lines, never inside fenced code', () => {
    // Arrange: 1,200 paragraphs of 100 characters with a long code block across the first cut
    const paragraphs = Array.from({ length: 1200 }, (_, i) => `p${i} ${'y'.repeat(95)}`);
    const code = '```\n' + Array.from({ length: 20 }, () => 'x = 1\n\n').join('') + '```';
    paragraphs.splice(490, 0, code);
    // Act
    const { pages } = convertMarkdown(utf8(paragraphs.join('\n\n')));
    // Assert
    expect(pages).toHaveLength(3);
    expect(pages.map((p) => p.markdown).join('\n\n')).toBe(paragraphs.join('\n\n'));
    expect(pages[0]?.markdown.endsWith(code)).toBe(true);
    for (const page of pages) {
      expect(page.markdown.length).toBeLessThan(MAX_FLOW_PAGE_CHARS + 300);
      expect(page.sourceText).toBe(page.markdown);
    }
  });
});

describe('flow layout', () => {
  it('stacks blocks down the page and compresses them when they overflow', () => {
    // Arrange
    const long = Array.from({ length: 200 }, (_, i) => `Paragraph ${i} ${'word '.repeat(40)}`).join(
      '\n\n',
    );
    // Act
    const elements = flowLayout(markdownBlocks(`# Title\n\n${long}`), LETTER_PAGE);
    // Assert
    expect(elements).toHaveLength(201);
    const last = elements.at(-1)?.box;
    expect((last?.y ?? 0) + (last?.h ?? 0)).toBeLessThanOrEqual(792 - 72 + 1e-6);
    expect(elements.map((e) => e.box.y)).toEqual(
      elements.map((e) => e.box.y).sort((a, b) => a - b),
    );
    expect(elements[0]).toMatchObject({ elementType: 'heading', confidence: 0.5 });
  });

  it('tells blocks apart: code, tables, figures, quotes, items with continuation lines', () => {
    // Arrange
    const markdown =
      '```js\nlet a;\n```\n| a |\n| --- |\n![fig](#figure-1)\n> quote\n> more\n- item\n  continued\n- next\nplain\ntext';
    // Act
    const blocks = markdownBlocks(markdown);
    // Assert
    expect(blocks.map((b) => [b.kind, b.markdown.split('\n').length])).toEqual([
      ['code', 3],
      ['table', 2],
      ['figure', 1],
      ['quote', 2],
      ['list_item', 2],
      ['list_item', 1],
      ['paragraph', 2],
    ]);
    const elements = flowLayout(blocks, LETTER_PAGE);
    expect(elements.map((e) => e.label)).toEqual([
      'code',
      'table',
      'figure',
      'paragraph',
      'list',
      'list',
      'paragraph',
    ]);
    expect(elements[2]?.text).toBe('fig');
  });

  it('reads blocks as post-processing does: any bullet, pipe tables without outer pipes, tabs', () => {
    // Arrange
    const markdown = 'Intro\n• Apples\n\t• Green\n\nName | Qty\n--- | ---\nTea | 2\n~~~\n```\n~~~';
    // Act
    const blocks = markdownBlocks(markdown);
    // Assert
    expect(blocks.map((b) => [b.kind, b.markdown.split('\n').length, b.level])).toEqual([
      ['paragraph', 1, 0],
      ['list_item', 1, 0],
      ['list_item', 1, 2],
      ['table', 3, 0],
      ['code', 3, 0],
    ]);
  });
});
