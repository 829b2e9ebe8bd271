import { zipSync } from 'fflate';
import { SaxesParser } from 'saxes';
import { fromBufferPromise, type Entry, type ZipFile } from 'yauzl';
import { DocumentRejectedError, UnsupportedDocumentError } from '../../core/domain/errors.js';

/** Bounds on what a ZIP-based document (docx, pptx, xlsx) may inflate to. */
export interface PackageLimits {
  /** Most entries in the central directory. */
  readonly maxEntries: number;
  /** Most bytes the inflated parts (XML and relationships) may total. */
  readonly maxInflatedBytes: number;
  /** Highest inflated / compressed ratio of one part, checked for parts above `ratioFloorBytes`. */
  readonly maxRatio: number;
  /** Parts smaller than this are never refused for their ratio (tiny XML compresses well). */
  readonly ratioFloorBytes: number;
  /**
   * Deepest element nesting of a part. The readers (mammoth, turndown, our shape and group
   * walkers) recurse once or more per level, so unbounded nesting ends in a stack overflow.
   * @default MAX_XML_DEPTH (256)
   */
  readonly maxDepth?: number;
  /**
   * Deepest nesting of tables (`w:tbl`, `a:tbl`) inside tables of a part.
   * @default MAX_TABLE_DEPTH (50)
   */
  readonly maxTableDepth?: number;
}

/**
 * Default element-nesting cap of a part: Office writes about 10 to 30 levels (body, table, row,
 * cell, paragraph, run, drawing, group shapes), and 50 nested tables take about 160.
 */
export const MAX_XML_DEPTH = 256;

/** Default nesting cap of tables in tables: Word's own user interface stops far below 50. */
export const MAX_TABLE_DEPTH = 50;

/**
 * The defaults: 10,000 entries, 64 MB of inflated XML across all parts, and a ratio of 100:1 for
 * parts above 1 MB. Office XML compresses about 5-30:1; the classic zip bomb is several hundred
 * to a thousand. The readers hold a parsed tree of the parts (xmldom, mammoth, SheetJS) at
 * several times the XML's size: 200 MB of XML spread over parts that each pass the ratio check
 * grew the process by 2.6 GB. 64 MB is still a Word document of thousands of pages.
 */
export const DEFAULT_PACKAGE_LIMITS: PackageLimits = {
  maxEntries: 10_000,
  maxInflatedBytes: 64 * 1024 * 1024,
  maxRatio: 100,
  ratioFloorBytes: 1024 * 1024,
};

/**
 * The limits of a workbook (xlsx): 40 MB of XML across all parts, the rest as
 * {@link DEFAULT_PACKAGE_LIMITS}. A spreadsheet reader keeps an object per cell, several times
 * the XML, so 40 MB of sheets stays within a worker's heap; it holds about 600,000 short cells,
 * more than the 500,000 cells a sheet may have (`MAX_SHEET_CELLS`).
 */
export const WORKBOOK_PACKAGE_LIMITS: PackageLimits = {
  ...DEFAULT_PACKAGE_LIMITS,
  maxInflatedBytes: 40 * 1024 * 1024,
};

/** A checked Office Open XML package: its XML parts, inflated within the limits. */
export interface OfficePackage {
  /** Every entry name, in central-directory order. */
  readonly names: readonly string[];
  /** The text (UTF-8) of an XML or relationships part, or undefined when absent. */
  text(name: string): string | undefined;
  /**
   * The package rebuilt as a ZIP of stored (uncompressed) entries: the XML parts as checked, every
   * other entry (images, fonts, embedded binaries) empty. Third-party readers get this instead
   * of the upload, so that they inflate nothing and see exactly the bytes that were checked.
   * @param replaced parts whose text replaces the package's (a pre-processed document part).
   */
  storedZip(replaced?: ReadonlyMap<string, string>): Uint8Array;
}

