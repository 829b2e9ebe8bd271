import { markdownLines } from '../../core/domain/markdown-lines.js';
import type { DocumentFormat } from '../../core/domain/schemas.js';

/**
 * The outcome of content sniffing: a supported format, or a short description of what the bytes
 * are when they are not one (for error messages such as "expected a PDF, got HTML").
 */
export type FormatDetection = { format: DocumentFormat } | { format: null; detected: string };

/** How far into the file `%PDF-` may start (Acrobat tolerates leading garbage up to 1 KiB). */
const PDF_HEADER_WINDOW = 1024;
/** Bounds of the ZIP directory walk: enough for any Office file, small enough for hostile input. */
const MAX_ZIP_ENTRIES = 5000;
/** Longest stretch scanned for the next local header after an entry with a data descriptor. */
const MAX_ZIP_SCAN_BYTES = 8 * 1024 * 1024;
/** Directory sectors followed in an OLE2 file before giving up. */
const MAX_CFB_DIRECTORY_SECTORS = 512;
const TEXT_SAMPLE_BYTES = 4096;

const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis']);
const HEIF_GENERIC_BRANDS = new Set(['mif1', 'msf1']);
const AVIF_BRANDS = new Set(['avif', 'avis']);

/**
 * Identifies a document's format from its leading bytes (magic numbers), never from its name.
 *
 * Pure and bounded: it reads at most the first few KiB, the ZIP central directory (or its local
 * file headers when the directory is missing) and the OLE2 directory chain. Rules:
 * - `pdf`: `%PDF-` within the first 1024 bytes.
 * - `docx` / `pptx` / `xlsx`: a ZIP whose entries include `[Content_Types].xml` and a `word/`,
 *   `ppt/` or `xl/` folder (entry names are read from the headers; nothing is inflated).
 * - `xls`: the OLE2 compound-file signature `D0 CF 11 E0 A1 B1 1A E1`, unless its directory names
 *   a Word or PowerPoint stream instead of a workbook.
 * - `png`, `jpeg`, `webp`, `tiff` (classic and BigTIFF): their signatures.
 * - `heic`: an ISO-BMFF `ftyp` box with a HEIF brand (heic, heix, hevc, hevx, heim, heis, mif1,
 *   msf1) that is not AVIF.
 * - `html`: UTF-8 (or UTF-16 with a byte-order mark) text that starts, after blanks, comments and
 *   an XML declaration, with `<!doctype html`, `<html`, `<head` or `<body`, or that has `<html`
 *   in its first 512 characters (unless the name says Markdown).
 * - `md`: other text whose name ends in `.md`, `.markdown`, `.mdown`, `.mkd` or `.mkdn`, or whose
 *   content shows Markdown (see {@link looksLikeMarkdown}). Markdown is the one format the name
 *   helps with: any text is valid Markdown, so plain text without either stays unsupported.
 *
 * @param bytes the whole file (or at least its head; ZIP detection wants the tail too).
 * @param filename the name the file was uploaded with, if any: read only to tell Markdown from
 *   plain text, never to override the content.
 * @returns `{ format }` for a supported format, else `{ format: null, detected }` where `detected`
 *   names the content, e.g. `'empty file'`, `'HTML'`, `'plain text'`,
 *   `'ZIP archive (not an Office document)'`, `'GIF image'` or `'unknown binary'`.
 */
export function detectFormat(bytes: Uint8Array, filename?: string | null): FormatDetection {
  if (bytes.length === 0) return unsupported('empty file');

  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { format: 'png' };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { format: 'jpeg' };
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return { format: 'webp' };
  if (isTiff(bytes)) return { format: 'tiff' };
  if (ascii(bytes, 4, 4) === 'ftyp') return detectIsoMedia(bytes);
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) {
    return detectZip(bytes);
  }
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    return detectCompoundFile(bytes);
  }
  if (indexOfAscii(bytes, '%PDF-', 0, PDF_HEADER_WINDOW + 5) >= 0) return { format: 'pdf' };

  const binary = detectOtherBinary(bytes);
  if (binary !== null) return unsupported(binary);
  return detectText(bytes, filename ?? null);
}

function unsupported(detected: string): FormatDetection {
  return { format: null, detected };
}

function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  if (bytes.length < signature.length) return false;
  return signature.every((value, i) => bytes[i] === value);
}

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  if (offset + length > bytes.length) return '';
  let out = '';
  for (let i = offset; i < offset + length; i++) out += String.fromCharCode(bytes[i] ?? 0);
  return out;
}

