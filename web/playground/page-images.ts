import type { PDFDocumentProxy } from 'pdfjs-dist';

/** Size of a page image in pixels: the frame its grounding boxes are measured in. */
export interface Frame {
  width: number;
  height: number;
}

/** A page image ready to show: a rendered PDF page, or the dropped image itself. */
export type PageBitmap = HTMLCanvasElement | HTMLImageElement;

/**
 * Where the page images of a parsed document come from: `pdf` renders the dropped PDF with
 * pdf.js, `image` shows the dropped image itself, `none` has no page image (office documents,
 * HTML, Markdown). `load` resolves to a new element showing the page (a canvas sized to `frame`
 * for PDFs, an `<img>` of the file for images, already decoded), and rejects when the page cannot
 * be shown (a format the browser does not display, a damaged PDF).
 */
export interface PageImages {
  kind: 'pdf' | 'image' | 'none';
  /** Why there is no image (for `none`). */
  note: string | null;
  load(pageNumber: number, frame: Frame | null): Promise<PageBitmap>;
  /** Frees the image's object URL and the PDF document. */
  dispose(): void;
}

/**
 * Longest side, in pixels, of a rendered PDF page: a sharp page on a laptop screen, and a bound
 * on the memory of each rendered page (about 10 MB).
 */
const MAX_RENDER_SIDE = 1600;

const IMAGE_FORMATS = new Set(['png', 'jpeg', 'webp', 'tiff', 'heic']);

/** The page images of `file`, parsed by the service as `format` (the response's `document.format`). */
export function pageImagesOf(file: File, format: string): PageImages {
  if (format === 'pdf') return new PdfPages(file);
  if (IMAGE_FORMATS.has(format)) return imagePages(file);
  return {
    kind: 'none',
    note: `No page image for ${format.toUpperCase()} documents: the service reads their content directly.`,
    load: () => Promise.reject(new Error('no page image')),
    dispose: () => undefined,
  };
}

function imagePages(file: File): PageImages {
  let url: string | null = null;
  return {
    kind: 'image',
    note: null,
    load: async (pageNumber) => {
      if (pageNumber !== 1) throw new Error('only the first image of the file is shown');
      url ??= URL.createObjectURL(file);
      const image = new Image();
      image.src = url;
      try {
        await image.decode();
      } catch {
        throw new Error(`this browser cannot show ${file.type || 'this image format'}`);
      }
      return image;
    },
    dispose: () => {
      if (url !== null) URL.revokeObjectURL(url);
    },
  };
}

/** URL of a file the page's build serves next to `index.html`. */
function assetUrl(path: string): string {
  return new URL(`playground/${path}`, document.baseURI).href;
}

/** The pages of a PDF, rendered one at a time with pdf.js in its worker. */
class PdfPages implements PageImages {
  readonly kind = 'pdf';
  readonly note = null;
  private document: Promise<PDFDocumentProxy> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;
  private readonly file: File;

  constructor(file: File) {
    this.file = file;
  }

  load(pageNumber: number, frame: Frame | null): Promise<HTMLCanvasElement> {
    const rendered = this.queue.then(() => this.render(pageNumber, frame));
    this.queue = rendered.catch(() => undefined);
    return rendered;
  }

  dispose(): void {
    this.disposed = true;
    void this.document?.then((doc) => doc.destroy()).catch(() => undefined);
    this.document = null;
  }

  private open(): Promise<PDFDocumentProxy> {
    this.document ??= (async () => {
      const pdfjs = await import('pdfjs-dist');
      pdfjs.GlobalWorkerOptions.workerSrc = assetUrl('pdf.worker.min.js');
      const data = new Uint8Array(await this.file.arrayBuffer());
      return pdfjs.getDocument({
        data,
        isEvalSupported: false,
        standardFontDataUrl: assetUrl('pdfjs/standard_fonts/'),
        cMapUrl: assetUrl('pdfjs/cmaps/'),
        cMapPacked: true,
        wasmUrl: assetUrl('pdfjs/wasm/'),
        iccUrl: assetUrl('pdfjs/iccs/'),
      }).promise;
    })();
    return this.document;
  }

  private async render(pageNumber: number, frame: Frame | null): Promise<HTMLCanvasElement> {
    if (this.disposed) throw new Error('the result was replaced');
    const doc = await this.open();
    const page = await doc.getPage(pageNumber);
    const natural = page.getViewport({ scale: 1 });
    // The frame is the service's page image (pixels at the page's DPI); the canvas has its
    // proportions, at most MAX_RENDER_SIDE, and the boxes scale with the displayed size.
    const width = frame?.width ?? natural.width * 2;
    const height = frame?.height ?? natural.height * 2;
    const shrink = Math.min(1, MAX_RENDER_SIDE / Math.max(width, height));
    const viewport = page.getViewport({ scale: (width * shrink) / natural.width });
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(viewport.width));
    canvas.height = Math.max(1, Math.round(viewport.height));
    await page.render({ canvas, viewport }).promise;
    page.cleanup();
    return canvas;
  }
}
