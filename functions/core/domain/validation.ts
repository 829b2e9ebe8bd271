import type { z } from 'zod';
import { ValidationError } from './errors.js';

/**
 * Validates `value` with `schema`, turning zod issues into the HTTPValidationError shape (spec
 * §2): `loc` starts with `where` (`path`, `query`, `body`, or `state` for pipeline input), and
 * `input` carries the offending top-level field's value when there is one.
 * @throws {ValidationError} (422) listing every issue.
 */
export function parseWith<S extends z.ZodType>(
  where: string,
  schema: S,
  value: unknown,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => {
      const field = issue.path[0];
      const input =
        typeof field === 'string' && value !== null && typeof value === 'object'
          ? (value as Record<string, unknown>)[field]
          : undefined;
      return {
        loc: [where, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
        msg: issue.message,
        type: issue.code,
        ...(input === undefined ? {} : { input }),
      };
    }),
  );
}
