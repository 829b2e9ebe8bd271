import { describe, expect, it } from 'vitest';
import {
  flagPotentialHallucinations,
  normalizeLists,
  postprocessDocument,
  POSTPROCESS_THRESHOLDS,
  removeDuplicateRegions,
  renumberHeadings,
  stripWrappingFence,
  toPlainParagraphs,
} from '../../../../functions/core/domain/postprocess.js';
import { PostprocessWarning } from '../../../../functions/core/domain/schemas.js';

const md = (...lines: string[]): string => lines.join('\n');
const fence = '```';

/** A page of a paper as a vision model answered it: wrapped in a fence, headings too deep. */
const paperPage = md(
  `${fence}markdown`,
  '## Attention Is All You Need',
  '',
  'Ashish Vaswani, Noam Shazeer, Niki Parmar',
  '',
  '#### Abstract',
  '',
  'The dominant sequence transduction models are based on complex recurrent or convolutional neural networks that include an encoder and a decoder.',
  '',
  '#### 1 Introduction',
  '',
  'Recurrent neural networks have been firmly established as state of the art approaches in sequence modeling.',
  '',
  '• Transformers rely entirely on an attention mechanism.',
  '• They train in twelve hours on **eight GPUs**.',
  `${fence}python`,
  'attention = softmax(q @ k.T / sqrt(d)) @ v',
  fence,
  fence,
);

const invoicePage = md(
  '# INVOICE',
  '',
  'Invoice number: INV-2024-0117, issued 12 March 2024',
  '',
  '| Description | Qty | Unit price | Amount |',
  '|---|---|---|---|',
  '| Consulting services, March | 10 | 120.00 | 1,200.00 |',
  '| Travel expenses | 1 | 85.50 | 85.50 |',
  '| | | | |',
  '| 0 | 0 | 0 | 0 |',
  '| 0 | 0 | 0 | 0 |',
  '| 0 | 0 | 0 | 0 |',
  '',
  'Paid:',
  '- Yes',
  '- Yes',
  '- Yes',
  '',
  'Total due: 1,285.50 EUR',
);

const loopSentence =
  'The goal of reducing sequential computation also forms the foundation of the Extended Neural GPU.';

/** A page on which the model fell into a repetition loop, line after line. */
const loopPage = md(
  '### 2 Background',
  '',
  ...Array<string>(30).fill(loopSentence),
  '',
  'Self-attention relates different positions of a single sequence.',
);

