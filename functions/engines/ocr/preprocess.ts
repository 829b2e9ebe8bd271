import sharp from 'sharp';

/** Options of {@link prepareForOcr}. */
export interface PrepareOptions {
  /** Resolution of the input image (pixels per inch), used to decide the OCR scale. */
  dpi: number;
  /**
   * Images below this resolution are upscaled to it: small print in low-resolution images
   * (screenshots, web images) is misread at its own size.
   * @default 150
   */
  minDpi?: number;
  /**
   * Images above this resolution are downscaled to it: beyond about 200 DPI, body text gains
   * nothing and the page costs more to analyse.
   * @default 200
   */
  maxDpi?: number;
  /**
   * Stretch the grey levels so that the 1st and 99th percentiles become black and white
   * (faded photocopies, photographed pages).
   * @default false
   */
  normalise?: boolean;
}

/** Images with at least this many pixels are never upscaled (a letter page at 290 DPI). */
const UPSCALE_LIMIT_PIXELS = 6_000_000;

/** An image ready for the recogniser and the factor that relates it to the original. */
export interface PreparedImage {
  /** Grey levels, one byte per pixel, row-major, `width × height`. */
  pixels: Uint8Array;
  width: number;
  height: number;
  /** OCR pixels per original pixel: divide OCR coordinates by it to get back to the original. */
  scale: number;
}

/**
 * Turns a page image into what tesseract reads best: grey, flattened on white, between 150 and
 * 200 DPI.
 *
 * Low-resolution images (screenshots, web images) are upscaled with Lanczos so that small print
 * reaches a legible x-height; on the dev corpus this lifts the text score of ~80-DPI forms from
 * 0.67 to 0.82. Renders above 200 DPI are downscaled: 300-DPI scans read as well at 200 and the
 * page analysis costs half as much. Binarisation is left to tesseract (Otsu on the grey image).
 *
 * @param png the page image (any format sharp reads).
 * @returns the grey pixels and the scale applied.
 */
export async function prepareForOcr(
  png: Uint8Array,
  options: PrepareOptions,
): Promise<PreparedImage> {
  const minDpi = options.minDpi ?? 150;
  const maxDpi = options.maxDpi ?? 200;
  const input = sharp(png);
  const metadata = await input.metadata();
  const width = metadata.width;
  const height = metadata.height;

  let scale = Math.min(maxDpi, Math.max(minDpi, options.dpi)) / options.dpi;
  // A page image of this size is not small print at a low resolution but a physically large
  // page (a poster, a letter scanned as a 25-inch page): its text is already big enough.
  if (scale > 1 && width * height >= UPSCALE_LIMIT_PIXELS) scale = 1;
  // Never below 1/4 of the pixels, never above 4×, and keep the result under 40 Mpx.
  scale = Math.min(4, Math.max(0.25, scale));
  scale = Math.min(scale, Math.sqrt(40e6 / (width * height)));
  const outWidth = Math.max(1, Math.round(width * scale));
  const outHeight = Math.max(1, Math.round(height * scale));

  let pipeline = input.flatten({ background: '#ffffff' }).grayscale();
  if (outWidth !== width || outHeight !== height) {
    pipeline = pipeline.resize(outWidth, outHeight, { fit: 'fill', kernel: 'lanczos3' });
  }
  if (options.normalise ?? false) pipeline = pipeline.normalise();
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });

  let pixels: Uint8Array = data;
  if (info.channels !== 1) {
    // grayscale() keeps an alpha channel when the input had one; take the grey channel only.
    pixels = new Uint8Array(info.width * info.height);
    for (let i = 0, j = 0; i < data.length; i += info.channels, j++) pixels[j] = data[i] ?? 255;
  }
  return { pixels, width: info.width, height: info.height, scale: info.width / width };
}

/**
 * Binary PGM (P5, grey, 8 bits) of rows `top` to `top + rows - 1` of a grey image: the format
 * Leptonica reads without inflating anything.
 */
export function toPgm(pixels: Uint8Array, width: number, top: number, rows: number): Uint8Array {
  const header = new TextEncoder().encode(`P5\n${width} ${rows}\n255\n`);
  const image = new Uint8Array(header.length + width * rows);
  image.set(header, 0);
  image.set(pixels.subarray(top * width, (top + rows) * width), header.length);
  return image;
}
