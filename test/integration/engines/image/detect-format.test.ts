import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../../../functions/engines/image/detect-format.js';
import { corpusPath } from '../../../support/corpus.js';

const DEV = corpusPath('dev/files');
const HOSTILE = corpusPath('hostile');

const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));
const bytes = (...parts: (number[] | string)[]): Uint8Array =>
  Uint8Array.from(
    parts.flatMap((part) =>
      typeof part === 'string' ? [...new TextEncoder().encode(part)] : part,
    ),
  );

/** A ZIP of empty stored entries, with or without its central directory. */
function zip(names: string[], { centralDirectory = true } = {}): Uint8Array {
  const out: number[] = [];
  const central: number[] = [];
  const u16 = (n: number) => [n & 0xff, (n >> 8) & 0xff];
  const u32 = (n: number) => [...u16(n & 0xffff), ...u16(n >>> 16)];
  for (const name of names) {
    const offset = out.length;
    const nameBytes = ascii(name);
    out.push(...u32(0x04034b50), ...u16(20), ...u16(0), ...u16(0), ...u32(0), ...u32(0));
    out.push(...u32(0), ...u32(0), ...u16(nameBytes.length), ...u16(0), ...nameBytes);
    central.push(...u32(0x02014b50), ...u16(20), ...u16(20), ...u16(0), ...u16(0), ...u32(0));
    central.push(...u32(0), ...u32(0), ...u32(0), ...u16(nameBytes.length), ...u16(0), ...u16(0));
    central.push(...u16(0), ...u16(0), ...u32(0), ...u32(offset), ...nameBytes);
  }
  if (!centralDirectory) return Uint8Array.from(out);
  const start = out.length;
  out.push(...central);
  out.push(...u32(0x06054b50), ...u16(0), ...u16(0), ...u16(names.length), ...u16(names.length));
  out.push(...u32(central.length), ...u32(start), ...u16(0));
  return Uint8Array.from(out);
}

/** A minimal OLE2 compound file: header, one FAT sector, one directory sector. */
function compoundFile(streamName: string): Uint8Array {
  const file = new Uint8Array(512 * 3);
  const view = new DataView(file.buffer);
  file.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], 0);
  view.setUint16(30, 9, true); // 512-byte sectors
  view.setUint32(48, 1, true); // directory starts in sector 1
  view.setUint32(76, 0, true); // the FAT is sector 0
  for (let i = 1; i < 109; i++) view.setUint32(76 + i * 4, 0xffffffff, true);
  view.setUint32(512, 0xfffffffd, true); // sector 0: FAT
  view.setUint32(516, 0xfffffffe, true); // sector 1: end of the directory chain
  const writeEntry = (index: number, name: string) => {
    const at = 1024 + index * 128;
    for (let i = 0; i < name.length; i++) view.setUint16(at + i * 2, name.charCodeAt(i), true);
    view.setUint16(at + 64, (name.length + 1) * 2, true);
  };
  writeEntry(0, 'Root Entry');
  writeEntry(1, streamName);
  return file;
}

