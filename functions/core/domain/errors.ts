import type { ExtractionValidationError } from './schemas.js';
/**
 * Transport-neutral error kinds; the HTTP layer maps kinds (never class names) to status codes:
 * invalid 400, unauthenticated 401, plan_limit 402, not_found 404, too_large 413,
 * unprocessable 422, rate_limited 429, unavailable 503, transient 503 (retryable inside the pipeline).
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'plan_limit'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable'
  | 'transient';

/**
 * True for the kinds of an error that refuses the document or request itself (400 `invalid`,
 * 413 `too_large`, 422 `unprocessable`): no retry can fix it, and a refused document's stored
 * copy is of no further use.
 */
export function isRefusal(kind: string): boolean {
  return kind === 'invalid' || kind === 'too_large' || kind === 'unprocessable';
}

/** Base for deliberate failures. Subclasses set `name` literally: bundles are minified and Step Functions matches on it. */
export abstract class AppError extends Error {
  abstract readonly kind: ErrorKind;
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    message: string,
    options?: ErrorOptions & {
      details?: Record<string, unknown>;
      headers?: Record<string, string>;
    },
  ) {
    super(message, options);
    this.details = options?.details;
    this.headers = options?.headers;
  }
}

/**
 * The base of an {@link AppError} class whose instances all carry `name` and `kind` as given;
 * the class adds only what it needs beyond them (a constructor, fields). `name` is passed as a
 * literal, never taken from the class: bundles are minified and Step Functions matches on it.
 * @example
 * export class NotFoundError extends appError('NotFoundError', 'not_found') {}
 */
export function appError<const Name extends string, const Kind extends ErrorKind>(
  name: Name,
  kind: Kind,
) {
  abstract class NamedAppError extends AppError {
    override readonly name: Name = name;
    override readonly kind: Kind = kind;
  }
  return NamedAppError;
}

/** Malformed input the caller can fix (bad form field, missing file). 400. */
export class BadRequestError extends appError('BadRequestError', 'invalid') {}

/** The bytes are not a supported DocumentFormat, or are too damaged to open. 400. */
export class UnsupportedDocumentError extends appError('UnsupportedDocumentError', 'invalid') {}

/** The document opened but cannot be parsed as given (encrypted with a password, zero pages, nothing readable, too many pages). 422. */
export class DocumentRejectedError extends appError('DocumentRejectedError', 'unprocessable') {}

/** Missing or unknown API key. 401. */
export class UnauthenticatedError extends appError('UnauthenticatedError', 'unauthenticated') {}

/**
 * The API key used up its plan's requests of the current one-minute window. 429 with
 * `Retry-After`: the whole seconds until the next window (at least 1).
 */