function indexOfAscii(bytes: Uint8Array, needle: string, from: number, to: number): number {
  const end = Math.min(to, bytes.length) - needle.length;
  outer: for (let i = from; i <= end; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (bytes[i + j] !== needle.charCodeAt(j)) continue outer;
    }
    return i;
  }
  return -1;
}

function u16le(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] ?? 0) | ((bytes[offset + 1] ?? 0) << 8);
}

function u32le(bytes: Uint8Array, offset: number): number {
  return (u16le(bytes, offset) | (u16le(bytes, offset + 2) << 16)) >>> 0;
}

function u32be(bytes: Uint8Array, offset: number): number {
  return (
    (((bytes[offset] ?? 0) << 24) |
      ((bytes[offset + 1] ?? 0) << 16) |
      ((bytes[offset + 2] ?? 0) << 8) |
      (bytes[offset + 3] ?? 0)) >>>
    0
  );
}

function isTiff(bytes: Uint8Array): boolean {
  // Classic TIFF (42) and BigTIFF (43), little- and big-endian.
  return (
    startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) ||
    startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a]) ||
    startsWith(bytes, [0x49, 0x49, 0x2b, 0x00]) ||
    startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2b])
  );
}

/** ISO base media files (HEIF, AVIF, MP4, QuickTime) by the brands of their `ftyp` box. */
function detectIsoMedia(bytes: Uint8Array): FormatDetection {
  const boxSize = Math.min(u32be(bytes, 0), bytes.length, 4096);
  const major = ascii(bytes, 8, 4);
  const compatible: string[] = [];
  for (let offset = 16; offset + 4 <= boxSize; offset += 4)
    compatible.push(ascii(bytes, offset, 4));

  if (HEIC_BRANDS.has(major)) return { format: 'heic' };
  if (AVIF_BRANDS.has(major)) return unsupported('AVIF image');
  if (compatible.some((brand) => HEIC_BRANDS.has(brand))) return { format: 'heic' };
  if (compatible.some((brand) => AVIF_BRANDS.has(brand))) return unsupported('AVIF image');
  if (HEIF_GENERIC_BRANDS.has(major) || compatible.some((b) => HEIF_GENERIC_BRANDS.has(b))) {
    return { format: 'heic' };
  }
  if (major === 'qt  ') return unsupported('QuickTime video');
  return unsupported('MP4 or other ISO media file');
}

/** Office Open XML packages are ZIPs; which one is told by the folders inside. */
function detectZip(bytes: Uint8Array): FormatDetection {
  const names = zipEntryNames(bytes);
  if (names.length === 0) return unsupported('ZIP archive (empty or unreadable)');

  const hasContentTypes = names.includes('[Content_Types].xml');
  const hasFolder = (prefix: string) => names.some((name) => name.startsWith(prefix));
  if (hasContentTypes) {
    if (hasFolder('word/')) return { format: 'docx' };
    if (hasFolder('ppt/')) return { format: 'pptx' };
    if (hasFolder('xl/')) return { format: 'xlsx' };
    return unsupported('Office Open XML package of an unsupported kind');
  }
  if (names[0] === 'mimetype') {
    const mimetype = ascii(bytes, 30 + 'mimetype'.length + u16le(bytes, 28), 64);
    if (mimetype.startsWith('application/epub+zip')) return unsupported('EPUB book');
    if (mimetype.startsWith('application/vnd.oasis.opendocument')) {
      return unsupported('OpenDocument file');
    }
  }
  return unsupported('ZIP archive (not an Office document)');
}

/**
 * Entry names of a ZIP: from the central directory when the end record is present, else by
 * walking local file headers (a truncated upload still reveals what it was meant to be).
 */
function zipEntryNames(bytes: Uint8Array): string[] {
  return centralDirectoryNames(bytes) ?? localHeaderNames(bytes);
}

function centralDirectoryNames(bytes: Uint8Array): string[] | null {
  // The end-of-central-directory record is 22 bytes plus a comment of at most 65535 bytes.
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let eocd = bytes.length - 22; eocd >= lowest; eocd--) {
    if (u32le(bytes, eocd) !== 0x06054b50) continue;
    const count = u16le(bytes, eocd + 10);
    const start = u32le(bytes, eocd + 16);
    const names: string[] = [];
    let offset = start;
    for (let i = 0; i < Math.min(count, MAX_ZIP_ENTRIES); i++) {
      if (offset + 46 > bytes.length || u32le(bytes, offset) !== 0x02014b50) return null;
      const nameLength = u16le(bytes, offset + 28);
      const extraLength = u16le(bytes, offset + 30);
      const commentLength = u16le(bytes, offset + 32);
      names.push(utf8(bytes, offset + 46, nameLength));
      offset += 46 + nameLength + extraLength + commentLength;
    }
    return names;
  }
  return null;
}

