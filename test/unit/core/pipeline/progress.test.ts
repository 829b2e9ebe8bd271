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
  it('hands events to the log as they are emitted, without blocking emit', () => {
    // Arrange: the log never finishes an append.
    const calls: string[] = [];
    const log: EventLog = {
      append: (_id: string, event: ProgressEvent) => {
        calls.push(event.event);
        return new Promise<number>(() => undefined);
      },
      opened: () => undefined,
      list: () => Promise.resolve([]),
    };
    const progress = new OrderedProgress(log, 'req_1');
    // Act
    for (const event of ['a', 'b', 'c']) progress.emit({ event });
    // Assert
    expect(calls).toEqual(['a', 'b', 'c']);
  });

  it('settles when every append is written and reports the first failure', async () => {
    // Arrange
    const { log, trace } = slowLog([5, 1, 1], 1);
    const progress = new OrderedProgress(log, 'req_1');
    // Act
    for (const event of ['a', 'b', 'c']) progress.emit({ event });
    // Assert
    await expect(progress.settled()).rejects.toThrow('append 1 failed');
    await new Promise((wake) => setTimeout(wake, 20));
    expect(trace).toContain('end a');
    expect(trace).toContain('end c');
  });
});
