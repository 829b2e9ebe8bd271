/**
 * Writes per key that go together: the first write of a key starts a writer for it; writes of the
 * same key that arrive while it runs wait in its queue, and the writer takes them, a group at a
 * time (`writeSome`), until the queue is empty. The adapters that turn concurrent writes of one
 * request into fewer storage calls (event appends, page charges) queue them here.
 *
 * `writeSome` takes what it writes out of the queue and settles each item it took; it must not
 * throw. The writer forgets the key as soon as it finds the queue empty, so a write that comes
 * later starts a new writer.
 *
 * @example
 * const appends = new WriteQueues<Pending>((id, queue) => writeGroup(id, queue.splice(0, 25)));
 * appends.add('req_1', pending);
 */
export class WriteQueues<T> {
  readonly #queues = new Map<string, T[]>();
  readonly #writeSome: (key: string, queue: T[]) => Promise<void>;
  readonly #lingerMs: number;

  /**
   * @param options.lingerMs how long a new writer waits before its first write, so that more of a
   *   burst joins it.
   */
  constructor(
    writeSome: (key: string, queue: T[]) => Promise<void>,
    options: { lingerMs?: number } = {},
  ) {
    this.#writeSome = writeSome;
    this.#lingerMs = Math.max(0, options.lingerMs ?? 0);
  }

  /** Queues `item` for `key`, behind the writer of the key if one runs, else with a new one. */
  add(key: string, item: T): void {
    const queue = this.#queues.get(key);
    if (queue) {
      queue.push(item);
      return;
    }
    const started = [item];
    this.#queues.set(key, started);
    void this.#write(key, started);
  }

  async #write(key: string, queue: T[]): Promise<void> {
    if (this.#lingerMs > 0) await new Promise((wake) => setTimeout(wake, this.#lingerMs));
    while (queue.length > 0) await this.#writeSome(key, queue);
    // At once, with no await after the empty check: a write queued later starts a new writer.
    this.#queues.delete(key);
  }
}