function localHeaderNames(bytes: Uint8Array): string[] {
  const names: string[] = [];
  let offset = 0;
  while (names.length < MAX_ZIP_ENTRIES && offset + 30 <= bytes.length) {
    if (u32le(bytes, offset) !== 0x04034b50) break;
    const flags = u16le(bytes, offset + 6);
    const compressedSize = u32le(bytes, offset + 18);
    const nameLength = u16le(bytes, offset + 26);
    const extraLength = u16le(bytes, offset + 28);
    names.push(utf8(bytes, offset + 30, nameLength));
    const dataStart = offset + 30 + nameLength + extraLength;
    const hasDataDescriptor = (flags & 0x08) !== 0;
    if (!hasDataDescriptor) {
      offset = dataStart + compressedSize;
      continue;
    }
    // Sizes follow the data: find the next local header by its signature.
    const next = indexOfAscii(bytes, 'PK\u0003\u0004', dataStart, dataStart + MAX_ZIP_SCAN_BYTES);
    if (next < 0) break;
    offset = next;
  }
  return names;
}

function utf8(bytes: Uint8Array, offset: number, length: number): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(
    bytes.subarray(offset, Math.min(bytes.length, offset + length)),
  );
}

/**
 * OLE2 compound files hold legacy Excel, Word and PowerPoint documents alike: the stream names in
 * the directory tell them apart. An unreadable directory still counts as `xls`, so that the
 * spreadsheet engine reports the damage instead of a vague "unsupported format".
 */
function detectCompoundFile(bytes: Uint8Array): FormatDetection {
  const names = compoundFileNames(bytes);
  if (names === null || names.length === 0) return { format: 'xls' };
  if (names.some((name) => name === 'Workbook' || name === 'Book')) return { format: 'xls' };
  if (names.includes('WordDocument')) return unsupported('legacy Word document (.doc)');
  if (names.includes('PowerPoint Document')) {
    return unsupported('legacy PowerPoint presentation (.ppt)');
  }
  if (names.includes('__properties_version1.0')) return unsupported('Outlook message (.msg)');
  if (names.includes('EncryptedPackage')) {
    return unsupported(
      'password-protected Office document (remove the password and upload it again)',
    );
  }
  return unsupported('OLE2 compound file (not an Excel workbook)');
}

function compoundFileNames(bytes: Uint8Array): string[] | null {
  if (bytes.length < 512) return null;
  const sectorShift = u16le(bytes, 30);
  if (sectorShift !== 9 && sectorShift !== 12) return null;
  const sectorSize = 1 << sectorShift;
  const sectorOffset = (sector: number) => (sector + 1) * sectorSize;

  // The first 109 FAT sector numbers sit in the header; that covers files up to ~7 MB (512-byte
  // sectors) or ~450 MB (4 KiB sectors). Beyond, the directory walk stops where the FAT is unknown.
  const fatSectors: number[] = [];
  for (let i = 0; i < 109; i++) {
    const sector = u32le(bytes, 76 + i * 4);
    if (sector >= 0xfffffffa) break;
    fatSectors.push(sector);
  }
  const entriesPerFatSector = sectorSize / 4;
  const nextSector = (sector: number): number | null => {
    const fatSector = fatSectors[Math.floor(sector / entriesPerFatSector)];
    if (fatSector === undefined) return null;
    const at = sectorOffset(fatSector) + (sector % entriesPerFatSector) * 4;
    return at + 4 <= bytes.length ? u32le(bytes, at) : null;
  };

  const names: string[] = [];
  const seen = new Set<number>();
  let sector: number | null = u32le(bytes, 48);
  while (sector !== null && sector < 0xfffffffa && seen.size < MAX_CFB_DIRECTORY_SECTORS) {
    if (seen.has(sector)) break;
    seen.add(sector);
    const start = sectorOffset(sector);
    if (start + sectorSize > bytes.length) break;
    for (let entry = start; entry < start + sectorSize; entry += 128) {
      const nameBytes = Math.min(u16le(bytes, entry + 64), 64);
      if (nameBytes < 2) continue;
      let name = '';
      for (let i = 0; i < nameBytes - 2; i += 2)
        name += String.fromCharCode(u16le(bytes, entry + i));
      names.push(name);
    }
    sector = nextSector(sector);
  }
  return names;
}