describe('detectFormat', () => {
  it.each([
    [DEV, 'docling-2305.03393v1-pg9.pdf', 'pdf'],
    [DEV, 'docling-word_sample.docx', 'docx'],
    [DEV, 'docling-powerpoint_sample.pptx', 'pptx'],
    [DEV, 'docling-test-01.xlsx', 'xlsx'],
    [DEV, 'docling-2305.03393v1-pg9-img.png', 'png'],
    [DEV, 'zerox-0011-jpeg.jpg', 'jpeg'],
    [DEV, 'zerox-0011.png', 'webp'],
    [HOSTILE, 'png-named.pdf', 'png'],
    [HOSTILE, 'pdf-named.docx', 'pdf'],
    [HOSTILE, 'unknown-extension.xyz', 'pdf'],
    [HOSTILE, 'docx-truncated.docx', 'docx'],
    [HOSTILE, 'png-bomb-40000x40000.png', 'png'],
  ])('recognises %s/%s as %s from its content', (dir, file, format) => {
    // Arrange
    const content = readFileSync(join(dir, file));
    // Act
    const detection = detectFormat(content);
    // Assert
    expect(detection).toEqual({ format });
  });

  it.each([
    ['zero-byte.pdf', 'empty file'],
    ['text-named.pdf', 'plain text'],
    ['zip-not-ooxml.docx', 'ZIP archive (not an Office document)'],
  ])('names what the unsupported corpus file %s is: %s', (file, detected) => {
    // Arrange
    const content = readFileSync(join(HOSTILE, file));
    // Act
    const detection = detectFormat(content);
    // Assert
    expect(detection).toEqual({ format: null, detected });
  });

  it.each([
    ['PNG', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'png'],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'jpeg'],
    ['WebP', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '), 'webp'],
    ['little-endian TIFF', bytes([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]), 'tiff'],
    ['big-endian TIFF', bytes([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]), 'tiff'],
    ['BigTIFF', bytes([0x49, 0x49, 0x2b, 0x00, 8, 0, 0, 0]), 'tiff'],
    ['HEIC', bytes([0, 0, 0, 0x18], 'ftypheic', [0, 0, 0, 0], 'mif1heic'), 'heic'],
    ['HEIF (mif1 only)', bytes([0, 0, 0, 0x14], 'ftypmif1', [0, 0, 0, 0], 'mif1'), 'heic'],
    ['PDF after leading garbage', bytes('garbage\r\n%PDF-1.7\n'), 'pdf'],
    ['xls', compoundFile('Workbook'), 'xls'],
    ['docx', zip(['[Content_Types].xml', '_rels/.rels', 'word/document.xml']), 'docx'],
    ['pptx', zip(['[Content_Types].xml', 'ppt/presentation.xml']), 'pptx'],
    ['xlsx', zip(['[Content_Types].xml', 'xl/workbook.xml']), 'xlsx'],
    [
      'docx without central directory',
      zip(['[Content_Types].xml', 'word/document.xml'], { centralDirectory: false }),
      'docx',
    ],
  ])('recognises a synthetic %s', (_, content, format) => {
    // Act
    const detection = detectFormat(content);
    // Assert
    expect(detection).toEqual({ format });
  });

  it.each([
    ['an empty array', new Uint8Array(0), 'empty file'],
    ['a GIF', bytes('GIF89a', [1, 0, 1, 0]), 'GIF image'],
    ['an AVIF', bytes([0, 0, 0, 0x1c], 'ftypavif', [0, 0, 0, 0], 'avifmif1miaf'), 'AVIF image'],
    ['a PDF header beyond the first KiB', bytes(' '.repeat(1100), '%PDF-1.4'), 'plain text'],
    ['UTF-8 prose', bytes('Grüße aus Köln\n'), 'plain text'],
    ['an SVG image', bytes('<?xml version="1.0"?>\n<svg xmlns="x"></svg>'), 'SVG image'],
    ['other XML', bytes('<?xml version="1.0"?>\n<catalog/>'), 'XML'],
    ['JSON', bytes('{"a": [1, 2]}'), 'JSON or other structured text'],
    ['invalid UTF-8', bytes([0x41, 0xff, 0xfe, 0x41, 0x42]), 'unknown binary'],
    ['random binary', bytes([0x00, 0x13, 0x37, 0x42, 0x00, 0x01]), 'unknown binary'],
    [
      'a ZIP of plain files',
      zip(['notes.txt', 'data.csv']),
      'ZIP archive (not an Office document)',
    ],
    ['a legacy Word file', compoundFile('WordDocument'), 'legacy Word document (.doc)'],
    [
      'a password-protected Office file',
      compoundFile('EncryptedPackage'),
      'password-protected Office document (remove the password and upload it again)',
    ],
    [
      'a legacy PowerPoint file',
      compoundFile('PowerPoint Document'),
      'legacy PowerPoint presentation (.ppt)',
    ],
  ])('rejects %s and names it', (_, content, detected) => {
    // Act
    const detection = detectFormat(content);
    // Assert
    expect(detection).toEqual({ format: null, detected });
  });
});

