import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkerSlot } from '../../../functions/engines/module-worker.js';

/** A stand-in worker: an id, and whether it was stopped. */
interface FakeWorker {
  id: number;
  stopped: boolean;
}

/** A slot over fake workers, numbered from 1 in the order they were started. */
function fakeSlot(idleMs: number) {
  const started: FakeWorker[] = [];
  const slot = new WorkerSlot<FakeWorker>({
    start: () => {
      const worker = { id: started.length + 1, stopped: false };
      started.push(worker);
      return worker;
    },
    stop: (worker) => {
      worker.stopped = true;
      return Promise.resolve();
    },
    idleMs,
  });
  return { slot, started };
}

/** A promise and its resolver, to keep a use of the slot running. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('WorkerSlot', () => {
  it('starts a worker on first use and keeps it for the next uses', async () => {
    // Arrange
    const { slot, started } = fakeSlot(1000);
    // Act
    const first = await slot.use(() => Promise.resolve(slot.worker()));
    const second = await slot.use(() => Promise.resolve(slot.worker()));
    // Assert
    expect(first).toBe(second);
    expect(started).toHaveLength(1);
    expect(slot.workersStarted).toBe(1);
  });

  it('stops the worker once unused for idleMs, and starts a new one on the next use', async () => {
    // Arrange
    vi.useFakeTimers();
    const { slot, started } = fakeSlot(1000);
    await slot.use(() => Promise.resolve(slot.worker()));
    // Act
    await vi.advanceTimersByTimeAsync(999);
    const keptUntilIdleMs = started[0]?.stopped;
    await vi.advanceTimersByTimeAsync(1);
    const again = await slot.use(() => Promise.resolve(slot.worker()));
    // Assert
    expect(keptUntilIdleMs).toBe(false);
    expect(started[0]?.stopped).toBe(true);
    expect(slot.current).toBe(again);
    expect(again.id).toBe(2);
  });

  it('never stops a worker while a use runs, however long, and counts idleness from its end', async () => {
    // Arrange
    vi.useFakeTimers();
    const { slot, started } = fakeSlot(1000);
    await slot.use(() => Promise.resolve(slot.worker()));
    await vi.advanceTimersByTimeAsync(900);
    const running = gate();
    const use = slot.use(async () => {
      slot.worker();
      await running.promise;
    });
    // Act
    await vi.advanceTimersByTimeAsync(10_000);
    const stoppedDuringUse = started[0]?.stopped;
    running.open();
    await use;
    await vi.advanceTimersByTimeAsync(500);
    const stoppedSoonAfter = started[0]?.stopped;
    await vi.advanceTimersByTimeAsync(500);
    // Assert
    expect(stoppedDuringUse).toBe(false);
    expect(stoppedSoonAfter).toBe(false);
    expect(started[0]?.stopped).toBe(true);
  });

  it('keeps the worker when idleMs is 0 or Infinity', async () => {
    // Arrange
    vi.useFakeTimers();
    const slots = [fakeSlot(0), fakeSlot(Infinity)];
    for (const { slot } of slots) await slot.use(() => Promise.resolve(slot.worker()));
    // Act
    await vi.advanceTimersByTimeAsync(24 * 3_600_000);
    // Assert
    expect(slots.map(({ started }) => started[0]?.stopped)).toEqual([false, false]);
  });

  it('replaces a retired worker on the next use, and ignores the retirement of a former one', async () => {
    // Arrange
    const { slot, started } = fakeSlot(1000);
    const first = slot.worker();
    // Act
    await slot.retire(first);
    const second = slot.worker();
    await slot.retire(first);
    // Assert
    expect(first.stopped).toBe(true);
    expect(second.stopped).toBe(false);
    expect(slot.current).toBe(second);
    expect(started).toHaveLength(2);
  });

  it('stops its worker on close, idle clock included', async () => {
    // Arrange
    vi.useFakeTimers();
    const { slot, started } = fakeSlot(1000);
    await slot.use(() => Promise.resolve(slot.worker()));
    // Act
    await slot.close();
    await vi.advanceTimersByTimeAsync(2000);
    // Assert
    expect(started[0]?.stopped).toBe(true);
    expect(slot.current).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