/** Well-known signatures of formats we do not accept, so the error can name them. */
function detectOtherBinary(bytes: Uint8Array): string | null {
  const head = ascii(bytes, 0, Math.min(bytes.length, 12));
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'GIF image';
  if (head.startsWith('BM') && bytes.length >= 26) {
    const dibHeaderSize = u32le(bytes, 14);
    if ([12, 40, 52, 56, 64, 108, 124].includes(dibHeaderSize)) return 'BMP image';
  }
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00])) return 'ICO icon';
  if (head.startsWith('8BPS')) return 'Photoshop document';
  if (startsWith(bytes, [0xff, 0x0a]) || head.startsWith('\u0000\u0000\u0000\u000cJXL ')) {
    return 'JPEG XL image';
  }
  if (startsWith(bytes, [0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50, 0x20, 0x20])) {
    return 'JPEG 2000 image';
  }
  if (startsWith(bytes, [0x1f, 0x8b])) return 'gzip archive';
  if (startsWith(bytes, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return '7-Zip archive';
  if (head.startsWith('Rar!\u001a\u0007')) return 'RAR archive';
  if (head.startsWith('%!PS')) return 'PostScript document';
  if (head.startsWith('{\\rtf')) return 'RTF document';
  if (startsWith(bytes, [0x7f, 0x45, 0x4c, 0x46])) return 'ELF executable';
  if (head.startsWith('MZ')) return 'Windows executable';
  return null;
}

const MARKDOWN_NAME = /\.(md|markdown|mdown|mkd|mkdn)$/i;

/** Text formats by their first non-blank characters; anything undecodable is binary. */
function detectText(bytes: Uint8Array, filename: string | null): FormatDetection {
  const text = decodeSample(bytes.subarray(0, TEXT_SAMPLE_BYTES));
  if (text === null) return unsupported('unknown binary');
  // eslint-disable-next-line no-control-regex -- control characters are what betrays binary data
  if (/[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/.test(text)) return unsupported('unknown binary');

  const markdownName = filename !== null && MARKDOWN_NAME.test(filename.trim());
  const start = text
    .replace(/^\ufeff/, '')
    .trimStart()
    .slice(0, 512)
    .toLowerCase();
  // The document's start, past an XML declaration and comments.
  const opening = start.replace(/^(?:<\?xml[^>]*>\s*|<!--[\s\S]*?-->\s*)*/, '');
  if (/^<!doctype html|^<html|^<head|^<body/.test(opening)) return { format: 'html' };
  if (start.includes('<html') && !markdownName) return { format: 'html' };
  if (start.startsWith('<svg') || (start.startsWith('<?xml') && start.includes('<svg'))) {
    return unsupported('SVG image');
  }
  if (start.startsWith('<?xml')) return unsupported('XML');
  if (markdownName) return { format: 'md' };
  if (start.startsWith('{') || start.startsWith('[')) {
    return unsupported('JSON or other structured text');
  }
  if (looksLikeMarkdown(text)) return { format: 'md' };
  return unsupported('plain text');
}

/** UTF-8 (or UTF-16 with a byte-order mark) text of a sample, or null when it is not text. */
function decodeSample(sample: Uint8Array): string | null {
  const utf16 =
    sample[0] === 0xff && sample[1] === 0xfe
      ? 'utf-16le'
      : sample[0] === 0xfe && sample[1] === 0xff
        ? 'utf-16be'
        : null;
  if (utf16 !== null) {
    return new TextDecoder(utf16).decode(sample.subarray(0, sample.length & ~1));
  }
  for (const cut of [0, 1, 2, 3]) {
    // A multi-byte sequence cut by the sample boundary is not evidence of binary data.
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(
        sample.subarray(0, sample.length - cut),
      );
    } catch {
      if (sample.length < TEXT_SAMPLE_BYTES) return null;
    }
  }
  return null;
}

/**
 * Whether text reads as Markdown rather than plain prose: an ATX heading (`# Title`, read by the
 * Markdown line model), a fenced code block or a table delimiter row is enough; otherwise two
 * different signs among list items (two or more), links or images, `**strong**`, block quotes and
 * setext headings.
 */
export function looksLikeMarkdown(text: string): boolean {
  const lines = markdownLines(text.replace(/\r\n?/g, '\n'));
  if (lines.some((line) => line.kind === 'heading')) return true;
  if (/^[ \t]*(```|~~~)/m.test(text)) return true;
  if (/^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*\|[ \t]*:?-{3,}/m.test(text)) return true;
  const signs = [
    (text.match(/^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S/gm) ?? []).length >= 2,
    /!?\[[^\]\n]+\]\([^)\s]+\)/.test(text),
    /\*\*[^*\n]+\*\*|__[^_\n]+__/.test(text),
    /^>[ \t]?\S/m.test(text),
    /^[^\n]*\S[^\n]*\n(?:=+|-+)[ \t]*$/m.test(text),
  ];
  return signs.filter(Boolean).length >= 2;
}
