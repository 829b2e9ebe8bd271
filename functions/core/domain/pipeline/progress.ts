import type { EventLog, ProgressEvent, ProgressSink } from '../../ports/event-log.js';

/**
 * A stage's progress events for one request, appended to the log one after the other in the
 * order emitted, without holding up the stage. {@link settled} waits for all of them.
 *
 * @example
 * const progress = new OrderedProgress(events, requestId);
 * progress.emit({ event: 'node.started', node: 'Classify' });
 * await classify(input, ports, progress);
 * progress.emit({ event: 'node.completed', node: 'Classify' });
 * await progress.settled();
 */
export class OrderedProgress implements ProgressSink {
  readonly #log: EventLog;
  readonly #requestId: string;
  #tail: Promise<void> = Promise.resolve();
  #failure: unknown;
  #failed = false;

  constructor(log: EventLog, requestId: string) {
    this.#log = log;
    this.#requestId = requestId;
  }

  emit(event: ProgressEvent): void {
    this.#tail = this.#tail.then(async () => {
      // After a failed append the rest are dropped: a gap would misorder the log.
      if (this.#failed) return;
      try {
        await this.#log.append(this.#requestId, event);
      } catch (error) {
        this.#failed = true;
        this.#failure = error;
      }
    });
  }

  /**
   * Resolves when every emitted event is written.
   * @throws the first append error (the events after it are not written).
   */
  async settled(): Promise<void> {
    await this.#tail;
    if (this.#failed) throw this.#failure;
  }
}
