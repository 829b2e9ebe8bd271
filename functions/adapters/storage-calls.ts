/**
 * Calls the local adapters make to their stores, by kind (`DynamoDB PutItem`, `object put`, ...),
 * counted over the process's life for the benches (`npm run bench:quality` prints them per
 * page). Counting is a map update per call, cheap enough to stay on in the service.
 */

const counts = new Map<string, number>();

/**
 * Counts one call of `kind`.
 *
 * @example countStorageCall('DynamoDB UpdateItem')
 */
export const countStorageCall = (kind: string): void => {
  counts.set(kind, (counts.get(kind) ?? 0) + 1);
};

/** A copy of the counts so far, by kind. */
export const storageCalls = (): Map<string, number> => new Map(counts);

/** Forgets the counts (a bench measures one corpus at a time). */
export const resetStorageCalls = (): void => {
  counts.clear();
};
