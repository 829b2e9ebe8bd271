import type { QueueEntry, QueueMessage } from '../core/ports/queue.js';

/** A message as it travels: the body as JSON text, attributes and delay checked. */
export interface EncodedMessage {
  body: string;
  attributes: Record<string, string>;
  delaySeconds: number;
}

/** SQS takes at most 10 message attributes. */
const MAX_ATTRIBUTES = 10;
/** SQS delays a message by at most 15 minutes. */
const MAX_DELAY_SECONDS = 900;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const RESERVED_ATTRIBUTE_PREFIX = /^(aws|amazon)\./i;
const ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * Checks a message against the rules of {@link QueueMessage} (the SQS limits) and encodes its
 * body, so that every queue adapter refuses the same messages.
 *
 * @example
 * encodeMessage({ body: { batchId: 'b1' }, attributes: { tenant: 't1' } });
 * // { body: '{"batchId":"b1"}', attributes: { tenant: 't1' }, delaySeconds: 0 }
 * @throws {RangeError} naming the broken rule.
 */
export function encodeMessage(message: QueueMessage): EncodedMessage {
  // JSON.stringify answers undefined (not a string) for undefined, functions and symbols.
  let body: unknown;
  try {
    body = JSON.stringify(message.body);
  } catch (error) {
    throw new RangeError(`the message body is not JSON-serialisable: ${String(error)}`, {
      cause: error,
    });
  }
  if (typeof body !== 'string') {
    throw new RangeError(`the message body is not JSON-serialisable: ${typeof message.body}`);
  }
  const attributes = { ...message.attributes };
  const names = Object.keys(attributes);
  if (names.length > MAX_ATTRIBUTES) {
    throw new RangeError(
      `a message has at most ${MAX_ATTRIBUTES} attributes; this one has ${names.length}`,
    );
  }
  for (const name of names) {
    if (
      !ATTRIBUTE_NAME.test(name) ||
      RESERVED_ATTRIBUTE_PREFIX.test(name) ||
      name.startsWith('.') ||
      name.endsWith('.') ||
      name.includes('..')
    ) {
      throw new RangeError(`invalid message attribute name: ${JSON.stringify(name)}`);
    }
    if (typeof attributes[name] !== 'string' || attributes[name] === '') {
      throw new RangeError(`message attribute ${name} must be a non-empty string`);
    }
  }
  const delaySeconds = message.delaySeconds ?? 0;
  if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_DELAY_SECONDS) {
    throw new RangeError(
      `delaySeconds must be an integer from 0 to ${MAX_DELAY_SECONDS}; got ${delaySeconds}`,
    );
  }
  return { body, attributes, delaySeconds };
}

/**
 * Checks the entries of a `sendMany` call (ids well formed and distinct, each message valid)
 * and encodes them, in order.
 * @throws {RangeError} naming the first broken rule; nothing should be sent then.
 */
export function encodeEntries(entries: readonly QueueEntry[]): (EncodedMessage & { id: string })[] {
  const seen = new Set<string>();
  return entries.map((entry) => {
    if (!ENTRY_ID.test(entry.id)) {
      throw new RangeError(
        `invalid message id ${JSON.stringify(entry.id)}: use 1-80 characters from A-Z a-z 0-9 _ -`,
      );
    }
    if (seen.has(entry.id)) throw new RangeError(`two messages share the id ${entry.id}`);
    seen.add(entry.id);
    return { id: entry.id, ...encodeMessage(entry) };
  });
}
