import type { EventLog, ProgressEvent, ProgressSink } from '../../ports/event-log.js';

/**
 * A stage's progress events for one request, handed to the log as they are emitted (the log
 * writes one request's appends in the order they are made), without holding up the stage.
 * {@link settled} waits for all of them.
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
  readonly #appends: Promise<number>[] = [];

  constructor(log: EventLog, requestId: string) {
    this.#log = log;
    this.#requestId = requestId;
  }

  emit(event: ProgressEvent): void {
    const appended = this.#log.append(this.#requestId, event);
    // Failures are reported by settled().
    appended.catch(() => undefined);
    this.#appends.push(appended);
  }

  /**
   * Resolves when every emitted event is written.
   * @throws the first append error (the other events are still written).
   */
  async settled(): Promise<void> {
    await Promise.all(this.#appends);
  }
}