describe('stripWrappingFence', () => {
  it('unwraps a page wrapped in a markdown fence and keeps the code block inside it', () => {
    // Act
    const result = stripWrappingFence(paperPage, 1);
    // Assert
    const lines = result.markdown.split('\n');
    expect(lines[0]).toBe('## Attention Is All You Need');
    expect(lines.slice(-3)).toEqual([
      `${fence}python`,
      'attention = softmax(q @ k.T / sqrt(d)) @ v',
      fence,
    ]);
    expect(result.warning).toEqual({
      kind: 'fence_stripped',
      severity: 'info',
      page_number: 1,
      detail: 'removed a code fence (```markdown) wrapping the whole page',
    });
  });

  it('unwraps a bare backtick fence and a tilde fence, ignoring blank lines around them', () => {
    // Act
    const bare = stripWrappingFence(md('', fence, '# Title', '', 'Text.', fence, '', ''), 2);
    const tilde = stripWrappingFence(md('~~~md', '# Title', '~~~'), 3);
    // Assert
    expect(bare.markdown).toBe('# Title\n\nText.');
    expect(bare.warning?.detail).toBe('removed a code fence (```) wrapping the whole page');
    expect(tilde.markdown).toBe('# Title');
    expect(tilde.warning?.detail).toBe('removed a code fence (~~~md) wrapping the whole page');
  });

  it('unwraps nested wrappers in one pass, so a second pass finds nothing', () => {
    // Arrange
    const page = md(`${fence}markdown`, `${fence}markdown`, '# Title', fence, fence);
    // Act
    const once = stripWrappingFence(page, 1);
    const twice = stripWrappingFence(once.markdown, 1);
    // Assert
    expect(once.markdown).toBe('# Title');
    expect(once.warning?.detail).toContain('2 nested code fences');
    expect(twice).toEqual({ markdown: '# Title', warning: null });
  });

  it('removes a markdown opening fence that was never closed (an answer cut short)', () => {
    // Act
    const result = stripWrappingFence(md(`${fence}markdown`, '# Title', 'Text that was cut'), 4);
    // Assert
    expect(result.markdown).toBe('# Title\nText that was cut');
    expect(result.warning?.detail).toContain('never closed');
  });

  it('removes an unclosed markdown opening that holds a closed code block', () => {
    // Arrange
    const page = md(`${fence}markdown`, '# T', `${fence}python`, 'x = 1', fence);
    // Act
    const result = stripWrappingFence(page, 1);
    // Assert
    expect(result.markdown).toBe(md('# T', `${fence}python`, 'x = 1', fence));
  });

  it('leaves a page that starts and ends with two separate code blocks', () => {
    // Arrange
    const page = md(
      fence,
      'a = 1',
      fence,
      '',
      'Between the two listings.',
      '',
      fence,
      'b = 2',
      fence,
    );
    // Act
    const result = stripWrappingFence(page, 1);
    // Assert
    expect(result).toEqual({ markdown: page, warning: null });
  });

  it('leaves a page that is one code block in a language, and an unclosed bare fence', () => {
    // Arrange
    const python = md(`${fence}python`, 'print(1)', fence);
    const unclosed = md(fence, 'print(1)');
    // Act
    const results = [python, unclosed].map((page) => stripWrappingFence(page, 1));
    // Assert
    expect(results).toEqual([
      { markdown: python, warning: null },
      { markdown: unclosed, warning: null },
    ]);
  });

  it('leaves a page whose fence closes before its last line, and a page without fences', () => {
    // Arrange
    const early = md(`${fence}markdown`, '# T', fence, 'after', fence);
    const plain = md('# Title', '', 'Text.');
    // Act
    const results = [early, plain, '', '   '].map((page) => stripWrappingFence(page, 1));
    // Assert
    expect(results.map((r) => r.warning)).toEqual([null, null, null, null]);
    expect(results.map((r) => r.markdown)).toEqual([early, plain, '', '   ']);
  });

  it('leaves a wrapper whose inner code block is never closed', () => {
    // Arrange
    const page = md(fence, `${fence}python`, 'x = 1', fence);
    // Act
    const result = stripWrappingFence(page, 1);
    // Assert
    expect(result.warning).toBeNull();
  });
});

