import { afterEach, describe, expect, it, vi } from 'vitest';
import { WriteQueues } from '../../../functions/adapters/write-queues.js';

/** A writer that takes the whole queue in each write, records it, and ends when released. */
function aRecordingWriter() {
  const writes: { key: string; items: number[] }[] = [];
  const pending: (() => void)[] = [];
  const writeSome = async (key: string, queue: number[]): Promise<void> => {
    writes.push({ key, items: queue.splice(0) });
    await new Promise<void>((resolve) => {
      pending.push(resolve);
    });
  };
  const releaseAll = () => {
    for (const release of pending.splice(0)) release();
  };
  return { writes, writeSome, releaseAll };
}

describe('WriteQueues', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes the first item at once and the items that came meanwhile together after it', async () => {
    // Arrange
    const writer = aRecordingWriter();
    const queues = new WriteQueues<number>(writer.writeSome);
    // Act
    queues.add('a', 1);
    queues.add('a', 2);
    queues.add('a', 3);
    queues.add('b', 9);
    const whileFirstRuns = structuredClone(writer.writes);
    writer.releaseAll();
    await vi.waitFor(() => {
      expect(writer.writes).toHaveLength(3);
    });
    writer.releaseAll();
    // Assert
    expect(whileFirstRuns).toEqual([
      { key: 'a', items: [1] },
      { key: 'b', items: [9] },
    ]);
    expect(writer.writes[2]).toEqual({ key: 'a', items: [2, 3] });
  });

  it('starts a new writer for an item queued after the queue was found empty', async () => {
    // Arrange
    const written: number[][] = [];
    const queues = new WriteQueues<number>((_key, queue) => {
      written.push(queue.splice(0));
      return Promise.resolve();
    });
    queues.add('a', 1);
    await vi.waitFor(() => {
      expect(written).toEqual([[1]]);
    });
    // Act
    queues.add('a', 2);
    // Assert
    await vi.waitFor(() => {
      expect(written).toEqual([[1], [2]]);
    });
  });

  it('writes an item a caller queues as soon as its previous one is written', async () => {
    // Arrange: each item is settled by the write that takes it, as the adapters settle theirs.
    const written: number[] = [];
    const queues = new WriteQueues<{ n: number; done: () => void }>(async (_key, queue) => {
      for (const item of queue.splice(0)) {
        written.push(item.n);
        item.done();
      }
      await Promise.resolve();
    });
    const write = (n: number) =>
      new Promise<void>((done) => {
        queues.add('a', { n, done });
      });
    // Act
    for (let n = 1; n <= 5; n++) await write(n);
    // Assert
    expect(written).toEqual([1, 2, 3, 4, 5]);
  });

  it('waits lingerMs before the first write, so that a burst goes in one write', async () => {
    // Arrange
    vi.useFakeTimers();
    const written: number[][] = [];
    const queues = new WriteQueues<number>(
      (_key, queue) => {
        written.push(queue.splice(0));
        return Promise.resolve();
      },
      { lingerMs: 50 },
    );
    // Act
    queues.add('a', 1);
    queues.add('a', 2);
    await vi.advanceTimersByTimeAsync(49);
    const early = structuredClone(written);
    await vi.advanceTimersByTimeAsync(1);
    // Assert
    expect(early).toEqual([]);
    expect(written).toEqual([[1, 2]]);
  });
});
