import type {
  StructuredExtractionRequest,
  StructuredExtractionResult,
  StructuredExtractor,
} from '../../core/ports/structured-extractor.js';
import { fillSchemaSteps } from './fill-schema.js';

/**
 * The offline extractor of the embedded default: fills an `extraction_schema` from the Markdown of
 * the parsed pages, without a model. No token is spent.
 */
export class OfflineExtractor implements StructuredExtractor {
  readonly id = 'local-extract';
  readonly model = 'docparse-extract-1';
  readonly #sliceMs: number;

  /**
   * @param options.sliceMs longest the extractor works before it lets other callbacks of the
   *   event loop run (it goes on in a later turn).
   *   @default 10
   */
  constructor(options: { sliceMs?: number } = {}) {
    this.#sliceMs = options.sliceMs ?? 10;
  }

  async extract(request: StructuredExtractionRequest): Promise<StructuredExtractionResult> {
    const steps = fillSchemaSteps(request.schema, request.pages);
    let sliceStart = performance.now();
    for (;;) {
      const step = steps.next();
      if (step.done === true) {
        return { data: step.value, model: this.model, tokens: { input: 0, output: 0 } };
      }
      if (performance.now() - sliceStart >= this.#sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }
}
