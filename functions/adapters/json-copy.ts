/** A JSON value: what `JSON.parse` returns. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * A deep copy of a JSON value (plain objects and arrays of strings, numbers, booleans and null,
 * as `JSON.parse` makes them): what `structuredClone` returns for it, several times faster, as
 * the stores that answer reads from memory need on every read (one per authenticated request).
 * A member named `__proto__` is copied as a member, as `JSON.parse` makes it.
 *
 * @example
 * const known = copyJson(this.#records.get(id));
 */
export function copyJson<T>(value: T): T {
  return copy(value as Json) as T;
}

function copy(value: Json): Json {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy);
  const out: Record<string, Json> = {};
  for (const key of Object.keys(value)) {
    const member = copy(value[key] as Json);
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: member,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = member;
    }
  }
  return out;
}
