import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnsupportedDocumentError } from '../../../../functions/core/domain/errors.js';
import { convertPptx } from '../../../../functions/engines/office/pptx.js';
import {
  HOSTILE,
  PT,
  apara,
  devFile,
  pptxOf,
  shape,
  zipOf,
} from '../../../support/office-fixtures.js';

const EMU = 12_700;

describe('convertPptx on the dev corpus', () => {
  it('gives one page per slide with the title, the table (spans repeated) and the footnote below it', async () => {
    // Act
    const { pages, geometry } = await convertPptx(devFile('docling-powerpoint_sample.pptx'));
    // Assert
    expect(geometry).toBe('file');
    expect(pages).toHaveLength(3);
    const [first] = pages;
    expect(first).toMatchObject({ widthPt: 960, heightPt: 540 });
    expect(first?.markdown.split('\n\n')[0]).toBe('# Test Table Slide');
    expect(first?.markdown).toContain(
      '|  | Class1 | Class1 | Class1 | Class2 | Class2 | Class2 |\n| --- | --- | --- | --- | --- | --- | --- |\n|  | A merged with B | A merged with B | C | A | B | C |',
    );
    // Reading order by position: the subtitle sits under the table.
    expect(first?.markdown.trimEnd().endsWith('With footnote')).toBe(true);
    expect(first?.elements.map((e) => [e.elementType, e.text.slice(0, 12)])).toEqual([
      ['title', 'Test Table S'],
      ['table', 'Class1 Class'],
      ['paragraph', 'With footnot'],
    ]);
    expect(first?.elements[0]?.box).toEqual({
      x: 1524000 / EMU,
      y: 644526 / EMU,
      w: 9144000 / EMU,
      h: 932409 / EMU,
    });
  });

  it('resolves bullets and title positions through the layout and master, and adds the speaker notes', async () => {
    // Act
    const { pages } = await convertPptx(devFile('docling-powerpoint_sample.pptx'));
    // Assert
    expect(pages[1]?.markdown).toBe(
      [
        '# Second slide title',
        'Let’s introduce a list',
        '- With foo\n- Bar\n- And baz things',
        'A rectangle shape with this text inside.',
        '> **Notes:**\n>\n> Some notes on the second slide.',
      ].join('\n\n'),
    );
    // The title placeholder has no position of its own: the master's applies.
    expect(pages[1]?.elements[0]).toMatchObject({
      elementType: 'title',
      box: { x: 838200 / EMU, y: 365125 / EMU },
    });
  });

  it('reads side-by-side text boxes left to right, numbered and bulleted lists', async () => {
    // Act
    const { pages } = await convertPptx(devFile('docling-powerpoint_sample.pptx'));
    // Assert
    const markdown = pages[2]?.markdown ?? '';
    const order = ['1. List item4', '- I1', 'Some info:', 'Maybe a list?', '1. List1', '- l1'];
    const positions = order.map((text) => markdown.indexOf(text));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(markdown).toContain('1. List item4\n2. List item5\n3. List item6');
    expect(markdown).toContain(
      '> **Notes:**\n>\n> Final notes on the third slide.\n>\n> Second line of notes.',
    );
    expect(pages[2]?.elements.map((e) => e.label)).toEqual([
      'list',
      'list',
      'paragraph',
      'paragraph',
      'list',
    ]);
  });

  it('grounds a picture as a figure at its position', async () => {
    // Act
    const { pages } = await convertPptx(devFile('docling-powerpoint_with_image.pptx'));
    // Assert
    expect(pages[0]?.markdown).toBe('# Docling\n\nImage test\n\n![](#figure-1)');
    expect(pages[0]?.elements.find((e) => e.label === 'figure')?.box).toEqual({
      x: 5689599 / EMU,
      y: 3022600 / EMU,
      w: 812800 / EMU,
      h: 812800 / EMU,
    });
  });

  it('gives a presentation without slides no pages', async () => {
    // Act
    const { pages } = await convertPptx(readFileSync(join(HOSTILE, 'pptx-no-slides.pptx')));
    // Assert
    expect(pages).toEqual([]);
  });
});

