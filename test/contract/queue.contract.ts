import { describe, expect, it } from 'vitest';
import type { Queue, QueueEntry, QueueMessage } from '../../functions/core/ports/queue.js';

/** A message as a consumer of the queue receives it. */
export interface ReceivedMessage {
  body: string;
  attributes: Record<string, string>;
}

/** A queue under test and a view of what its consumers received. */
export interface QueueHarness {
  queue: Queue;
  /** Every message received so far, once all sent ones have arrived, in any order. */
  received: () => Promise<ReceivedMessage[]>;
}

const bySortedBody = (messages: ReceivedMessage[]) =>
  [...messages].sort((a, b) => a.body.localeCompare(b.body));

/** Messages each adapter must refuse before sending anything, with why. */
const INVALID_MESSAGES: [string, QueueMessage][] = [
  ['an undefined body', { body: undefined }],
  ['a BigInt body', { body: { n: 1n } }],
  [
    'a cyclic body',
    {
      body: (() => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      })(),
    },
  ],
  [
    'eleven attributes',
    { body: 1, attributes: Object.fromEntries([...Array(11).keys()].map((i) => [`a${i}`, 'v'])) },
  ],
  ['an attribute name with a space', { body: 1, attributes: { 'tenant id': 'x' } }],
  ['a reserved attribute name', { body: 1, attributes: { 'AWS.TraceHeader': 'x' } }],
  ['an attribute name with ".."', { body: 1, attributes: { 'a..b': 'x' } }],
  ['an empty attribute value', { body: 1, attributes: { tenant: '' } }],
  ['a negative delay', { body: 1, delaySeconds: -1 }],
  ['a delay above 900 seconds', { body: 1, delaySeconds: 901 }],
  ['a fractional delay', { body: 1, delaySeconds: 1.5 }],
];

/**
 * The Queue contract: what every adapter (SQS, in process) must do, so that local mode sends,
 * delivers and refuses exactly what AWS does. Retries and failure reports are transport
 * specific and tested with each adapter.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run.
 */
export function describeQueueContract(
  name: string,
  factory: () => QueueHarness | Promise<QueueHarness>,
): void {
  describe(`${name} (Queue contract)`, () => {
    it('delivers the body as its JSON text and the attributes unchanged', async () => {
      // Arrange
      const { queue, received } = await factory();
      const body = { batchId: 'bat_1', items: [1, 2], note: 'naïve “quotes”', none: null };
      // Act
      await queue.send({ body, attributes: { tenant: 'tenant-a', 'kind.v1': 'batch-item' } });
      // Assert
      expect(await received()).toEqual([
        { body: JSON.stringify(body), attributes: { tenant: 'tenant-a', 'kind.v1': 'batch-item' } },
      ]);
    });

    it('delivers a message without attributes with none', async () => {
      // Arrange
      const { queue, received } = await factory();
      // Act
      await queue.send({ body: 'plain' });
      // Assert
      expect(await received()).toEqual([{ body: '"plain"', attributes: {} }]);
    });

    it('delivers every message of a sendMany call, more than ten included', async () => {
      // Arrange
      const { queue, received } = await factory();
      const entries: QueueEntry[] = [...Array(23).keys()].map((i) => ({
        id: `item-${String(i).padStart(3, '0')}`,
        body: { item: i },
        attributes: { index: String(i) },
      }));
      // Act
      await queue.sendMany(entries);
      // Assert
      expect(bySortedBody(await received())).toEqual(
        bySortedBody(
          entries.map((e) => ({ body: JSON.stringify(e.body), attributes: { ...e.attributes } })),
        ),
      );
    });

    it('sends nothing for an empty sendMany call', async () => {
      // Arrange
      const { queue, received } = await factory();
      // Act
      await queue.sendMany([]);
      // Assert
      expect(await received()).toEqual([]);
    });

    it.each(INVALID_MESSAGES)(
      'rejects %s with RangeError and sends nothing',
      async (_, message) => {
        // Arrange
        const { queue, received } = await factory();
        // Act
        const sent = queue.send(message);
        const sentMany = queue.sendMany([
          { id: 'good', body: 1 },
          { id: 'bad', ...message },
        ]);
        // Assert
        await expect(sent).rejects.toBeInstanceOf(RangeError);
        await expect(sentMany).rejects.toBeInstanceOf(RangeError);
        expect(await received()).toEqual([]);
      },
    );

    it.each([
      ['a repeated id', ['a', 'b', 'a']],
      ['an empty id', ['a', '']],
      ['an id with a space', ['a b']],
      ['an id longer than 80 characters', ['x'.repeat(81)]],
    ])('rejects sendMany entries with %s and sends none of them', async (_, ids) => {
      // Arrange
      const { queue, received } = await factory();
      // Act
      const sent = queue.sendMany(ids.map((id) => ({ id, body: id })));
      // Assert
      await expect(sent).rejects.toBeInstanceOf(RangeError);
      expect(await received()).toEqual([]);
    });
  });
}
