import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { init, type WrappedPdfiumModule } from '@embedpdf/pdfium';
import { DocumentRejectedError, UnsupportedDocumentError } from '../../core/domain/errors.js';
import { hasPdfHeader } from './pdf-document.js';

/** The PDFium functions (WebAssembly build of `@embedpdf/pdfium`). */
export type PdfiumLibrary = WrappedPdfiumModule;

/** A PDFium C function called directly: pointers, handles, ints, floats and booleans as numbers. */
type Raw = (...args: number[]) => number;

/**
 * The PDFium exports used here, called without the wrapper's argument conversion (which costs
 * microseconds per call: too much per character). Booleans come back as 0 or 1.
 */
export interface PdfiumExports {
  FPDFFont_GetAscent: Raw;
  FPDFFont_GetBaseFontName: Raw;
  FPDFFont_GetDescent: Raw;
  FPDFFont_GetFlags: Raw;
  FPDFFont_GetWeight: Raw;
  FPDFFormObj_CountObjects: Raw;
  FPDFFormObj_GetObject: Raw;
  FPDFImageObj_GetImagePixelSize: Raw;
  FPDFPageObj_GetBounds: Raw;
  FPDFPageObj_GetMatrix: Raw;
  FPDFPageObj_GetType: Raw;
  FPDFPage_CountObjects: Raw;
  FPDFPage_GetObject: Raw;
  FPDFPage_GetRotation: Raw;
  FPDFPathSegment_GetClose: Raw;
  FPDFPathSegment_GetPoint: Raw;
  FPDFPathSegment_GetType: Raw;
  FPDFPath_CountSegments: Raw;
  FPDFPath_GetDrawMode: Raw;
  FPDFPath_GetPathSegment: Raw;
  FPDFTextObj_GetFont: Raw;
  FPDFTextObj_GetFontSize: Raw;
  FPDFTextObj_GetText: Raw;
  FPDFTextObj_GetTextRenderMode: Raw;
  FPDFText_ClosePage: Raw;
  FPDFText_CountChars: Raw;
  FPDFText_GetCharOrigin: Raw;
  FPDFText_GetFontSize: Raw;
  FPDFText_GetLooseCharBox: Raw;
  FPDFText_GetMatrix: Raw;
  FPDFText_GetTextObject: Raw;
  FPDFText_GetUnicode: Raw;
  FPDFText_HasUnicodeMapError: Raw;
  FPDFText_IsGenerated: Raw;
  FPDFText_IsHyphen: Raw;
  FPDFText_LoadPage: Raw;
  FPDF_CloseDocument: Raw;
  FPDF_ClosePage: Raw;
  FPDF_GetLastError: Raw;
  FPDF_GetPageBoundingBox: Raw;
  FPDF_GetPageCount: Raw;
  FPDF_LoadPage: Raw;
}

/** The Emscripten heap views; replaced when memory grows, so read them at each use. */
interface Heap {
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  HEAPU32: Uint32Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
}

const decoder = new TextDecoder();
const utf16Decoder = new TextDecoder('utf-16le');

/** Bytes of scratch memory reserved once for out-parameters. */
const SCRATCH_BYTES = 256;

/**
 * PDFium loaded in this thread, with a scratch buffer for out-parameters. One per thread: the
 * WebAssembly instance is not shared between workers.
 */
export class Pdfium {
  readonly lib: PdfiumLibrary;
  /** The raw exports (fast path). */
  readonly fn: PdfiumExports;
  /** Address of {@link SCRATCH_BYTES} bytes of scratch memory, 16-byte aligned. */
  readonly scratch: number;

  /** Most bytes the WebAssembly heap may grow to (see {@link limitMemory}). */
  #maxBytes = Number.POSITIVE_INFINITY;
  /** Set when a growth past `#maxBytes` was refused, until {@link takeOverBudget}. */
  #overBudget = false;

  constructor(lib: PdfiumLibrary) {
    this.lib = lib;
    this.fn = lib.pdfium.wasmExports as unknown as PdfiumExports;
    this.scratch = lib.pdfium.wasmExports.malloc(SCRATCH_BYTES);
  }

