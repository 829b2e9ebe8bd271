import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Queue, QueueEntry, QueueMessage } from '../../core/ports/queue.js';
import { encodeEntries, encodeMessage } from '../queue-message.js';

/**
 * A queue nobody consumes, kept on disk for an operator: each message is appended to `path` as one
 * JSON line `{sentAt, body, attributes}` (the body as JSON text, as SQS would deliver it). The
 * local stand-in for a dead-letter queue. Messages follow the rules of every queue adapter.
 */
export class JsonLinesQueue implements Queue {
  readonly #path: string;
  /** Appends one after the other, so that lines never interleave. */
  #tail: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
  }

  async send(message: QueueMessage): Promise<void> {
    const { body, attributes } = encodeMessage(message);
    await this.#append([{ body, attributes }]);
  }

  async sendMany(entries: readonly QueueEntry[]): Promise<void> {
    await this.#append(
      encodeEntries(entries).map(({ body, attributes }) => ({ body, attributes })),
    );
  }

  #append(messages: { body: string; attributes: Record<string, string> }[]): Promise<void> {
    const sentAt = new Date().toISOString();
    const text = messages.map((m) => `${JSON.stringify({ sentAt, ...m })}\n`).join('');
    const written = this.#tail.then(async () => {
      await mkdir(dirname(this.#path), { recursive: true });
      await appendFile(this.#path, text, 'utf8');
    });
    this.#tail = written.catch(() => undefined);
    return written;
  }
}