export class RateLimitedError extends appError('RateLimitedError', 'rate_limited') {
  /** Seconds until the next window, as sent in `Retry-After`. */
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, options?: ErrorOptions) {
    super(message, {
      ...options,
      details: { retryAfterSeconds },
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The tenant's plan does not allow this document today (its daily page quota). The message says
 * which limit, how much of it is used and when it resets. 402.
 */
export class PlanLimitError extends appError('PlanLimitError', 'plan_limit') {}

/** Unknown id, or an id owned by another tenant (never disclosed). 404. */
export class NotFoundError extends appError('NotFoundError', 'not_found') {}

/** Upload larger than the configured maximum. 413. */
export class PayloadTooLargeError extends appError('PayloadTooLargeError', 'too_large') {}

/** A conditional write lost (the item exists, or is not in the expected state). */
export class ConflictError extends appError('ConflictError', 'conflict') {}

/**
 * The request was cancelled (POST /v1/parse/{id}/cancel): the stages stop before the next page
 * or provider call. 409 for a caller still waiting on the parse.
 */
export class ParseCancelledError extends appError('ParseCancelledError', 'conflict') {
  constructor(requestId: string, options?: ErrorOptions) {
    super(`parse ${requestId} was cancelled`, options);
  }
}

/** Nothing stored under an object key. */
export class ObjectNotFoundError extends appError('ObjectNotFoundError', 'not_found') {
  constructor(key: string, options?: ErrorOptions) {
    super(`no object stored under ${key}`, { ...options, details: { key } });
  }
}

/** A provider or dependency failed in a way worth retrying. */
export class ProviderUnavailableError extends appError('ProviderUnavailableError', 'transient') {}

/**
 * Every provider of a tier is circuit-broken (spec §7: 503, clients retry with backoff). Not
 * retried inside the pipeline: the circuits stay open for their cool-down.
 */
export class TierUnavailableError extends appError('TierUnavailableError', 'unavailable') {
  constructor(tier: string, providers: readonly string[], options?: ErrorOptions) {
    super(
      `every provider of the ${tier} tier is unavailable (circuit open: ${providers.join(', ')}); retry later`,
      { ...options, details: { tier, providers: [...providers] } },
    );
  }
}

/** One entry of an HTTPValidationError body (spec §2). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** Invalid input answered with 422 and the HTTPValidationError body `{ detail: ValidationIssue[] }`. */
export class ValidationError extends appError('ValidationError', 'unprocessable') {
  readonly issues: readonly ValidationIssue[];

  constructor(issues: ValidationIssue[], options?: ErrorOptions) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '), options);
    this.issues = issues;
  }
}

/** Every error class a pipeline stage may throw, by `name`, so a failed execution maps back to its kind. */
export const ERROR_KIND_BY_NAME: Readonly<Record<string, ErrorKind>> = {
  BadRequestError: 'invalid',
  UnsupportedDocumentError: 'invalid',
  DocumentRejectedError: 'unprocessable',
  PayloadTooLargeError: 'too_large',
  PlanLimitError: 'plan_limit',
  RateLimitedError: 'rate_limited',
  NotFoundError: 'not_found',
  ProviderUnavailableError: 'unavailable',
  TierUnavailableError: 'unavailable',
  UrlRefusedError: 'invalid',
  ParseCancelledError: 'conflict',
  InvalidExtractionSchemaError: 'unprocessable',
  /** A stage ran past its task timeout (Step Functions' own error name); may pass on a retry. */
  'States.Timeout': 'unavailable',
  /** Recorded (not thrown) when a server stopped mid-parse twice: resume it (`recoverInterruptedParses`). */
  ParseInterruptedError: 'unavailable',
};

/**
 * A URL the service was asked to fetch (`file_url`, a webhook target) was refused or could not be
 * downloaded. The message says why: scheme, port, credentials, host or address class, too many
 * redirects, a timeout, the origin's HTTP status, or an HTML page instead of a document. 400.
 */
export class UrlRefusedError extends appError('UrlRefusedError', 'invalid') {}

/**
 * The `extraction_schema` of an extract or hybrid request cannot be used: not a JSON object, not
 * a valid JSON Schema, not an object schema at the root, too large, or referring to a remote
 * document. `detail` (the message) says which and how to fix it. 422.
 */
export class InvalidExtractionSchemaError extends appError(
  'InvalidExtractionSchemaError',
  'unprocessable',
) {
  /** What is wrong with the schema, as one sentence; the same text as `message`. */
  get detail(): string {
    return this.message;
  }
}

/**
 * `extraction_strict` is set and the extracted object fails its schema: 422 whose body is the
 * list of failures (spec §7), each `{ extraction_validation: { pointer, schema_rule, message } }`
 * as in the ParseResponse `errors`.
 */
export class ExtractionStrictError extends appError('ExtractionStrictError', 'unprocessable') {
  readonly errors: readonly { extraction_validation: ExtractionValidationError }[];

  constructor(errors: readonly { extraction_validation: ExtractionValidationError }[]) {
    super(`the extracted object fails its extraction_schema (${errors.length} errors)`);
    this.errors = errors;
  }
}
