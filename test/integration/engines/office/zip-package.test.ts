import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  UnsupportedDocumentError,
} from '../../../../functions/core/domain/errors.js';
import {
  DEFAULT_PACKAGE_LIMITS,
  hasDtd,
  openPackage,
} from '../../../../functions/engines/office/zip-package.js';
import { HOSTILE, zipOf } from '../../../support/office-fixtures.js';

const XML = '<?xml version="1.0"?><w:document xmlns:w="x"><w:body/></w:document>';

/** Offsets of the central directory headers of a ZIP. */
function centralHeaders(zip: Uint8Array): number[] {
  const offsets: number[] = [];
  for (let i = 0; i + 4 <= zip.length; i++) {
    if (zip[i] === 0x50 && zip[i + 1] === 0x4b && zip[i + 2] === 0x01 && zip[i + 3] === 0x02) {
      offsets.push(i);
    }
  }
  return offsets;
}

describe('openPackage: decompression limits', () => {
  it('refuses a zip bomb built here (4 MB of zeros deflated ~1000:1) before inflating it', async () => {
    // Arrange
    const bomb = zipOf({ '[Content_Types].xml': XML, 'word/document.xml': '0'.repeat(4 << 20) }, 9);
    // Act
    const opening = openPackage(bomb, 'docx');
    // Assert
    await expect(opening).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(opening).rejects.toThrow(
      /word\/document\.xml inflates from .* to 4\.0 MB \(\d+:1, above 100:1\): refused as a likely zip bomb/,
    );
  });

  it('refuses the hostile corpus bomb (300 MB of XML) with a clear detail', async () => {
    // Arrange
    const bomb = readFileSync(join(HOSTILE, 'docx-zip-bomb.docx'));
    // Act
    const opening = openPackage(bomb, 'docx');
    // Assert
    await expect(opening).rejects.toMatchObject({
      name: 'DocumentRejectedError',
      message: expect.stringMatching(/likely zip bomb/) as unknown,
      details: { format: 'docx', part: 'word/document.xml' },
    });
  });

  it('refuses a package whose XML totals more than the cap, even at an ordinary ratio', async () => {
    // Arrange
    const files = Object.fromEntries(
      Array.from({ length: 4 }, (_, i) => [`word/part${i}.xml`, `<x>${'ab'.repeat(3000)}</x>`]),
    );
    const limits = { ...DEFAULT_PACKAGE_LIMITS, maxInflatedBytes: 20_000 };
    // Act
    const opening = openPackage(zipOf(files), 'docx', limits);
    // Assert
    await expect(opening).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(opening).rejects.toThrow(
      /inflates to more than 20 KB of XML \(2\d KB by word\/part3\.xml\)/,
    );
  });

  it('refuses more entries than the cap', async () => {
    // Arrange
    const files = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`e${i}.xml`, '<x/>']));
    // Act
    const opening = openPackage(zipOf(files), 'xlsx', { ...DEFAULT_PACKAGE_LIMITS, maxEntries: 5 });
    // Assert
    await expect(opening).rejects.toThrow('the xlsx package has 6 entries; at most 5 are accepted');
  });

  it('stops inflating a part that produces more than its declared size', async () => {
    // Arrange: the central directory says 100 bytes; the data inflates to 200 000.
    const zip = zipOf({ 'word/document.xml': `<x>${'y'.repeat(200_000)}</x>` }, 9);
    const [header] = centralHeaders(zip);
    new DataView(zip.buffer, zip.byteOffset).setUint32((header ?? 0) + 24, 100, true);
    // Act
    const opening = openPackage(zip, 'docx');
    // Assert
    await expect(opening).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(opening).rejects.toThrow(/word\/document\.xml cannot be inflated as declared/);
  });

  it('refuses encrypted entries and unknown compression methods', async () => {
    // Arrange
    const encrypted = zipOf({ 'word/document.xml': XML });
    const [first] = centralHeaders(encrypted);
    encrypted[(first ?? 0) + 8] = 0x01;
    const bzip2 = zipOf({ 'word/document.xml': XML });
    const [second] = centralHeaders(bzip2);
    bzip2[(second ?? 0) + 10] = 12;
    // Act
    const lockedOpening = openPackage(encrypted, 'docx');
    const bzipOpening = openPackage(bzip2, 'docx');
    // Assert
    await expect(lockedOpening).rejects.toThrow(/encrypted entries \(word\/document\.xml\)/);
    await expect(bzipOpening).rejects.toBeInstanceOf(UnsupportedDocumentError);
    await expect(bzipOpening).rejects.toThrow(/compression method 12/);
  });

  it('answers UnsupportedDocumentError for a truncated package', async () => {
    // Arrange
    const truncated = readFileSync(join(HOSTILE, 'docx-truncated.docx'));
    // Act
    const opening = openPackage(truncated, 'docx');
    // Assert
    await expect(opening).rejects.toBeInstanceOf(UnsupportedDocumentError);
    await expect(opening).rejects.toThrow(/not a readable ZIP package .* truncated or damaged/);
  });

  it('refuses XML parts that declare a DTD (entity expansion)', async () => {
    // Arrange
    const laughs = '<?xml version="1.0"?><!-- c --><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;&a;</x>';
    // Act
    const opening = openPackage(zipOf({ 'word/document.xml': laughs }), 'docx');
    // Assert
    await expect(opening).rejects.toThrow(/declares a DTD/);
  });
});

describe('openPackage: what it gives readers', () => {
  it('reads XML parts and hands readers a stored ZIP without media bytes', async () => {
    // Arrange
    const image = new Uint8Array(5000).fill(7);
    const pkg = await openPackage(
      zipOf({ 'word/document.xml': XML, 'word/media/image1.png': image }),
      'docx',
    );
    // Act
    const stored = unzipSync(pkg.storedZip(new Map([['word/document.xml', '<replaced/>']])));
    // Assert
    expect(pkg.names).toEqual(['word/document.xml', 'word/media/image1.png']);
    expect(pkg.text('word/document.xml')).toBe(XML);
    expect(pkg.text('word/media/image1.png')).toBeUndefined();
    expect(new TextDecoder().decode(stored['word/document.xml'])).toBe('<replaced/>');
    expect(stored['word/media/image1.png']).toHaveLength(0);
  });

  it.each([
    ['a declaration then a DOCTYPE', '<?xml version="1.0"?>\n<!DOCTYPE x><x/>', true],
    ['a DOCTYPE after comments', '<!-- a --><!-- b --><!doctype x><x/>', true],
    ['no DTD', '<?xml version="1.0"?><!-- <!DOCTYPE in a comment --><x><!DOCTYPE/></x>', false],
    ['an unterminated comment', '<!-- never closed', false],
    ['a CDATA start before the root', '<![CDATA[x]]><x/>', false],
  ])('hasDtd: %s', (_, text, expected) => {
    // Act
    const found = hasDtd(new TextEncoder().encode(text));
    // Assert
    expect(found).toBe(expected);
  });
});
