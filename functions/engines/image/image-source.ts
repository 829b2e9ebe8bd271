import sharp, { type Metadata, type Sharp } from 'sharp';
import { DocumentRejectedError, UnsupportedDocumentError } from '../../core/domain/errors.js';
import type { DocumentFormat } from '../../core/domain/schemas.js';
import { detectFormat } from './detect-format.js';

/** The raster formats the image engine decodes. */
export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'tiff' | 'heic';

/** The formats of `DocumentFormat` that are single images or multi-page TIFFs. */
export const IMAGE_FORMATS: readonly ImageFormat[] = ['png', 'jpeg', 'webp', 'tiff', 'heic'];

/**
 * Default decompression-bomb cap: 100 megapixels per page (a Letter page scanned at 1000 DPI is
 * 94 Mpx). Decoding that many RGBA pixels takes 400 MB of memory.
 */
export const DEFAULT_MAX_IMAGE_PIXELS = 100_000_000;

/**
 * Default cap on each side of a page, in pixels: 30,000 px is an A0 sheet (1189 mm) scanned at
 * 640 DPI. It sits under the 32,767 px that several decoders and the OCR engine's image reader
 * (Leptonica) handle; a 1 × 10,000,000 strip passes the pixel cap but no reader can use it.
 */
export const DEFAULT_MAX_IMAGE_SIDE = 30_000;

/**
 * Default cap on a page's long side / short side: 100:1 still admits a till receipt of 8 cm × 4 m
 * or a long screenshot of a web page (1280 × 30,000 px is 23:1), and refuses pixel strips.
 */
export const DEFAULT_MAX_IMAGE_ASPECT_RATIO = 100;

/**
 * Default cap on the pages of a multi-page TIFF, the default of `MAX_DOCUMENT_PAGES` (1000): each
 * page is probed and verified when the document is opened, so the cap is applied to the page
 * count read from the first header, before any page is visited.
 */
export const DEFAULT_MAX_IMAGE_PAGES = 1000;

/** Bounds an image must respect, read from its headers before any pixel is decoded. */
export interface ImageLimits {
  /** Largest width × height of a page, in pixels. */
  maxPixels: number;
  /** Largest width or height of a page, in pixels. @default DEFAULT_MAX_IMAGE_SIDE */
  maxSide?: number;
  /** Largest long side / short side of a page. @default DEFAULT_MAX_IMAGE_ASPECT_RATIO */
  maxAspectRatio?: number;
  /** Largest page count of a TIFF. @default DEFAULT_MAX_IMAGE_PAGES */
  maxPages?: number;
}

/** Size of one page of an image, in pixels, after EXIF orientation. */
export interface ImagePageSize {
  width: number;
  height: number;
}

/** What an image's headers say, read without decoding its pixels. */
export interface ImageInfo {
  /** The format the bytes actually are (content wins over the declared format). */
  format: ImageFormat;
  pages: ImagePageSize[];
  /** Resolution from the file's metadata (pixels per inch), or null when absent. */
  density: number | null;
}

const FORMAT_LABEL: Record<ImageFormat, string> = {
  png: 'PNG',
  jpeg: 'JPEG',
  webp: 'WebP',
  tiff: 'TIFF',
  heic: 'HEIC',
};

/** True when `format` is handled by the image engine. */
export function isImageFormat(format: DocumentFormat): format is ImageFormat {
  return (IMAGE_FORMATS as readonly string[]).includes(format);
}

/**
 * Reads an image's headers: real format, page sizes and density. Never decodes pixels, so a
 * decompression bomb is measured and refused before any large allocation.
 *
 * @param declared the format the document was stored as (used in messages; content decides).
 * @param limits caps on each page's pixels, sides and aspect ratio, and on a TIFF's page count;
 *   a number is the pixel cap with the other caps at their defaults.
 * @throws {UnsupportedDocumentError} when the bytes are not a readable image.
 * @throws {DocumentRejectedError} when a TIFF has more than `maxPages` pages (checked from the
 *   first header, before any page is read), or a page declares more than `maxPixels` pixels, a
 *   side longer than `maxSide` or a ratio of sides above `maxAspectRatio`.
 */
export async function probeImage(
  bytes: Uint8Array,
  declared: DocumentFormat,
  limits: number | ImageLimits,
): Promise<ImageInfo> {
  const caps = withDefaults(limits);
  const format = actualImageFormat(bytes, declared);
  const info =
    format === 'heic' ? await probeHeic(bytes) : await probeWithSharp(bytes, format, caps);
  info.pages.forEach((page, index) => {
    assertWithinSizeCaps(page, caps, info.pages.length > 1 ? index + 1 : null);
  });
  return info;
}

