import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  DocumentRejectedError,
  ERROR_KIND_BY_NAME,
  ObjectNotFoundError,
  ValidationError,
} from '../../../../functions/core/domain/errors.js';
import {
  BBox,
  DocumentMetadata,
  ParseResponse,
  PostprocessWarning,
} from '../../../../functions/core/domain/schemas.js';

describe('schemas', () => {
  it('rejects a request id without the req_ prefix', () => {
    // Arrange
    const response = {
      id: 'abc',
      status: 'completed',
      document: { hash: 'a'.repeat(64), pages: 0, format: 'pdf' },
      pages: [],
      extracted: null,
      usage: { total_input_tokens: 0, total_output_tokens: 0, estimated_cost_usd: 0 },
      timing: {
        total_ms: 0,
        classification_ms: 0,
        routing_ms: 0,
        vlm_processing_ms: 0,
        verification_ms: 0,
      },
      document_type: null,
      created_at: '2025-01-01T00:00:00.000Z',
      errors: [],
    };
    // Act
    const invalid = ParseResponse.safeParse(response);
    const valid = ParseResponse.safeParse({ ...response, id: 'req_abc' });
    // Assert
    expect(invalid.success).toBe(false);
    expect(valid.success).toBe(true);
  });

  it('rejects a PostprocessWarning with an extra field and defaults its severity to info', () => {
    // Act
    const extra = PostprocessWarning.safeParse({
      kind: 'fence_stripped',
      page_number: 1,
      detail: 'x',
      text: 'the content',
    });
    const parsed = PostprocessWarning.parse({
      kind: 'fence_stripped',
      page_number: 1,
      detail: 'x',
    });
    // Assert
    expect(extra.success).toBe(false);
    expect(parsed.severity).toBe('info');
  });

  it('rejects a box without area', () => {
    // Act
    const result = BBox.safeParse({ x: 0, y: 0, w: 0, h: 10, label: 'paragraph', confidence: 1 });
    // Assert
    expect(result.success).toBe(false);
  });

  it('rejects a document hash that is not hex SHA-256 and defaults cached to false', () => {
    // Act
    const bad = DocumentMetadata.safeParse({ hash: 'xyz', pages: 1, format: 'pdf' });
    const good = DocumentMetadata.parse({ hash: 'f'.repeat(64), pages: 1, format: 'pdf' });
    // Assert
    expect(bad.success).toBe(false);
    expect(good.cached).toBe(false);
  });
});

describe('errors', () => {
  it('keeps literal names and kinds on the error classes', () => {
    // Act
    const errors = [
      new BadRequestError('x'),
      new DocumentRejectedError('y'),
      new ObjectNotFoundError('k'),
    ];
    // Assert
    expect(errors.map((e) => [e.name, e.kind])).toEqual([
      ['BadRequestError', 'invalid'],
      ['DocumentRejectedError', 'unprocessable'],
      ['ObjectNotFoundError', 'not_found'],
    ]);
    expect(errors[2]?.details).toEqual({ key: 'k' });
  });

  it('joins validation issues into the message', () => {
    // Act
    const error = new ValidationError([
      { loc: ['body', 'dpi'], msg: 'must be an integer or null', type: 'custom' },
      { loc: ['query', 'x'], msg: 'bad', type: 'custom' },
    ]);
    // Assert
    expect(error.message).toBe('body.dpi: must be an integer or null; query.x: bad');
    expect(error.issues).toHaveLength(2);
  });

  it('maps every error a stage may throw to its kind by name', () => {
    // Assert
    expect(ERROR_KIND_BY_NAME).toMatchObject({
      UnsupportedDocumentError: 'invalid',
      DocumentRejectedError: 'unprocessable',
      ProviderUnavailableError: 'unavailable',
    });
  });
});
