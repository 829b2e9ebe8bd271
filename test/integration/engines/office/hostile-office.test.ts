import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DocumentRejectedError } from '../../../../functions/core/domain/errors.js';
import { convertDocx } from '../../../../functions/engines/office/docx.js';
import { convertPptx } from '../../../../functions/engines/office/pptx.js';
import { convertXlsx } from '../../../../functions/engines/office/xlsx.js';
import {
  DEFAULT_PACKAGE_LIMITS,
  openPackage,
} from '../../../../functions/engines/office/zip-package.js';
import { apara, docxOf, HOSTILE, para, pptxOf, shape } from '../../../support/office-fixtures.js';

const hostile = (file: string): Uint8Array => readFileSync(join(HOSTILE, file));

/** `depth` Word tables, each the only content of the cell of the one around it. */
function nestedTables(depth: number, inner: string): string {
  return `${'<w:tbl><w:tr><w:tc>'.repeat(depth)}${inner}${'</w:tc></w:tr></w:tbl>'.repeat(depth)}`;
}

describe('office packages: caps on total size and nesting', () => {
  it('refuses the 190-sheet workbook (198 MB of XML, each sheet at an ordinary ratio) by its total', async () => {
    // Arrange: each 1 MB sheet passes the per-part ratio check; exceljs grew the process by
    // 2.6 GB reading them all
    const workbook = hostile('rt-xlsx-190-sheets.xlsx');
    const before = process.memoryUsage().rss;
    // Act
    const converting = convertXlsx(workbook);
    // Assert
    await expect(converting).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(converting).rejects.toThrow(
      /the xlsx package inflates to more than 40 MB of XML .*: refused as too large or a zip bomb/,
    );
    expect(process.memoryUsage().rss - before).toBeLessThan(500 * 1024 * 1024);
  });

  it('counts the total over every part, not part by part', async () => {
    // Arrange: four parts of 6 KB each under a 20 KB total
    const files = Object.fromEntries(
      Array.from({ length: 4 }, (_, i) => [`word/part${i}.xml`, `<x>${'ab'.repeat(3000)}</x>`]),
    );
    const zip = docxOf(para('x'), files);
    // Act
    const opening = openPackage(zip, 'docx', {
      ...DEFAULT_PACKAGE_LIMITS,
      maxInflatedBytes: 20_000,
    });
    // Assert
    await expect(opening).rejects.toThrow(/inflates to more than 20 KB of XML/);
  });

  it('refuses the 3000 nested tables of the hostile corpus with the depth cap, not a stack overflow', async () => {
    // Arrange
    const docx = hostile('rt-docx-nested-tables-3000.docx');
    // Act
    const converting = convertDocx(docx);
    // Assert
    await expect(converting).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(converting).rejects.toThrow(
      /the docx part word\/document\.xml has tables nested deeper than 50 levels; refused/,
    );
  });

  it('converts tables nested 50 deep, the cap, without overflowing the readers', async () => {
    // Arrange
    const docx = docxOf(nestedTables(50, para('innermost cell')));
    // Act
    const document = await convertDocx(docx);
    // Assert
    expect(document.pages.map((p) => p.markdown).join('\n')).toContain('innermost cell');
  });

  it('refuses 51 nested tables', async () => {
    // Arrange
    const docx = docxOf(nestedTables(51, para('too deep')));
    // Act
    const converting = convertDocx(docx);
    // Assert
    await expect(converting).rejects.toThrow(/tables nested deeper than 50 levels/);
  });

  it('refuses a slide whose group shapes nest 400 deep, by the element depth cap', async () => {
    // Arrange: 400 groups, each the only child of the one around it
    const groups = `${'<p:grpSp><p:nvGrpSpPr><p:cNvPr id="2" name="g"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>'.repeat(400)}${shape({ paragraphs: [apara('deep')] })}${'</p:grpSp>'.repeat(400)}`;
    const pptx = pptxOf([groups]);
    // Act
    const converting = convertPptx(pptx);
    // Assert
    await expect(converting).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(converting).rejects.toThrow(
      /the pptx part ppt\/slides\/slide1\.xml has elements nested deeper than 256 levels/,
    );
  });
});

describe('pptx: damaged and hostile presentations', () => {
  it('refuses the corpus "billion laughs" pptx, whose three listed slides are not in the package', async () => {
    // Arrange: the file's presentation lists slide1..3.xml; the package holds no slide part
    const pptx = hostile('rt-pptx-billion-laughs.pptx');
    // Act
    const converting = convertPptx(pptx);
    // Assert
    await expect(converting).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(converting).rejects.toThrow(
      /lists 3 slides but 3 of them are missing from the package \(ppt\/slides\/slide1\.xml/,
    );
  });

  it('refuses a slide declaring a DTD with nested entities (billion laughs), as docx and xlsx', async () => {
    // Arrange
    const dtd =
      '<!DOCTYPE p:sld [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>';
    const pptx = pptxOf([shape({ paragraphs: [apara('&c;')] })]);
    const { unzipSync, zipSync } = await import('fflate');
    const files = unzipSync(pptx);
    const slide = new TextDecoder().decode(files['ppt/slides/slide1.xml']);
    files['ppt/slides/slide1.xml'] = new TextEncoder().encode(
      slide.replace('?><p:sld', `?>${dtd}<p:sld`),
    );
    // Act
    const converting = convertPptx(zipSync(files));
    // Assert
    await expect(converting).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(converting).rejects.toThrow(/ppt\/slides\/slide1\.xml declares a DTD/);
  });
});
