/** Type declarations for `parse-prefer-header` 1.x (RFC 7240 `Prefer`), which ships none. */
declare module 'parse-prefer-header' {
  /**
   * The preferences of `Prefer` header values (several values are joined with commas): each
   * preference's token, lowercased and camel-cased (`respond-async` → `respondAsync`), maps to
   * its value, or `true` without one; a parameter is keyed by its preference's token and its
   * own (`respond-async; x=1` → `respondAsyncX: '1'`). The first of repeated preferences wins.
   */
  function parsePreferHeader(
    prefer: string | readonly string[] | null | undefined,
  ): Record<string, string | true | undefined>;
  export = parsePreferHeader;
}
