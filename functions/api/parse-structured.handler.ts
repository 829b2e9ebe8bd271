import { extractStructure } from '../core/app/structured.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import { LONG_PARSE, replyWhenDone, type LongParseTiming } from './parse-replies.js';
import { documentOf, submitterOf } from './parse-request.js';

/**
 * POST /v1/parse/structured: tables, equations and figures of a document as typed blocks (the
 * Structured result of spec §2), read synchronously by the structure extractor named by `model`
 * (the offline engines: `docparse-structured-1`). The document is the `file` part or the
 * `upload_id` of an upload slot, exactly one of the two (400 otherwise).
 *
 * Boxes (`bbox`) are `[x0, y0, x1, y1]` in pixels of the page image at the page's DPI, origin
 * top-left, as the `grounding` boxes of a parse: pages read from the PDF text layer at 144 DPI,
 * scanned pages and images at the resolution OCR read them (200 DPI for PDF scans, unless the
 * scan's own is lower; an image's own pixels). The extension field `pages` gives each page's
 * `width`, `height`, `dpi` and `source` (`text_layer` or `ocr`).
 *
 * 422 for an unknown model, or when no table, equation or figure is found (plain text documents
 * belong to POST /v1/parse/upload). Like the upload, a reply that takes longer than
 * `commitAfterMs` is committed as 200 with keepalive spaces before the JSON.
 */
export const createHandler = (getDeps: () => Promise<Deps>, timing: LongParseTiming = LONG_PARSE) =>
  httpHandler(
    getDeps,
    endpoints.parseStructured,
    async ({ form, file, caller, deps, requestId }) => {
      const document = documentOf(form.upload_id, file);
      const extraction = extractStructure(deps, {
        ...submitterOf(caller),
        document,
        maxPages: form.max_pages,
        model: form.model,
      });
      return replyWhenDone(extraction, timing, requestId);
    },
  );

export const handler = createHandler(deps);
