import type { DocumentRef } from './document-engine.js';

/** A JSON Schema object as the client sent it (`extraction_schema`; draft 2020-12 or draft-07). */
export type JsonSchemaObject = Record<string, unknown>;

/** One parsed page the extractor reads: its Markdown as the parse produced it. */
export interface ExtractionPage {
  pageNumber: number;
  markdown: string;
}

/** What an extractor is asked to do: fill `schema` from the parsed document. */
export interface StructuredExtractionRequest {
  /** A schema already compiled once by the service (valid JSON Schema, `type: object` at the root). */
  schema: JsonSchemaObject;
  /** The parsed pages, in page order. */
  pages: readonly ExtractionPage[];
  /** The stored document, for extractors that also look at page images. */
  document: DocumentRef;
}

/** An extractor's answer: the filled object (validated afterwards by the service), and what it used. */
export interface StructuredExtractionResult {
  data: Record<string, unknown>;
  model: string;
  tokens: { input: number; output: number };
}

/**
 * Fills a JSON Schema from a parsed document: the offline extractor of the embedded default, or a
 * remote model with a structured-output feature (JSON-schema response format, tool input schema).
 */
export interface StructuredExtractor {
  readonly id: string;
  readonly model: string;
  /**
   * @throws {ProviderUnavailableError} retryable failure (the next extractor of the chain is tried).
   */
  extract(request: StructuredExtractionRequest): Promise<StructuredExtractionResult>;
}