const MB = 1024 * 1024;
const mb = (bytes: number): string =>
  bytes < MB
    ? `${String(Math.round(bytes / 1024))} KB`
    : `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;

/** XML and relationship parts are read; anything else (media, fonts, binaries) is left packed. */
const isXmlPart = (name: string): boolean => /\.(xml|rels|vml)$/i.test(name);

/**
 * Opens a ZIP-based Office document with the decompression bounds checked before anything is
 * inflated, and again while inflating.
 *
 * 1. The central directory is read (yauzl): entry count, and per XML part its declared sizes,
 *    give the total and the ratio, which are checked against `limits` first.
 * 2. Each XML part is inflated with its declared size enforced (yauzl stops a stream that
 *    produces more than it declared, so a lying header costs at most that much).
 * 3. No part may carry a DTD (`<!DOCTYPE`): Office never writes one, and entity expansion is
 *    the XML variant of the same attack.
 * 4. No part may nest elements deeper than `maxDepth`, or tables deeper than `maxTableDepth`
 *    (read with a streaming parser, saxes, which keeps no tree and does not recurse): the readers
 *    recurse over the structure and would overflow the stack.
 *
 * @param format named in error details.
 * @throws {UnsupportedDocumentError} when the bytes are not a readable ZIP (truncated, no central
 *   directory), or use a compression method other than stored or deflate.
 * @throws {DocumentRejectedError} for a likely zip bomb (too many entries, too many bytes once
 *   inflated in all, an extreme ratio, a part larger than it declared), encrypted entries, a DTD,
 *   or nesting beyond the caps (the detail names the part and the cap).
 */
export async function openPackage(
  bytes: Uint8Array,
  format: string,
  limits: PackageLimits = DEFAULT_PACKAGE_LIMITS,
): Promise<OfficePackage> {
  let zip: ZipFile;
  try {
    zip = await fromBufferPromise(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
    });
  } catch (error) {
    throw new UnsupportedDocumentError(
      `the ${format} file is not a readable ZIP package (${messageOf(error)}); it is probably truncated or damaged`,
      { cause: error, details: { format } },
    );
  }
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw new DocumentRejectedError(
        `the ${format} package has ${zip.entryCount} entries; at most ${limits.maxEntries} are accepted`,
        { details: { format, entries: zip.entryCount } },
      );
    }
    const entries = await listEntries(zip, format);
    checkDeclaredSizes(entries, format, limits);
    const parts = new Map<string, Uint8Array>();
    for (const entry of entries) {
      if (!isXmlPart(entry.fileName) || parts.has(entry.fileName)) continue;
      const data = await inflate(zip, entry, format);
      if (hasDtd(data)) {
        throw new DocumentRejectedError(
          `the ${format} part ${entry.fileName} declares a DTD (<!DOCTYPE>), which Office documents never carry; refused`,
          { details: { format, part: entry.fileName } },
        );
      }
      checkNesting(data, entry.fileName, format, limits);
      parts.set(entry.fileName, data);
    }
    const names = entries.map((e) => e.fileName);
    const decoder = new TextDecoder('utf-8');
    return {
      names,
      text: (name) => {
        const data = parts.get(name);
        return data === undefined ? undefined : decoder.decode(data);
      },
      storedZip: (replaced) => {
        const encoder = new TextEncoder();
        const bodyOf = (name: string): Uint8Array => {
          const text = replaced?.get(name);
          return text === undefined ? (parts.get(name) ?? new Uint8Array(0)) : encoder.encode(text);
        };
        return zipSync(Object.fromEntries(names.map((name) => [name, bodyOf(name)])), {
          level: 0,
        });
      },
    };
  } finally {
    zip.close();
  }
}

/**
 * Measures the element and table nesting of an XML part in one streaming pass and refuses it
 * past the caps. Well-formedness is left to the readers: parse errors are ignored here.
 */
function checkNesting(data: Uint8Array, part: string, format: string, limits: PackageLimits) {
  const maxDepth = limits.maxDepth ?? MAX_XML_DEPTH;
  const maxTableDepth = limits.maxTableDepth ?? MAX_TABLE_DEPTH;
  const parser = new SaxesParser();
  let depth = 0;
  let tables = 0;
  const found: { refusal: DocumentRejectedError | null } = { refusal: null };
  const isTable = (name: string) => name === 'tbl' || name.endsWith(':tbl');
  parser.on('error', () => undefined);
  parser.on('opentag', (tag) => {
    depth++;
    if (isTable(tag.name)) tables++;
    if (found.refusal !== null) return;
    if (tables > maxTableDepth) {
      found.refusal = new DocumentRejectedError(
        `the ${format} part ${part} has tables nested deeper than ${maxTableDepth} levels; refused`,
        { details: { format, part, maxTableDepth } },
      );
    } else if (depth > maxDepth) {
      found.refusal = new DocumentRejectedError(
        `the ${format} part ${part} has elements nested deeper than ${maxDepth} levels; refused`,
        { details: { format, part, maxDepth } },
      );
    }
  });
  parser.on('closetag', (tag) => {
    depth--;
    if (isTable(tag.name)) tables--;
  });
  const text = new TextDecoder('utf-8').decode(data);
  // In slices, so that a refusal stops the pass early.
  const SLICE = 1 << 20;
  for (let at = 0; at < text.length && found.refusal === null; at += SLICE) {
    parser.write(text.slice(at, at + SLICE));
  }
  if (found.refusal !== null) throw found.refusal;
}

async function listEntries(zip: ZipFile, format: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      if (!entry.fileName.endsWith('/')) entries.push(entry);
    }
  } catch (error) {
    throw new UnsupportedDocumentError(
      `the ${format} package's directory is damaged (${messageOf(error)})`,
      { cause: error, details: { format } },
    );
  }
  return entries;
}

