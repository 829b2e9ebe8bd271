import type { DocumentRef } from '../../ports/document-engine.js';
import type { JsonSchemaObject, StructuredExtractor } from '../../ports/structured-extractor.js';
import { AppError } from '../errors.js';
import { compileExtractionSchema } from '../extraction/extraction-schema.js';
import { pageCostUsd } from '../pricing.js';
import type { ExtractionValidationError, Page } from '../schemas.js';
import type { PipelinePorts } from '../../ports/pipeline.js';

/** What the extraction of a document gave: the object, its validation errors, and its cost. */
export interface ExtractionOutcome {
  extracted: Record<string, unknown>;
  /** One entry per failed schema rule (spec ParseResponse `errors`); empty when valid. */
  errors: { extraction_validation: ExtractionValidationError }[];
  providerId: string;
  model: string;
  tokens: { input_tokens: number; output_tokens: number };
  /** Token charges of the extractor (the offline extractor costs nothing). */
  costUsd: number;
  latencyMs: number;
  /** Extractors of the chain that failed before this one answered, with why. */
  failovers: { providerId: string; reason: string }[];
}

/**
 * Fills the request's `extraction_schema` from the parsed pages (modes `extract` and `hybrid`),
 * then validates the answer against the schema.
 *
 * The extractors of the configured extraction chain (remote models with structured output) are
 * tried in order, skipping those whose circuit is open and falling over to the next on a
 * retryable failure (recorded on the provider's breaker). The offline extractor of the ports,
 * which reads the pages' Markdown and never fails for lack of a service, ends every chain.
 *
 * Validation failures are not errors here: they are returned as `errors` entries (RFC 6901
 * pointers, the failed rule, a message without the value); the API decides what
 * `extraction_strict` makes of them.
 * @throws {InvalidExtractionSchemaError} when the stored schema does not compile (checked when the
 *   request was accepted, so only for records written by another version).
 */
export async function extractDocument(
  ports: Pick<PipelinePorts, 'providers' | 'offlineExtractor' | 'breakers' | 'clock'>,
  schema: JsonSchemaObject,
  pages: readonly Page[],
  document: DocumentRef,
): Promise<ExtractionOutcome> {
  const compiled = compileExtractionSchema(schema);
  const offline = ports.offlineExtractor;
  const request = {
    schema,
    pages: pages.map((p) => ({ pageNumber: p.page_number, markdown: p.content_markdown })),
    document,
  };
  const failovers: ExtractionOutcome['failovers'] = [];
  const chain: { id: string; extractor: () => StructuredExtractor }[] = [
    ...ports.providers.extractionChain().map((id) => ({
      id,
      extractor: () => ports.providers.extractor(id),
    })),
    { id: offline.id, extractor: () => offline },
  ];
  for (const { id, extractor } of chain) {
    const remote = id !== offline.id;
    if (remote && ports.breakers && !(await ports.breakers.tryAcquire(id))) {
      failovers.push({ providerId: id, reason: 'circuit open' });
      continue;
    }
    const started = ports.clock.now().getTime();
    try {
      const answer = await extractor().extract(request);
      if (remote) await ports.breakers?.succeeded(id);
      const tokens = { input_tokens: answer.tokens.input, output_tokens: answer.tokens.output };
      return {
        extracted: answer.data,
        errors: compiled.validate(answer.data).map((error) => ({ extraction_validation: error })),
        providerId: id,
        model: answer.model,
        tokens,
        costUsd: remote
          ? pageCostUsd(0, { ...ports.providers.price(id), perPageUsd: 0 }, tokens)
          : 0,
        latencyMs: Math.max(0, ports.clock.now().getTime() - started),
        failovers,
      };
    } catch (error) {
      // Only a retryable failure of a remote extractor falls over; anything else is a defect.
      if (!remote || !(error instanceof AppError) || error.kind !== 'transient') throw error;
      await ports.breakers?.failed(id, error.message);
      failovers.push({ providerId: id, reason: error.message });
    }
  }
  // The offline extractor ends the chain and returns or throws above.
  throw new Error('the extraction chain ended without an extractor');
}
