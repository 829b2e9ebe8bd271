import { expect } from 'vitest';
import { ProviderUnavailableError } from '../../../functions/core/domain/errors.js';
import type {
  JsonSchemaObject,
  StructuredExtractionRequest,
} from '../../../functions/core/ports/structured-extractor.js';

/** The schema every extractor test fills: an invoice's number and total. */
export const INVOICE_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string' },
    total: { type: ['number', 'null'] },
  },
  required: ['invoice_number'],
};

/** A filled {@link INVOICE_SCHEMA}. */
export const INVOICE_DATA = { invoice_number: 'INV-0042', total: 118.5 };

/**
 * A request to fill {@link INVOICE_SCHEMA} from a document of `pageCount` pages; page `n`'s
 * Markdown is `# Page n` then a line naming it.
 */
export function extractionRequest(pageCount = 2): StructuredExtractionRequest {
  return {
    schema: INVOICE_SCHEMA,
    pages: Array.from({ length: pageCount }, (_, i) => ({
      pageNumber: i + 1,
      markdown: `# Page ${i + 1}\n\nInvoice INV-0042, line ${i + 1}.\n`,
    })),
    document: { key: 'uploads/invoice', format: 'pdf', hash: 'invoice-hash' },
  };
}

/** The error a call rejects with, asserted to be a ProviderUnavailableError. */
export async function unavailableOf(promise: Promise<unknown>): Promise<ProviderUnavailableError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderUnavailableError);
  return error as ProviderUnavailableError;
}

/**
 * Answers that are not a JSON object, as the text a model writes, with the reason each fails
 * with. None may appear in the error: they stand for document content.
 */
export const NOT_AN_OBJECT: readonly [string, string, RegExp][] = [
  ['an array', '["INV-0042"]', /malformed answer: the extraction is an array/],
  ['a string', '"INV-0042"', /malformed answer: the extraction is string/],
  ['null', 'null', /malformed answer: the extraction is null/],
  ['text that is not JSON', 'The invoice INV-0042 totals 118.50', /not JSON/],
  ['an empty text', '  ', /the extraction is empty/],
];