function withDefaults(limits: number | ImageLimits): Required<ImageLimits> {
  const given = typeof limits === 'number' ? { maxPixels: limits } : limits;
  return {
    maxPixels: given.maxPixels,
    maxSide: given.maxSide ?? DEFAULT_MAX_IMAGE_SIDE,
    maxAspectRatio: given.maxAspectRatio ?? DEFAULT_MAX_IMAGE_ASPECT_RATIO,
    maxPages: given.maxPages ?? DEFAULT_MAX_IMAGE_PAGES,
  };
}

/**
 * Decodes one page fully, flattened on white and upright (EXIF orientation applied).
 *
 * @param pageIndex 0-based page (TIFF); 0 for single-image formats.
 * @returns 8-bit interleaved pixels (1 to 3 channels) and their size.
 * @throws {UnsupportedDocumentError} when the pixels are truncated or corrupt.
 * @throws {DocumentRejectedError} when the page exceeds the size caps of `limits`.
 */
export async function decodePage(
  bytes: Uint8Array,
  info: ImageInfo,
  pageIndex: number,
  limits: number | ImageLimits,
): Promise<DecodedPage> {
  return withCorruptionCheck(info, pageIndex, async () => {
    const image = await openPage(bytes, info, pageIndex, limits);
    const { data, info: out } = await image
      .flatten({ background: '#ffffff' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { pixels: data, width: out.width, height: out.height, channels: out.channels };
  });
}

/**
 * Decodes every row of a page without keeping it (libvips streams it into a thumbnail), which
 * proves the data is complete at a small memory cost.
 *
 * @throws {UnsupportedDocumentError} when the pixels are truncated or corrupt.
 */
export async function verifyPage(
  bytes: Uint8Array,
  info: ImageInfo,
  pageIndex: number,
  limits: number | ImageLimits,
): Promise<void> {
  await withCorruptionCheck(info, pageIndex, async () => {
    const image = await openPage(bytes, info, pageIndex, limits);
    await image.resize({ width: 64, height: 64, fit: 'inside' }).raw().toBuffer();
  });
}

/** An 8-bit page raster, channels interleaved, flattened on white. */
export interface DecodedPage {
  pixels: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

async function withCorruptionCheck<T>(
  info: ImageInfo,
  pageIndex: number,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof UnsupportedDocumentError || error instanceof DocumentRejectedError) {
      throw error;
    }
    throw corrupt(info.format, error, info.pages.length > 1 ? `page ${pageIndex + 1}` : undefined);
  }
}

/**
 * Estimates the resolution of a page image. The file's density is used when it is between 100
 * and 1200 DPI and gives a physical size of at most 50 inches; 72 and 96 are ignored because
 * encoders write them as placeholders. Otherwise the image is assumed to be a page whose long
 * side is 11 inches (Letter; A4 is 11.7), which gives 300 for a typical 2550 × 3300 scan, and the
 * result is clamped to [72, 600].
 */
export function estimateDpi(size: ImagePageSize, density: number | null): number {
  const longSide = Math.max(size.width, size.height);
  if (density !== null && density >= 100 && density <= 1200 && density !== 96) {
    if (longSide / density <= 50) return Math.round(density);
  }
  return Math.min(600, Math.max(72, Math.round(longSide / 11)));
}

function actualImageFormat(bytes: Uint8Array, declared: DocumentFormat): ImageFormat {
  const detection = detectFormat(bytes);
  if (detection.format !== null && isImageFormat(detection.format)) return detection.format;
  const expected = isImageFormat(declared) ? FORMAT_LABEL[declared] : declared.toUpperCase();
  const actual = detection.format ?? detection.detected;
  throw new UnsupportedDocumentError(
    `the file is not a readable ${expected} image (its content is ${actual}); upload a PNG, JPEG, WebP, TIFF or HEIC image`,
    { details: { declaredFormat: declared, detected: actual } },
  );
}

async function probeWithSharp(
  bytes: Uint8Array,
  format: ImageFormat,
  caps: Required<ImageLimits>,
): Promise<ImageInfo> {
  // `limitInputPixels: false` only affects this header read; decoding is capped in openPage.
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw corrupt(format, error);
  }
  const pageCount = format === 'tiff' ? Math.max(1, metadata.pages ?? 1) : 1;
  if (pageCount > caps.maxPages) {
    throw new DocumentRejectedError(
      `the TIFF image has ${pageCount} pages; at most ${caps.maxPages} are accepted`,
      { details: { pageCount, maxPages: caps.maxPages } },
    );
  }
  const pages: ImagePageSize[] = [orientedSize(metadata)];
  // The first page is checked before the others are visited: a huge first page costs nothing more.
  assertWithinSizeCaps(pages[0] as ImagePageSize, caps, pageCount > 1 ? 1 : null);
  for (let page = 1; page < pageCount; page++) {
    try {
      pages.push(orientedSize(await sharp(bytes, { page, limitInputPixels: false }).metadata()));
    } catch (error) {
      throw corrupt(format, error, `page ${page + 1}`);
    }
  }
  return { format, pages, density: metadata.density ?? null };
}

