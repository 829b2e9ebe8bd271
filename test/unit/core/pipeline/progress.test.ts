import { describe, expect, it } from 'vitest';
import { OrderedProgress } from '../../../../functions/core/domain/pipeline/progress.js';
import type { EventLog, ProgressEvent } from '../../../../functions/core/ports/event-log.js';

/** A log whose appends take `delays[i]` ms; records when each append starts and ends. */
const slowLog = (delays: number[], failAt?: number) => {
  const trace: string[] = [];
  let calls = 0;
  const log: EventLog = {
    append: async (_id: string, event: ProgressEvent) => {
      const i = calls++;
      trace.push(`start ${event.event}`);
      await new Promise((wake) => setTimeout(wake, delays[i] ?? 0));
      if (i === failAt) throw new Error(`append ${i} failed`);
      trace.push(`end ${event.event}`);
      return i + 1;
    },
    opened: () => undefined,
    list: () => Promise.resolve([]),
  };
  return { log, trace };
};

describe('OrderedProgress', () => {
  it('writes events one after the other in the order emitted, without blocking emit', async () => {
    // Arrange: the first append is the slowest.
    const { log, trace } = slowLog([30, 1, 1]);
    const progress = new OrderedProgress(log, 'req_1');
    // Act
    progress.emit({ event: 'a' });
    progress.emit({ event: 'b' });
    progress.emit({ event: 'c' });
    const emittedBeforeAnyWrite = trace.length;
    await progress.settled();
    // Assert
    expect(emittedBeforeAnyWrite).toBeLessThanOrEqual(1);
    expect(trace).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('stops at the first failed append and reports it from settled()', async () => {
    // Arrange
    const { log, trace } = slowLog([1, 1, 1], 1);
    const progress = new OrderedProgress(log, 'req_1');
    // Act
    for (const event of ['a', 'b', 'c']) progress.emit({ event });
    // Assert
    await expect(progress.settled()).rejects.toThrow('append 1 failed');
    expect(trace).toEqual(['start a', 'end a', 'start b']);
  });
});