describe('convertPptx on built slides', () => {
  it('applies group transforms, skips hidden shapes and grounds footers outside the Markdown', async () => {
    // Arrange
    const group = `<p:grpSp><p:nvGrpSpPr><p:cNvPr id="9" name="Group"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="${100 * PT}" y="${200 * PT}"/><a:ext cx="${200 * PT}" cy="${100 * PT}"/><a:chOff x="0" y="0"/><a:chExt cx="${400 * PT}" cy="${200 * PT}"/></a:xfrm></p:grpSpPr>${shape({ at: [40, 20, 100, 50], paragraphs: [apara('Grouped')] })}</p:grpSp>`;
    const slide = [
      shape({ ph: '<p:ph type="title"/>', paragraphs: [apara('Hello')] }),
      group,
      shape({ at: [10, 10, 50, 20], paragraphs: [apara('Secret')], hidden: true }),
      shape({
        ph: '<p:ph type="sldNum" idx="12"/>',
        at: [600, 500, 100, 30],
        paragraphs: [apara('7')],
      }),
    ].join('');
    // Act
    const { pages } = await convertPptx(pptxOf([slide]));
    // Assert
    const [page] = pages;
    expect(page?.markdown).toBe('# Hello\n\nGrouped');
    expect(page?.elements).toEqual([
      expect.objectContaining({ elementType: 'title', box: { x: 36, y: 20, w: 648, h: 60 } }),
      expect.objectContaining({ text: 'Grouped', box: { x: 120, y: 210, w: 50, h: 25 } }),
      expect.objectContaining({ label: 'footer', text: '7' }),
    ]);
    expect(page?.sourceText).toBe('Hello Grouped 7');
  });

  it('nests list levels, counts numbered items, escapes Markdown in text and writes vertical merges', async () => {
    // Arrange
    const body = shape({
      ph: '<p:ph idx="1"/>',
      paragraphs: [
        apara('Top'),
        apara('Inner', '<a:pPr lvl="1"/>'),
        apara('Step', '<a:pPr lvl="1"><a:buAutoNum type="arabicPeriod" startAt="3"/></a:pPr>'),
        apara('Step', '<a:pPr lvl="1"><a:buAutoNum type="arabicPeriod"/></a:pPr>'),
        apara('Back'),
        apara('# not a heading *here*', '<a:pPr><a:buNone/></a:pPr>'),
      ],
    });
    const cell = (text: string, attrs = '') =>
      `<a:tc${attrs}><a:txBody><a:bodyPr/><a:p><a:r><a:t>${text}</a:t></a:r></a:p></a:txBody></a:tc>`;
    const table = `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="5" name="T"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="${400 * PT}"/><a:ext cx="${300 * PT}" cy="${60 * PT}"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tr>${cell('A')}${cell('B')}</a:tr><a:tr>${cell('tall', ' rowSpan="2"')}${cell('x')}</a:tr><a:tr>${cell('', ' vMerge="1"')}${cell('y|z')}</a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;
    // Act
    const { pages } = await convertPptx(pptxOf([body + table]));
    // Assert
    expect(pages[0]?.markdown).toBe(
      [
        '- Top\n  - Inner\n  3. Step\n  4. Step\n- Back',
        '\\# not a heading \\*here\\*',
        '| A | B |\n| --- | --- |\n| tall | x |\n| tall | y\\|z |',
      ].join('\n\n'),
    );
  });

  it('refuses a package without a presentation part', async () => {
    // Arrange
    const noPresentation = zipOf({ '[Content_Types].xml': '<Types/>', 'ppt/x.xml': '<x/>' });
    // Act
    const converting = convertPptx(noPresentation);
    // Assert
    await expect(converting).rejects.toBeInstanceOf(UnsupportedDocumentError);
    await expect(converting).rejects.toThrow(/no presentation part/);
  });

  it('names the part that is not well-formed XML', async () => {
    // Arrange
    const broken = pptxOf(['<p:sp x=></p:sp>']);
    // Act
    const converting = convertPptx(broken);
    // Assert
    await expect(converting).rejects.toThrow(/ppt\/slides\/slide1\.xml is not well-formed XML/);
  });
});