describe('detectFormat: HTML and Markdown', () => {
  it.each([
    ['an HTML page with a byte-order mark', '\ufeff  <!DOCTYPE html><html><body>hi</body></html>'],
    ['XHTML after an XML declaration', '<?xml version="1.0"?>\n<html xmlns="x"><body/></html>'],
    ['a fragment starting with <body>', '<body><p>hello</p></body>'],
    ['HTML after a comment', '<!-- generated -->\n<html><p>x</p></html>'],
    ['a page with <html> further in', 'garbage first\n<html><p>x</p></html>'],
  ])('recognises %s as html', (_, text) => {
    // Act
    const detection = detectFormat(bytes(text), 'page.txt');
    // Assert
    expect(detection).toEqual({ format: 'html' });
  });

  it('recognises the hostile corpus HTML file named .pdf as html: the content wins', () => {
    // Arrange
    const content = readFileSync(join(HOSTILE, 'html-named.pdf'));
    // Act
    const detection = detectFormat(content, 'html-named.pdf');
    // Assert
    expect(detection).toEqual({ format: 'html' });
  });

  it.each(['notes.md', 'NOTES.MARKDOWN', 'a.mdown', 'b.mkd', 'c.mkdn'])(
    'takes any text named %s as Markdown',
    (name) => {
      // Act
      const detection = detectFormat(bytes('Just a line of prose.\n'), name);
      // Assert
      expect(detection).toEqual({ format: 'md' });
    },
  );

  it('keeps Markdown that mentions <html> Markdown when its name says so', () => {
    // Arrange
    const text = 'Intro\n\n```html\n<html><body></body></html>\n```\n';
    // Act
    const named = detectFormat(bytes(text), 'guide.md');
    const unnamed = detectFormat(bytes(text), null);
    // Assert
    expect(named).toEqual({ format: 'md' });
    expect(unnamed).toEqual({ format: 'html' });
  });

  it.each([
    ['an ATX heading', '# Title\n\nSome text.'],
    ['an indented ATX heading, CRLF line ends', '  ## Title ##\r\n\r\nSome text.\r\n'],
    ['a fenced code block', 'Look:\n\n```\ncode\n```\n'],
    ['a table delimiter row', '| a | b |\n| --- | --- |\n| 1 | 2 |\n'],
    ['a list and a link', '- one\n- two see [docs](https://example.com)\n'],
    ['bold text and a quote', 'Some **bold** words.\n\n> quoted\n'],
    ['a setext heading and a list', 'Title\n=====\n\n1. first\n2. second\n'],
  ])('recognises Markdown by its content: %s', (_, text) => {
    // Act
    const detection = detectFormat(bytes(text), 'upload.bin');
    // Assert
    expect(detection).toEqual({ format: 'md' });
  });

  it.each([
    ['prose', 'Dear team,\nthe meeting moves to Tuesday.\n'],
    ['a single list-like line', '- just one dash line\nand prose\n'],
    ['a hashtag', '#monday the meeting moves\nto Tuesday.\n'],
  ])('leaves plain text unsupported: %s', (_, text) => {
    // Act
    const detection = detectFormat(bytes(text), 'notes.txt');
    // Assert
    expect(detection).toEqual({ format: null, detected: 'plain text' });
  });

  it('takes the name over a JSON-like start for Markdown', () => {
    // Act
    const detection = detectFormat(bytes('{"a": 1}'), 'data.md');
    // Assert
    expect(detection).toEqual({ format: 'md' });
  });

  it('reads UTF-16 text with a byte-order mark', () => {
    // Arrange
    const utf16 = Uint8Array.from([
      0xff,
      0xfe,
      ...Array.from('# Title\n', (c) => [c.charCodeAt(0), 0]).flat(),
    ]);
    // Act
    const detection = detectFormat(utf16);
    // Assert
    expect(detection).toEqual({ format: 'md' });
  });
});
