import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EventLog, ProgressEvent } from '../../functions/core/ports/event-log.js';

const progress = (n: number): ProgressEvent => ({
  event: 'page.completed',
  page_number: n,
  tier: 'fast',
});

/**
 * The EventLog contract: what every adapter (DynamoDB, in memory) must do.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run. Request ids are
 * random, so the adapters may share one table across tests.
 */
export function describeEventLogContract(
  name: string,
  factory: () => EventLog | Promise<EventLog>,
): void {
  describe(`${name} (EventLog contract)`, () => {
    it('numbers the events of a request 1, 2, 3 in order of appending', async () => {
      // Arrange
      const log = await factory();
      const requestId = randomUUID();
      // Act
      const seqs = [];
      for (const n of [1, 2, 3]) seqs.push(await log.append(requestId, progress(n)));
      // Assert
      expect(seqs).toEqual([1, 2, 3]);
    });

    it('lists every event with its seq, time and body, ascending', async () => {
      // Arrange
      const log = await factory();
      const requestId = randomUUID();
      const started: ProgressEvent = {
        event: 'request.started',
        request_id: requestId,
        pages: 3,
        options: { dpi: 150, verification: null },
        tiers: ['fast', 'pro'],
        note: '',
      };
      // Act
      await log.append(requestId, started);
      await log.append(requestId, progress(1));
      const events = await log.list(requestId);
      // Assert
      expect(events.map((e) => e.seq)).toEqual([1, 2]);
      expect(events[0]?.body).toStrictEqual(started);
      expect(events[1]?.body).toStrictEqual(progress(1));
      for (const event of events) {
        expect(new Date(event.at).toISOString()).toBe(event.at);
      }
    });

    it('lists only the events after a given seq', async () => {
      // Arrange
      const log = await factory();
      const requestId = randomUUID();
      for (const n of [1, 2, 3, 4, 5]) await log.append(requestId, progress(n));
      // Act
      const events = await log.list(requestId, 3);
      // Assert
      expect(events.map((e) => e.seq)).toEqual([4, 5]);
      expect(events.map((e) => e.body.page_number)).toEqual([4, 5]);
    });

    it('lists everything after seq 0 and nothing after the last seq', async () => {
      // Arrange
      const log = await factory();
      const requestId = randomUUID();
      for (const n of [1, 2]) await log.append(requestId, progress(n));
      // Act
      const all = await log.list(requestId, 0);
      const none = await log.list(requestId, 2);
      const beyond = await log.list(requestId, 1_000);
      // Assert
      expect(all).toHaveLength(2);
      expect(none).toEqual([]);
      expect(beyond).toEqual([]);
    });

    it('lists nothing for a request without events', async () => {
      // Arrange
      const log = await factory();
      // Act
      const events = await log.list(randomUUID());
      // Assert
      expect(events).toEqual([]);
    });

    it('numbers each request separately', async () => {
      // Arrange
      const log = await factory();
      const first = randomUUID();
      const second = randomUUID();
      await log.append(first, progress(1));
      await log.append(first, progress(2));
      // Act
      const seq = await log.append(second, { event: 'request.started' });
      // Assert
      expect(seq).toBe(1);
      expect(await log.list(second)).toHaveLength(1);
      expect(await log.list(first)).toHaveLength(2);
    });

    it('gives 20 concurrent appends 20 distinct seqs and keeps every event', async () => {
      // Arrange
      const log = await factory();
      const requestId = randomUUID();
      // Act
      const seqs = await Promise.all(
        Array.from({ length: 20 }, (_, i) => log.append(requestId, progress(i + 1))),
      );
      const events = await log.list(requestId);
      // Assert
      expect(new Set(seqs).size).toBe(20);
      expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      // Each event is stored under the seq its append returned.
      seqs.forEach((seq, i) => {
        expect(events[seq - 1]?.body.page_number).toBe(i + 1);
      });
    });

    it('numbers appends made without waiting in the order they were made', async () => {
      // Arrange
      const log = await factory();
      const requestId = randomUUID();
      // Act
      const seqs = await Promise.all(
        Array.from({ length: 12 }, (_, i) => log.append(requestId, progress(i + 1))),
      );
      // Assert
      expect(seqs).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect((await log.list(requestId)).map((e) => e.body.page_number)).toEqual(
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
    });

    it('continues numbering after concurrent appends', async () => {
      // Arrange
      const log = await factory();
      const requestId = randomUUID();
      await Promise.all([1, 2, 3].map((n) => log.append(requestId, progress(n))));
      // Act
      const seq = await log.append(requestId, { event: 'result.final' });
      // Assert
      expect(seq).toBe(4);
      expect((await log.list(requestId, 3)).map((e) => e.body.event)).toEqual(['result.final']);
    });

    it('returns events that do not change the log when mutated', async () => {
      // Arrange
      const log = await factory();
      const requestId = randomUUID();
      await log.append(requestId, progress(1));
      const [event] = await log.list(requestId);
      // Act
      event!.body.event = 'changed';
      // Assert
      expect((await log.list(requestId))[0]?.body.event).toBe('page.completed');
    });
  });
}