describe('removeDuplicateRegions', () => {
  it('cuts a loop of the same line to one occurrence and says how many were removed', () => {
    // Act
    const result = removeDuplicateRegions(loopPage, 5);
    // Assert
    expect(result.markdown).toBe(
      md(
        '### 2 Background',
        '',
        loopSentence,
        '',
        'Self-attention relates different positions of a single sequence.',
      ),
    );
    expect(result.warning).toEqual({
      kind: 'duplicate_region',
      severity: 'warn',
      page_number: 5,
      detail: 'removed 29 repetitions of a looping passage; kept the first occurrence at line 3',
    });
  });

  it('cuts a sentence repeated within one line, keeping what follows the loop', () => {
    // Arrange
    const line = `Results. ${'The encoder maps an input sequence to continuous representations. '.repeat(12)}Then it stops.`;
    // Act
    const result = removeDuplicateRegions(md('# Model', line), 1);
    // Assert
    expect(result.markdown).toBe(
      md(
        '# Model',
        'Results. The encoder maps an input sequence to continuous representations. Then it stops.',
      ),
    );
    expect(result.warning?.detail).toBe(
      'removed 11 repetitions of a looping passage; kept the first occurrence at line 2',
    );
  });

  it('cuts a phrase loop without punctuation that runs to the end of the line', () => {
    // Arrange
    const line = `Approved by the board of directors ${'of the company and its subsidiaries '.repeat(20)}`;
    // Act
    const result = removeDuplicateRegions(line, 1);
    // Assert
    expect(result.markdown).toBe(
      'Approved by the board of directors of the company and its subsidiaries ',
    );
  });

  it('cuts a loop of paragraphs separated by blank lines and a loop of a pair of lines', () => {
    // Arrange
    const paragraphs = md(
      'Intro line of the page.',
      '',
      loopSentence,
      '',
      loopSentence,
      '',
      loopSentence,
      '',
      'End.',
    );
    const pair = md(
      'Name: Jane Doe, Department of Physics',
      'Signed on the first of March',
      'Name: Jane Doe, Department of Physics',
      'Signed on the first of March',
      'Name: Jane Doe, Department of Physics',
      'Signed on the first of March',
    );
    // Act
    const results = [paragraphs, pair].map((page) => removeDuplicateRegions(page, 1));
    // Assert
    expect(results[0]?.markdown).toBe(md('Intro line of the page.', '', loopSentence, '', 'End.'));
    expect(results[1]?.markdown).toBe(
      md('Name: Jane Doe, Department of Physics', 'Signed on the first of March'),
    );
  });

  it('keeps the trailing newline when the loop ends the page', () => {
    // Act
    const result = removeDuplicateRegions(`${md(loopSentence, loopSentence, loopSentence)}\n`, 1);
    // Assert
    expect(result.markdown).toBe(`${loopSentence}\n`);
  });

  it('removes a repeated paragraph and a repeated table after their first occurrence', () => {
    // Arrange
    const table = md(
      '| Region | Revenue |',
      '|---|---|',
      '| North America | 1,200 |',
      '| Europe | 950 |',
    );
    const paragraph = 'All amounts are in thousands of euros unless stated otherwise.';
    const page = md(
      '# Results',
      '',
      paragraph,
      '',
      table,
      '',
      'Revenue grew in every region.',
      '',
      table,
      '',
      paragraph,
      '',
      'Notes follow.',
    );
    // Act
    const result = removeDuplicateRegions(page, 2);
    // Assert
    expect(result.markdown).toBe(
      md(
        '# Results',
        '',
        paragraph,
        '',
        table,
        '',
        'Revenue grew in every region.',
        '',
        'Notes follow.',
      ),
    );
    expect(result.warning?.detail).toBe(
      'removed 2 repeated blocks; kept the first occurrence at line 3',
    );
  });

  it('leaves short repeated table rows, empty cells and list items of an invoice', () => {
    // Act
    const result = removeDuplicateRegions(invoicePage, 1);
    // Assert
    expect(result).toEqual({ markdown: invoicePage, warning: null });
  });

  it('leaves long lines repeated only twice and identical table rows repeated under six times', () => {
    // Arrange
    const row = '| Consulting services, March 2024 | 10 | 120.00 |';
    const page = md(
      loopSentence,
      loopSentence,
      '',
      '| Service | Hours | Rate |',
      '|---|---|---|',
      ...Array<string>(POSTPROCESS_THRESHOLDS.tableRowLoopMinCount - 1).fill(row),
    );
    // Act
    const result = removeDuplicateRegions(page, 1);
    // Assert
    expect(result).toEqual({ markdown: page, warning: null });
  });

  it('cuts a loop of a table row repeated six times or more', () => {
    // Arrange
    const row = '| Consulting services, March 2024 | 10 | 120.00 |';
    const page = md('| Service | Hours | Rate |', '|---|---|---|', ...Array<string>(40).fill(row));
    // Act
    const result = removeDuplicateRegions(page, 1);
    // Assert
    expect(result.markdown).toBe(md('| Service | Hours | Rate |', '|---|---|---|', row));
    expect(result.warning?.detail).toBe(
      'removed 39 repetitions of a looping passage; kept the first occurrence at line 3',
    );
  });

  it('leaves dot leaders, form blanks and a long run of a short unit', () => {
    // Arrange
    const page = md(
      '1 Introduction ........................................ 1',
      '1 Introduction ........................................ 1',
      '1 Introduction ........................................ 1',
      '',
      'Signature: ______________ Signature: ______________ Signature: ______________',
      '',
      'Signature of applicant: ______________ Date: ________',
      '',
      'Signature of applicant: ______________ Date: ________',
      '',
      Array<string>(200).fill('0').join(' '),
      Array<string>(50).fill('ha').join(' '),
    );
    // Act
    const result = removeDuplicateRegions(page, 1);
    // Assert
    expect(result).toEqual({ markdown: page, warning: null });
  });

  it('leaves loops inside code blocks and repeated code blocks', () => {
    // Arrange
    const code = md(`${fence}text`, loopSentence, loopSentence, loopSentence, fence);
    const page = md(code, '', code, '', code);
    // Act
    const result = removeDuplicateRegions(page, 1);
    // Assert
    expect(result).toEqual({ markdown: page, warning: null });
  });

  it('finds a loop whose unit starts with a shorter repetition', () => {
    // Arrange
    const unit = 'no no the committee approved the annual budget';
    const page = `${unit} ${unit} ${unit}`;
    // Act
    const result = removeDuplicateRegions(page, 1);
    // Assert
    expect(result.markdown).toBe(unit);
  });

  it('reports repetitions and blocks together when both occur', () => {
    // Arrange
    const paragraph = 'This agreement is governed by the laws of the State of New York.';
    const page = md(
      paragraph,
      '',
      'Section 2',
      '',
      paragraph,
      '',
      loopSentence,
      loopSentence,
      loopSentence,
    );
    // Act
    const result = removeDuplicateRegions(page, 1);
    // Assert
    expect(result.markdown).toBe(md(paragraph, '', 'Section 2', '', loopSentence));
    expect(result.warning?.detail).toBe(
      'removed 2 repetitions of a looping passage and 1 repeated block; kept the first occurrence at line 1',
    );
  });
});

