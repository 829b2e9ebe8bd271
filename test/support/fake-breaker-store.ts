import type { BreakerRecord } from '../../functions/core/domain/circuit-breaker.js';
import { ConflictError } from '../../functions/core/domain/errors.js';
import type { BreakerChange, BreakerStore } from '../../functions/core/ports/breaker-store.js';

/** A copy as a DynamoDB round trip would give (no shared references, no `undefined` fields). */
function stored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Lets every other pending task run, as the network round trip between a read and a write does. */
function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * BreakerStore in memory, with the DynamoDB adapter's semantics: `update` reads, yields (so
 * concurrent updates interleave between their read and their write, as they do over the network),
 * then writes only if the version it read is still the stored one, retrying otherwise.
 */
export class FakeBreakerStore implements BreakerStore {
  readonly #records = new Map<string, BreakerRecord>();
  readonly #maxAttempts: number;
  /** When set, every call rejects with it (a store that is down). */
  failure: Error | undefined;
  /** Successful writes so far (for assertions). */
  writes = 0;
  /** Writes lost to a concurrent writer so far (for assertions). */
  conflicts = 0;

  constructor(options: { maxAttempts?: number } = {}) {
    this.#maxAttempts = options.maxAttempts ?? 32;
  }

  async get(providerId: string): Promise<BreakerRecord | undefined> {
    await this.#call();
    const record = this.#records.get(providerId);
    return record && stored(record);
  }

  async getMany(providerIds: readonly string[]): Promise<Map<string, BreakerRecord>> {
    await this.#call();
    const records = new Map<string, BreakerRecord>();
    for (const id of providerIds) {
      const record = this.#records.get(id);
      if (record) records.set(id, stored(record));
    }
    return records;
  }

  async update(providerId: string, change: BreakerChange): Promise<BreakerRecord | undefined> {
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const current = await this.get(providerId);
      const next = change(current);
      if (next === null) return current;
      const record = stored({ ...next, providerId, version: (current?.version ?? 0) + 1 });
      await yieldTurn();
      if (this.#records.get(providerId)?.version !== current?.version) {
        this.conflicts++;
        continue;
      }
      this.#records.set(providerId, record);
      this.writes++;
      return stored(record);
    }
    throw new ConflictError(
      `breaker of provider ${providerId} kept changing under ${this.#maxAttempts} update attempts`,
      { details: { providerId, attempts: this.#maxAttempts } },
    );
  }

  /** Stores `record` as is, bypassing the version check (a write by another process). */
  seed(record: BreakerRecord): void {
    this.#records.set(record.providerId, stored(record));
  }

  async #call(): Promise<void> {
    await Promise.resolve();
    if (this.failure) throw this.failure;
  }
}
