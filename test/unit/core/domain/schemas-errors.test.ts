import { describe, expect, it } from 'vitest';
import {
  AppError,
  BadRequestError,
  ConflictError,
  DocumentRejectedError,
  ERROR_KIND_BY_NAME,
  ExtractionStrictError,
  InvalidExtractionSchemaError,
  NotFoundError,
  ObjectNotFoundError,
  ParseCancelledError,
  PayloadTooLargeError,
  PlanLimitError,
  ProviderUnavailableError,
  RateLimitedError,
  TierUnavailableError,
  UnauthenticatedError,
  UnsupportedDocumentError,
  UrlRefusedError,
  ValidationError,
} from '../../../../functions/core/domain/errors.js';
import { QueueSendError } from '../../../../functions/core/ports/queue.js';
import { WebhookSendError } from '../../../../functions/core/ports/webhook-sender.js';
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

  it.each([
    [new BadRequestError('m'), BadRequestError, 'BadRequestError', 'invalid'],
    [
      new UnsupportedDocumentError('m'),
      UnsupportedDocumentError,
      'UnsupportedDocumentError',
      'invalid',
    ],
    [
      new DocumentRejectedError('m'),
      DocumentRejectedError,
      'DocumentRejectedError',
      'unprocessable',
    ],
    [
      new UnauthenticatedError('m'),
      UnauthenticatedError,
      'UnauthenticatedError',
      'unauthenticated',
    ],
    [new RateLimitedError('m', 3), RateLimitedError, 'RateLimitedError', 'rate_limited'],
    [new PlanLimitError('m'), PlanLimitError, 'PlanLimitError', 'plan_limit'],
    [new NotFoundError('m'), NotFoundError, 'NotFoundError', 'not_found'],
    [new PayloadTooLargeError('m'), PayloadTooLargeError, 'PayloadTooLargeError', 'too_large'],
    [new ConflictError('m'), ConflictError, 'ConflictError', 'conflict'],
    [new ParseCancelledError('req_1'), ParseCancelledError, 'ParseCancelledError', 'conflict'],
    [new ObjectNotFoundError('k'), ObjectNotFoundError, 'ObjectNotFoundError', 'not_found'],
    [
      new ProviderUnavailableError('m'),
      ProviderUnavailableError,
      'ProviderUnavailableError',
      'transient',
    ],
    [
      new TierUnavailableError('t', []),
      TierUnavailableError,
      'TierUnavailableError',
      'unavailable',
    ],
    [new ValidationError([]), ValidationError, 'ValidationError', 'unprocessable'],
    [new UrlRefusedError('m'), UrlRefusedError, 'UrlRefusedError', 'invalid'],
    [
      new InvalidExtractionSchemaError('m'),
      InvalidExtractionSchemaError,
      'InvalidExtractionSchemaError',
      'unprocessable',
    ],
    [
      new ExtractionStrictError([]),
      ExtractionStrictError,
      'ExtractionStrictError',
      'unprocessable',
    ],
    [new QueueSendError('m', []), QueueSendError, 'QueueSendError', 'transient'],
    [new WebhookSendError('m', 'timeout'), WebhookSendError, 'WebhookSendError', 'transient'],
  ])('gives %s its literal name and kind as its own fields', (error, errorClass, name, kind) => {
    // Assert
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toBeInstanceOf(Error);
    // Set on the instance, not read from the (minified) class name.
    expect(Object.getOwnPropertyDescriptor(error, 'name')?.value).toBe(name);
    expect(Object.getOwnPropertyDescriptor(error, 'kind')?.value).toBe(kind);
    expect(error.stack).toContain(name);
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