describe('renumberHeadings', () => {
  const pagesOf = (...markdowns: string[]) =>
    markdowns.map((markdown, k) => ({ pageNumber: k + 1, markdown }));

  it('moves a document whose top heading level is ## up to #', () => {
    // Act
    const [page] = renumberHeadings(pagesOf(md('## Title', 'Text.', '### Part', '#### Detail')));
    // Assert
    expect(page?.markdown).toBe(md('# Title', 'Text.', '## Part', '### Detail'));
    expect(page?.warning).toEqual({
      kind: 'heading_renumbered',
      severity: 'info',
      page_number: 1,
      detail: 'changed the level of 3 headings for a consistent outline across pages',
    });
  });

  it('closes jumps of more than one level going down and keeps siblings together', () => {
    // Act
    const [page] = renumberHeadings(
      pagesOf(md('# Report', '### 1 Scope', '### 2 Method', '#### 2.1 Data', '# Annex')),
    );
    // Assert
    expect(page?.markdown).toBe(
      md('# Report', '## 1 Scope', '## 2 Method', '### 2.1 Data', '# Annex'),
    );
    expect(page?.warning?.detail).toContain('3 headings');
  });

  it('continues the outline from one page to the next', () => {
    // Act
    const results = renumberHeadings(
      pagesOf(
        md('# Paper', '', '## 1 Introduction', '', '### 1.1 Background'),
        md('### 1.2 Related work', '', '#### 1.2.1 Transformers', '', '## 2 Method'),
      ),
    );
    // Assert
    expect(results[0]?.warning).toBeNull();
    expect(results[1]).toEqual({ markdown: results[1]?.markdown, warning: null });
  });

  it('gives a section name that recurs on later pages the level it had first', () => {
    // Act
    const results = renumberHeadings(
      pagesOf(
        md('# Annual report', '## Results', 'Text.', '## Outlook'),
        md('# Annual report', '### **Results**', '#### Regional detail', 'Text.'),
      ),
    );
    // Assert
    expect(results[1]?.markdown).toBe(
      md('# Annual report', '## **Results**', '### Regional detail', 'Text.'),
    );
    expect(results[1]?.warning?.detail).toContain('2 headings');
  });

  it('lets the no-jump rule win over a recurring name first seen deeper', () => {
    // Act
    const results = renumberHeadings(
      pagesOf(md('# A', '## B', '### Notes'), md('# C', '### Notes')),
    );
    // Assert
    expect(results[1]?.markdown).toBe(md('# C', '## Notes'));
  });

  it('follows page numbers, not the order of the array, and answers in the array order', () => {
    // Act
    const results = renumberHeadings([
      { pageNumber: 2, markdown: '#### Later section' },
      { pageNumber: 1, markdown: md('## Title', '### First section') },
    ]);
    // Assert
    expect(results.map((r) => r.markdown)).toEqual([
      '### Later section',
      md('# Title', '## First section'),
    ]);
  });

  it('leaves a consistent outline byte for byte and ignores code, hashtags and empty headings', () => {
    // Arrange
    const page = md(
      '# Title #',
      '## Part',
      '#hashtag is not a heading',
      '#',
      `${fence}python`,
      '#### a comment in code',
      fence,
      '### Detail',
    );
    // Act
    const results = renumberHeadings(pagesOf(page));
    // Assert
    expect(results).toEqual([{ markdown: page, warning: null }]);
  });
});