  /** The WebAssembly memory of this PDFium instance. */
  get #memory(): WebAssembly.Memory {
    return (this.lib.pdfium.wasmExports as unknown as { memory: WebAssembly.Memory }).memory;
  }

  /** Bytes of WebAssembly memory PDFium holds now (it grows, and never shrinks). */
  get memoryBytes(): number {
    return this.#memory.buffer.byteLength;
  }

  /**
   * Caps PDFium's WebAssembly heap at `maxBytes`, well under the 2 GiB the build allows, so that
   * a stream inflating to gigabytes (a flate bomb) fails fast instead of taking the process's
   * memory. A refused growth makes PDFium's allocation fail (usually an abort, after which this
   * instance is unusable and its thread must be replaced); {@link takeOverBudget} tells it
   * happened. Only this instance's memory is affected (pdf.js' own WebAssembly is not).
   */
  limitMemory(maxBytes: number): void {
    this.#maxBytes = maxBytes;
    const memory = this.#memory;
    if (Object.hasOwn(memory, 'grow')) return;
    const grow = memory.grow.bind(memory);
    memory.grow = (delta: number): number => {
      if (memory.buffer.byteLength + delta * 65_536 > this.#maxBytes) {
        this.#overBudget = true;
        throw new RangeError(`the PDF reader's memory budget of ${this.#maxBytes} bytes is spent`);
      }
      return grow(delta);
    };
  }

  /** The memory cap of {@link limitMemory}, in bytes (Infinity when none). */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  /** True when a growth past the cap was refused since the last call; resets the flag. */
  takeOverBudget(): boolean {
    const over = this.#overBudget;
    this.#overBudget = false;
    return over;
  }

  get #heap(): Heap {
    return this.lib.pdfium as unknown as Heap;
  }

  /** The 32-bit float at byte address `ptr`. */
  f32(ptr: number): number {
    return this.#heap.HEAPF32[ptr >> 2] ?? 0;
  }

  /** The 64-bit float at byte address `ptr`. */
  f64(ptr: number): number {
    return this.#heap.HEAPF64[ptr >> 3] ?? 0;
  }

  /** The signed 32-bit integer at byte address `ptr`. */
  i32(ptr: number): number {
    return this.#heap.HEAP32[ptr >> 2] ?? 0;
  }

  /** The unsigned 32-bit integer at byte address `ptr`. */
  u32(ptr: number): number {
    return this.#heap.HEAPU32[ptr >> 2] ?? 0;
  }

  /** Copies `bytes` into newly allocated memory; free it with {@link free}. */
  copyIn(bytes: Uint8Array): number {
    const ptr = this.lib.pdfium.wasmExports.malloc(Math.max(1, bytes.length));
    if (ptr === 0) throw new RangeError(`cannot allocate ${bytes.length} bytes for the PDF`);
    this.#heap.HEAPU8.set(bytes, ptr);
    return ptr;
  }

  free(ptr: number): void {
    this.lib.pdfium.wasmExports.free(ptr);
  }

  /** The UTF-16LE string of `bytes` bytes at `ptr`, up to its first NUL. */
  utf16(ptr: number, bytes: number): string {
    return utf16Decoder.decode(this.#heap.HEAPU8.subarray(ptr, ptr + bytes)).replace(/\0.*$/s, '');
  }

  /** The NUL-terminated UTF-8 string at `ptr`, read up to `maxBytes`. */
  utf8(ptr: number, maxBytes: number): string {
    const heap = this.#heap.HEAPU8;
    let end = ptr;
    while (end < ptr + maxBytes && heap[end] !== 0) end++;
    return decoder.decode(heap.subarray(ptr, end));
  }
}

let loaded: Promise<Pdfium> | undefined;

/** Loads PDFium (WebAssembly, from the installed package; no network) once per thread. */
export const loadPdfium = (): Promise<Pdfium> =>
  (loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasmBinary = await readFile(require.resolve('@embedpdf/pdfium/pdfium.wasm'));
    const lib = await init({ wasmBinary: new Uint8Array(wasmBinary) });
    lib.PDFiumExt_Init();
    return new Pdfium(lib);
  })());

/** FPDF_GetLastError codes (fpdfview.h). */
const FPDF_ERR = { FILE: 2, FORMAT: 3, PASSWORD: 4, SECURITY: 5 } as const;

/**
 * A PDF opened with PDFium from a copy of its bytes. Not thread-safe; {@link close} it to
 * release its memory.
 */
export class PdfiumDocument {
  readonly pdfium: Pdfium;
  /** The FPDF_DOCUMENT handle. */
  readonly handle: number;
  readonly pageCount: number;
  #bytes: number;

  private constructor(pdfium: Pdfium, handle: number, bytes: number, pageCount: number) {
    this.pdfium = pdfium;
    this.handle = handle;
    this.#bytes = bytes;
    this.pageCount = pageCount;
  }

  /**
   * Opens a PDF (the empty user password, so owner-password-only files open).
   * @throws {UnsupportedDocumentError} when the bytes are not a PDF or too damaged to open.
   * @throws {DocumentRejectedError} when a user password is needed, the security handler is
   *   not supported, or the document has no pages.
   */
  static open(pdfium: Pdfium, bytes: Uint8Array): PdfiumDocument {
    if (!hasPdfHeader(bytes)) {
      throw new UnsupportedDocumentError(
        'the PDF is damaged: the file does not start with a PDF header (%PDF-)',
      );
    }
    const { lib } = pdfium;
    const ptr = pdfium.copyIn(bytes);
    const handle = lib.FPDF_LoadMemDocument64(ptr, bytes.length, '');
    if (handle === 0) {
      const code = lib.FPDF_GetLastError();
      pdfium.free(ptr);
      if (code === FPDF_ERR.PASSWORD) {
        throw new DocumentRejectedError(
          'the PDF is encrypted with a user password; remove the password and upload again',
        );
      }
      if (code === FPDF_ERR.SECURITY) {
        throw new DocumentRejectedError(
          'the PDF uses an unsupported security handler; save it without encryption and upload again',
        );
      }
      throw new UnsupportedDocumentError(
        `the PDF is damaged and cannot be opened (${code === FPDF_ERR.FORMAT ? 'invalid structure' : `reader error ${code}`})`,
      );
    }
    const pageCount = lib.FPDF_GetPageCount(handle);
    const document = new PdfiumDocument(pdfium, handle, ptr, pageCount);
    if (pageCount < 1) {
      document.close();
      throw new DocumentRejectedError('the PDF has no pages');
    }
    return document;
  }

  /** Closes the document and frees its bytes; later calls do nothing. */
  close(): void {
    if (this.#bytes === 0) return;
    this.pdfium.lib.FPDF_CloseDocument(this.handle);
    this.pdfium.free(this.#bytes);
    this.#bytes = 0;
  }
}