function orientedSize(metadata: Metadata): ImagePageSize {
  // For multi-page TIFFs this is the size of the page that was opened (sharp's `page` option).
  return { width: metadata.autoOrient.width, height: metadata.autoOrient.height };
}

async function probeHeic(bytes: Uint8Array): Promise<ImageInfo> {
  const { default: decodeHeic } = await import('heic-decode');
  try {
    const images = await decodeHeic.all({ buffer: bytes });
    const first = images[0];
    const size = first ? { width: first.width, height: first.height } : null;
    images.dispose();
    if (size === null || size.width <= 0 || size.height <= 0) throw new Error('no image found');
    return { format: 'heic', pages: [size], density: null };
  } catch (error) {
    throw corrupt('heic', error);
  }
}

async function openPage(
  bytes: Uint8Array,
  info: ImageInfo,
  pageIndex: number,
  limits: number | ImageLimits,
): Promise<Sharp> {
  const size = info.pages[pageIndex];
  if (size === undefined) throw new RangeError(`page ${pageIndex + 1} does not exist`);
  const caps = withDefaults(limits);
  const maxPixels = caps.maxPixels;
  assertWithinSizeCaps(size, caps, info.pages.length > 1 ? pageIndex + 1 : null);

  if (info.format === 'heic') {
    const { default: decodeHeic } = await import('heic-decode');
    const decoded = await decodeHeic({ buffer: bytes });
    return sharp(Buffer.from(decoded.data.buffer, decoded.data.byteOffset, decoded.data.length), {
      raw: { width: decoded.width, height: decoded.height, channels: 4 },
      limitInputPixels: maxPixels,
    });
  }
  // 'error' rejects truncated or undecodable data but keeps JPEGs whose entropy-coded data has
  // recoverable damage (libjpeg warns and fills the gap), which is common in real scans.
  return sharp(bytes, {
    page: pageIndex,
    failOn: 'error',
    limitInputPixels: maxPixels,
    autoOrient: true,
  });
}

/**
 * Refuses a page whose declared size no engine should decode: more than `maxPixels` pixels, a
 * side longer than `maxSide`, or a long side more than `maxAspectRatio` times the short one.
 */
function assertWithinSizeCaps(
  size: ImagePageSize,
  caps: Required<ImageLimits>,
  page: number | null,
): void {
  const { width, height } = size;
  const where = page === null ? 'the image' : `page ${page} of the image`;
  const details = { width, height, ...caps };
  const pixels = width * height;
  if (pixels > caps.maxPixels) {
    throw new DocumentRejectedError(
      `${where} is ${width} × ${height} pixels (${megapixels(pixels)} Mpx), above the ${megapixels(caps.maxPixels)} Mpx limit; downscale it before uploading`,
      { details },
    );
  }
  const long = Math.max(width, height);
  const short = Math.max(1, Math.min(width, height));
  if (long > caps.maxSide) {
    throw new DocumentRejectedError(
      `${where} is ${width} × ${height} pixels: its ${width >= height ? 'width' : 'height'} is above the limit of ${caps.maxSide} pixels per side; crop or downscale it before uploading`,
      { details },
    );
  }
  if (long / short > caps.maxAspectRatio) {
    throw new DocumentRejectedError(
      `${where} is ${width} × ${height} pixels, a ratio of sides of ${Math.round(long / short)}:1, above the ${caps.maxAspectRatio}:1 limit; split it into pages before uploading`,
      { details },
    );
  }
}

function megapixels(pixels: number): string {
  return (pixels / 1e6).toFixed(pixels < 1e7 ? 1 : 0);
}

function corrupt(format: ImageFormat, error: unknown, where?: string): UnsupportedDocumentError {
  const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
  const subject =
    where === undefined
      ? `the ${FORMAT_LABEL[format]} image`
      : `${where} of the ${FORMAT_LABEL[format]} image`;
  return new UnsupportedDocumentError(`${subject} is truncated or corrupt: ${reason}`, {
    cause: error,
    details: { format },
  });
}