describe('normalizeLists', () => {
  it('turns bullet glyphs into dashes and 1) into 1., keeping the numbers as printed', () => {
    // Arrange
    const page = md(
      'Key points:',
      '• Revenue grew',
      '● Costs fell',
      '▪ Margin rose',
      '◦ Cash improved',
      '– Debt was repaid',
      '* Staff grew',
      '+ Offices opened',
      '•Tight bullet',
      '-   Wide gap',
      '',
      '3) Third step',
      '7) Seventh step',
    );
    // Act
    const result = normalizeLists(page, 4);
    // Assert
    expect(result.markdown).toBe(
      md(
        'Key points:',
        '- Revenue grew',
        '- Costs fell',
        '- Margin rose',
        '- Cash improved',
        '- Debt was repaid',
        '- Staff grew',
        '- Offices opened',
        '- Tight bullet',
        '- Wide gap',
        '',
        '3. Third step',
        '7. Seventh step',
      ),
    );
    expect(result.warning).toEqual({
      kind: 'list_normalized',
      severity: 'info',
      page_number: 4,
      detail: 'normalised the marker of 11 list items',
    });
  });

  it('indents nested items by 2 under a dash, 3 under 1. and 4 under 10.', () => {
    // Arrange
    const page = md(
      '• Hardware',
      '    ◦ GPUs',
      '\t▪ Eight of them',
      '      ▪ Sixteen later',
      '• Software',
      '1. First',
      '  - under first',
      '10. Tenth',
      '     - under tenth',
      '       continued text of that item',
    );
    // Act
    const result = normalizeLists(page, 1);
    // Assert
    expect(result.markdown).toBe(
      md(
        '- Hardware',
        '  - GPUs',
        '  - Eight of them',
        '    - Sixteen later',
        '- Software',
        '1. First',
        '   - under first',
        '10. Tenth',
        '    - under tenth',
        '       continued text of that item',
      ),
    );
    expect(result.warning?.detail).toBe(
      'normalised the marker of 5 list items and the indentation of 5 list items',
    );
  });

  it('reports indentation alone when the markers were already GFM', () => {
    // Act
    const result = normalizeLists(md('- a', '    - b'), 1);
    // Assert
    expect(result.markdown).toBe(md('- a', '  - b'));
    expect(result.warning?.detail).toBe('normalised the indentation of 1 list item');
  });

  it('leaves emphasis and bold at a line start, rules, tables, quotes, code and HTML', () => {
    // Arrange
    const page = md(
      '*Emphasis* opens this line.',
      '**Bold** opens this one.',
      '***',
      '* * *',
      '---',
      '',
      '| * | + |',
      '|---|---|',
      '| • | 1) |',
      '',
      '> * quoted item',
      '',
      fence,
      '* pointer',
      '1) not a list',
      fence,
      '<li>• html</li>',
      '– 12 –',
    );
    // Act
    const result = normalizeLists(page, 1);
    // Assert
    expect(result).toEqual({ markdown: page, warning: null });
  });

  it('leaves indented code, and a number that cannot interrupt a paragraph', () => {
    // Arrange
    const page = md(
      'Paragraph.',
      '',
      '    * indented code, not a list',
      '',
      'Sales were strongest in',
      '2023) and weaker later.',
    );
    // Act
    const result = normalizeLists(page, 1);
    // Assert
    expect(result).toEqual({ markdown: page, warning: null });
  });

  it('ends a list at an unindented paragraph after a blank line and at a heading', () => {
    // Arrange
    const page = md('- a', '', 'Paragraph.', '  * new list', '# H', '  + again');
    // Act
    const result = normalizeLists(page, 1);
    // Assert
    expect(result.markdown).toBe(md('- a', '', 'Paragraph.', '- new list', '# H', '- again'));
  });
});

