/**
 * A map that keeps the most recently set entries: past `maxEntries` entries, or past `maxWeight`
 * in total `weigh(value)`, the least recently set ones are dropped. The adapters' in-process
 * memory of what they wrote (sequence numbers, records, small objects) is kept in these.
 *
 * @example
 * const seqs = new RecentlyUsed<string, number>({ maxEntries: 1000 });
 * seqs.set('req_1', 7);
 */
export class RecentlyUsed<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #maxEntries: number;
  readonly #maxWeight: number;
  readonly #weigh: (value: V) => number;
  #weight = 0;

  constructor(options: { maxEntries?: number; maxWeight?: number; weigh?: (value: V) => number }) {
    this.#maxEntries = options.maxEntries ?? Infinity;
    this.#maxWeight = options.maxWeight ?? Infinity;
    this.#weigh = options.weigh ?? (() => 0);
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Sets `key` as the most recent entry, then drops the oldest beyond the limits. */
  set(key: K, value: V): void {
    this.delete(key);
    this.#entries.set(key, value);
    this.#weight += this.#weigh(value);
    for (const [oldest, old] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#weight <= this.#maxWeight) break;
      this.#entries.delete(oldest);
      this.#weight -= this.#weigh(old);
    }
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }

  delete(key: K): void {
    const old = this.#entries.get(key);
    if (old === undefined && !this.#entries.has(key)) return;
    this.#entries.delete(key);
    if (old !== undefined) this.#weight -= this.#weigh(old);
  }
}
