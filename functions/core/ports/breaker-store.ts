import type { BreakerRecord } from '../domain/circuit-breaker.js';

/**
 * A change to one breaker: the record to write given the current one (undefined when none is
 * stored), or null to write nothing.
 *
 * It may run several times (once per attempt), so it must be free of side effects other than
 * remembering what it decided last.
 */
export type BreakerChange = (current: BreakerRecord | undefined) => BreakerRecord | null;

/**
 * Per-provider circuit breakers (`PROVIDER#<id>` / `BREAKER`), shared by every process.
 *
 * Reads are by id only: the ids come from the provider configuration, never from a scan.
 */
export interface BreakerStore {
  /** The stored breaker, or undefined when the provider has none yet. */
  get(providerId: string): Promise<BreakerRecord | undefined>;

  /** The stored breakers of `providerIds`, keyed by id; ids with no record are left out. */
  getMany(providerIds: readonly string[]): Promise<Map<string, BreakerRecord>>;

  /**
   * Applies `change` with optimistic concurrency: reads the record, applies `change`, and writes
   * only if no other writer got in between (the stored `version` is unchanged, or the record is
   * still absent), retrying from a fresh read on a conflict.
   *
   * The store owns `providerId` and `version`: whatever `change` puts there, the written record
   * carries `providerId` and the previous version + 1 (1 on create).
   *
   * @returns the record as written, or the current one (undefined if none) when `change`
   *   returns null.
   * @throws {ConflictError} when every one of a bounded number of attempts lost to another writer.
   */
  update(providerId: string, change: BreakerChange): Promise<BreakerRecord | undefined>;
}