describe('flagPotentialHallucinations', () => {
  const evidence = [
    'The dominant sequence transduction models are based on complex recur-',
    'rent or convolutional neural networks. We propose a new simple network',
    'architecture, the Transformer.',
  ].join('\n');

  it('flags sentences whose words are mostly missing from the evidence, with counts only', () => {
    // Arrange
    const page = md(
      '# Abstract',
      '',
      'The dominant sequence transduction models are based on complex recurrent or convolutional neural networks.',
      'We propose a new simple network architecture, the **Transformer**.',
      '',
      'It was awarded the Turing prize for outstanding contributions in 2031.',
    );
    // Act
    const result = flagPotentialHallucinations(page, evidence, 3);
    // Assert
    expect(result).toEqual({
      kind: 'potential_hallucination',
      severity: 'warn',
      page_number: 3,
      detail:
        "1 of 3 sentences (31% of the page's words) have under half of their words in the evidence text; line 6",
    });
  });

  it('supports text that differs from the evidence in case, punctuation and reading order', () => {
    // Arrange
    const page = md(
      '| Network | Type |',
      '|---|---|',
      '| THE TRANSFORMER: a new simple network architecture |',
      '- Complex, *recurrent* or convolutional neural networks!',
    );
    // Act
    const result = flagPotentialHallucinations(page, evidence, 1);
    // Assert
    expect(result).toBeNull();
  });

  it('ignores sentences of fewer than five words and fence lines', () => {
    // Arrange
    const page = md('Totally invented here.', `${fence}python`, 'print(made up code)', fence);
    // Act
    const result = flagPotentialHallucinations(page, evidence, 1);
    // Assert
    expect(result).toBeNull();
  });

  it('checks code lines and counts each evidence word once', () => {
    // Arrange
    const sentence = 'We propose a new simple network architecture.';
    const page = md(
      sentence,
      sentence,
      fence,
      'print the dominant recurrent neural networks',
      fence,
    );
    // Act
    const result = flagPotentialHallucinations(page, evidence, 1);
    // Assert
    expect(result?.detail).toBe(
      "1 of 3 sentences (35% of the page's words) have under half of their words in the evidence text; line 2",
    );
  });

  it('flags nothing without evidence or with evidence that has no words', () => {
    // Act
    const results = [null, '', ' \n .. '].map((e) =>
      flagPotentialHallucinations('An entirely invented sentence about nothing at all.', e, 1),
    );
    // Assert
    expect(results).toEqual([null, null, null]);
  });

  it('lists the first five lines and counts the rest', () => {
    // Arrange
    const invented = Array.from(
      { length: 8 },
      (_, k) => `Invented claim number ${k} about quantum gravity.`,
    );
    // Act
    const result = flagPotentialHallucinations(md(...invented), evidence, 1);
    // Assert
    expect(result?.detail).toBe(
      "8 of 8 sentences (100% of the page's words) have under half of their words in the evidence text; lines 1, 2, 3, 4, 5 and 3 more",
    );
  });
});

describe('toPlainParagraphs', () => {
  it('turns headings and list items into paragraphs and removes emphasis', () => {
    // Arrange
    const page = md(
      '# Attention Is All You Need',
      'The **Transformer** is *simple*.',
      '',
      '- First _point_',
      '  continued **here**',
      '- Second point',
      '  1. nested',
      '',
      'Title in setext',
      '===============',
      'Next paragraph.',
    );
    // Act
    const plain = toPlainParagraphs(page);
    // Assert
    expect(plain).toBe(
      md(
        'Attention Is All You Need',
        '',
        'The Transformer is simple.',
        '',
        'First point',
        'continued here',
        '',
        'Second point',
        '',
        'nested',
        '',
        'Title in setext',
        '',
        'Next paragraph.',
      ),
    );
  });

  it('keeps tables, HTML, code blocks, inline code, URLs, rules and literal asterisks', () => {
    // Arrange
    const page = md(
      '## Data',
      '| **Item** | Qty |',
      '|---|---|',
      '| *Widget* | 2 |',
      '',
      '<table><tr><td>**x**</td></tr></table>',
      '',
      `${fence}python`,
      '# not a heading',
      '- not a list',
      fence,
      '',
      'Call `f(*args, **kwargs)` at https://example.com/a_b_c or <https://x.org/_y_>.',
      'snake_case_name and 2*3*4 = 24 and a * b * c.',
      '',
      '***',
    );
    // Act
    const plain = toPlainParagraphs(page);
    // Assert
    expect(plain).toBe(
      md(
        'Data',
        '',
        '| **Item** | Qty |',
        '|---|---|',
        '| *Widget* | 2 |',
        '',
        '<table><tr><td>**x**</td></tr></table>',
        '',
        `${fence}python`,
        '# not a heading',
        '- not a list',
        fence,
        '',
        'Call `f(*args, **kwargs)` at https://example.com/a_b_c or <https://x.org/_y_>.',
        'snake_case_name and 2*3*4 = 24 and a * b * c.',
        '',
        '***',
      ),
    );
  });

  it('unwraps nested emphasis and collapses runs of blank lines', () => {
    // Act
    const plain = toPlainParagraphs(
      md('', '***Very** important _and **nested**_*', '', '', 'End.'),
    );
    // Assert
    expect(plain).toBe(md('', 'Very important and nested', '', 'End.'));
  });

  it('keeps a rule under a list item, which is not a setext underline', () => {
    // Act
    const plain = toPlainParagraphs(md('- item', '---', 'text'));
    // Assert
    expect(plain).toBe(md('item', '---', 'text'));
  });
});