function checkDeclaredSizes(entries: readonly Entry[], format: string, limits: PackageLimits) {
  let total = 0;
  for (const entry of entries) {
    if (entry.isEncrypted()) {
      throw new DocumentRejectedError(
        `the ${format} package has encrypted entries (${entry.fileName}); remove the password and upload it again`,
        { details: { format, part: entry.fileName } },
      );
    }
    if (!isXmlPart(entry.fileName)) continue;
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
      throw new UnsupportedDocumentError(
        `the ${format} part ${entry.fileName} uses ZIP compression method ${entry.compressionMethod}; only stored and deflate are read`,
        { details: { format, part: entry.fileName } },
      );
    }
    const size = entry.uncompressedSize;
    const ratio = size / Math.max(1, entry.compressedSize);
    if (size > limits.ratioFloorBytes && ratio > limits.maxRatio) {
      throw new DocumentRejectedError(
        `the ${format} part ${entry.fileName} inflates from ${mb(entry.compressedSize)} to ${mb(size)} (${Math.round(ratio)}:1, above ${limits.maxRatio}:1): refused as a likely zip bomb`,
        { details: { format, part: entry.fileName, ratio: Math.round(ratio) } },
      );
    }
    total += size;
    if (total > limits.maxInflatedBytes) {
      throw new DocumentRejectedError(
        `the ${format} package inflates to more than ${mb(limits.maxInflatedBytes)} of XML (${mb(total)} by ${entry.fileName}): refused as too large or a zip bomb`,
        { details: { format, part: entry.fileName, inflatedBytes: total } },
      );
    }
  }
}

async function inflate(zip: ZipFile, entry: Entry, format: string): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  try {
    const stream = await zip.openReadStreamPromise(entry);
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (error) {
    throw new DocumentRejectedError(
      `the ${format} part ${entry.fileName} cannot be inflated as declared (${messageOf(error)})`,
      { cause: error, details: { format, part: entry.fileName } },
    );
  }
  return Buffer.concat(chunks);
}

/**
 * A DTD in the prolog: `<!DOCTYPE` before the root element. The prolog is walked (declaration,
 * processing instructions, comments) up to the first start tag, however long it is.
 */
export function hasDtd(data: Uint8Array): boolean {
  const LT = 0x3c;
  let i = 0;
  while (i < data.length) {
    if (data[i] !== LT) {
      i++;
      continue;
    }
    const next = data[i + 1];
    if (next === 0x3f /* ? */) {
      i = indexOf(data, '?>', i + 2);
    } else if (next === 0x21 /* ! */) {
      if (startsWithAt(data, i + 2, '--')) i = indexOf(data, '-->', i + 4);
      else return startsWithAt(data, i + 2, 'DOCTYPE') || startsWithAt(data, i + 2, 'doctype');
    } else {
      return false;
    }
    if (i < 0) return false;
  }
  return false;
}

function startsWithAt(data: Uint8Array, at: number, text: string): boolean {
  for (let k = 0; k < text.length; k++) if (data[at + k] !== text.charCodeAt(k)) return false;
  return true;
}

function indexOf(data: Uint8Array, text: string, from: number): number {
  for (let i = from; i + text.length <= data.length; i++) {
    if (startsWithAt(data, i, text)) return i + text.length;
  }
  return -1;
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
