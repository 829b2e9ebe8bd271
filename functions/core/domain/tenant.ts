/**
 * Characters of a tenant id: letters, digits, `_`, `.` and `-` (the rule `API_KEYS` entries
 * follow, see `config.ts`).
 */
const TENANT_CHARACTERS = /^[A-Za-z0-9_.-]+$/;

/**
 * True when `value` can name a tenant: one or more of `A-Z a-z 0-9 _ . -`, and not made of dots
 * only. Tenants become object key segments (`results/<tenant>/…`), where `.` and `..` would name
 * another folder.
 */
export function isTenantId(value: string): boolean {
  return TENANT_CHARACTERS.test(value) && !/^\.+$/.test(value);
}