describe('postprocessDocument', () => {
  const document = [
    { pageNumber: 1, markdown: paperPage, evidenceText: null },
    {
      pageNumber: 2,
      markdown: loopPage.replace('### 2 Background', '#### 2 Background'),
      evidenceText: md(
        '2 Background',
        loopSentence,
        'Self-attention relates different positions of a single sequence.',
      ),
    },
    {
      pageNumber: 3,
      markdown: `${invoicePage}\n\nThis invoice was approved by the Federal Reserve of Atlantis yesterday.`,
      evidenceText: invoicePage,
    },
  ];

  it('applies every step and reports each change in order on the page it concerns', () => {
    // Act
    const pages = postprocessDocument(document, { maintainFormat: true });
    // Assert
    expect(pages.map((p) => [p.pageNumber, p.warnings.map((w) => w.kind)])).toEqual([
      [1, ['fence_stripped', 'heading_renumbered', 'list_normalized']],
      [2, ['duplicate_region', 'heading_renumbered']],
      [3, ['potential_hallucination']],
    ]);
    expect(pages[0]?.markdown.split('\n').slice(0, 5)).toEqual([
      '# Attention Is All You Need',
      '',
      'Ashish Vaswani, Noam Shazeer, Niki Parmar',
      '',
      '## Abstract',
    ]);
    expect(pages[1]?.markdown.split('\n').slice(0, 3)).toEqual([
      '## 2 Background',
      '',
      loopSentence,
    ]);
    expect(pages[2]?.markdown).toBe(document[2]?.markdown);
  });

  it('never puts a long line of the content in a warning detail', () => {
    // Arrange
    const longLines = document
      .flatMap((p) => p.markdown.split('\n'))
      .map((line) => line.trim())
      .filter((line) => line.length >= 40);
    // Act
    const warnings = postprocessDocument(document, { maintainFormat: true }).flatMap(
      (p) => p.warnings,
    );
    // Assert
    expect(warnings).toHaveLength(6);
    for (const warning of warnings) {
      expect(PostprocessWarning.parse(warning)).toEqual(warning);
      expect(warning.detail.length).toBeLessThanOrEqual(160);
      for (const line of longLines) expect(warning.detail).not.toContain(line.slice(0, 40));
    }
  });

  it('yields plain paragraphs without heading or list warnings when maintainFormat is false', () => {
    // Act
    const pages = postprocessDocument(document, { maintainFormat: false });
    // Assert
    expect(pages.map((p) => p.warnings.map((w) => w.kind))).toEqual([
      ['fence_stripped'],
      ['duplicate_region'],
      ['potential_hallucination'],
    ]);
    expect(pages[0]?.markdown).toContain('They train in twelve hours on eight GPUs.');
    expect(pages[0]?.markdown).not.toMatch(/^(#|- |• )/m);
    expect(pages[2]?.markdown).toContain('| Consulting services, March | 10 | 120.00 | 1,200.00 |');
  });

  it('is idempotent: a second run keeps the Markdown and reports no further change', () => {
    for (const maintainFormat of [true, false]) {
      // Arrange
      const once = postprocessDocument(document, { maintainFormat });
      // Act
      const twice = postprocessDocument(
        once.map((p, k) => ({ ...p, evidenceText: document[k]?.evidenceText ?? null })),
        { maintainFormat },
      );
      // Assert
      expect(twice.map((p) => p.markdown)).toEqual(once.map((p) => p.markdown));
      expect(twice.flatMap((p) => p.warnings)).toEqual(
        once.flatMap((p) => p.warnings).filter((w) => w.kind === 'potential_hallucination'),
      );
    }
  });

  it('normalises CRLF line endings and leaves a clean page untouched', () => {
    // Act
    const pages = postprocessDocument(
      [{ pageNumber: 1, markdown: '# Title\r\n\r\n- item\r\n', evidenceText: null }],
      { maintainFormat: true },
    );
    // Assert
    expect(pages).toEqual([{ pageNumber: 1, markdown: '# Title\n\n- item\n', warnings: [] }]);
  });
});
