import { describe, expect, it, vi } from 'vitest';
import {
  requestIdOfExecution,
  withRecordPolling,
} from '../../../../functions/core/app/record-polling-workflow.js';
import type { ExecutionOutcome, Workflow } from '../../../../functions/core/ports/workflow.js';
import { aRequestRecord } from '../../../support/builders.js';
import { InMemoryRequestStore } from '../../../support/fakes.js';

const ARN = 'arn:aws:states:us-east-1:123456789012:execution:Parse';
const EXECUTION = `${ARN}:req_1`;

/** A workflow whose every call is a spy; `running` answers `running()`. */
function aWorkflow(running: () => boolean = () => true) {
  return {
    executionIdFor: vi.fn((requestId: string) => `${ARN}:${requestId}`),
    start: vi.fn((requestId: string) => Promise.resolve({ executionId: `${ARN}:${requestId}` })),
    wait: vi.fn((): Promise<ExecutionOutcome> =>
      Promise.resolve({ status: 'FAILED', error: 'States.Timeout', cause: 'timed out' }),
    ),
    running: vi.fn(() => Promise.resolve(running())),
    stop: vi.fn(() => Promise.resolve()),
  } satisfies Workflow;
}

/**
 * A clock that the injected sleep moves on; `onSleep(n)` runs after the n-th sleep (from 1), to
 * change the record while the caller waits.
 */
function aClock(onSleep: (n: number) => Promise<void> | void = () => undefined) {
  let time = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => time,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      time += ms;
      await onSleep(sleeps.length);
    },
  };
}

describe('withRecordPolling', () => {
  it('answers SUCCEEDED once the record is completed, without asking the workflow', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_1', status: 'processing' }));
    const clock = aClock(async (n) => {
      if (n === 4) await requests.update('req_1', { status: 'completed' });
    });
    const workflow = aWorkflow();
    const polled = withRecordPolling(workflow, requests, { ...clock, random: () => 0.999999 });
    // Act
    const outcome = await polled.wait(EXECUTION);
    // Assert
    expect(outcome).toEqual({ status: 'SUCCEEDED' });
    expect(clock.sleeps).toHaveLength(4);
    expect(workflow.running).not.toHaveBeenCalled();
    expect(workflow.wait).not.toHaveBeenCalled();
  });

  it('backs off from 250 ms by half again each read up to 5 s, jittered down to half', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_1', status: 'processing' }));
    const clock = aClock(async (n) => {
      if (n === 12) await requests.update('req_1', { status: 'completed' });
    });
    // Act
    await withRecordPolling(aWorkflow(), requests, { ...clock, random: () => 0 }).wait(EXECUTION);
    // Assert
    const full = [250, 375, 562.5, 843.75, 1265.625, 1898.4375, 2847.65625, 4271.484375];
    expect(clock.sleeps).toEqual([...full, 5000, 5000, 5000, 5000].map((ms) => ms / 2));
  });

  it('reads the outcome of a failed request from its recorded error', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    await requests.create(
      aRequestRecord({
        id: 'req_1',
        status: 'failed',
        error: { name: 'UnsupportedDocumentError', kind: 'unsupported', message: 'not a PDF' },
      }),
    );
    // Act
    const outcome = await withRecordPolling(aWorkflow(), requests, aClock()).wait(EXECUTION);
    // Assert
    expect(outcome).toEqual({
      status: 'FAILED',
      error: 'UnsupportedDocumentError',
      cause: 'not a PDF',
    });
  });

  it('answers a failed record without an error as a runtime failure', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_1', status: 'failed' }));
    // Act
    const outcome = await withRecordPolling(aWorkflow(), requests, aClock()).wait(EXECUTION);
    // Assert
    expect(outcome).toEqual({ status: 'FAILED', error: 'States.Runtime', cause: '' });
  });

  it('answers ABORTED for a cancelled request', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_1', status: 'cancelled' }));
    // Act
    const outcome = await withRecordPolling(aWorkflow(), requests, aClock()).wait(EXECUTION);
    // Assert
    expect(outcome).toEqual({ status: 'ABORTED' });
  });

  it('follows the record of a resumed run named <request id>-r<run>', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    const execution = `${ARN}:req_1-r2`;
    await requests.create(
      aRequestRecord({ id: 'req_1', status: 'completed', executionId: execution }),
    );
    // Act
    const outcome = await withRecordPolling(aWorkflow(), requests, aClock()).wait(execution);
    // Assert
    expect(outcome).toEqual({ status: 'SUCCEEDED' });
  });

  it('does not take the end of an earlier run for the end of the one it waits for', async () => {
    // Arrange: the record still says how run 1 ended; run 2 is not written yet.
    const requests = new InMemoryRequestStore();
    await requests.create(
      aRequestRecord({ id: 'req_1', status: 'failed', executionId: EXECUTION }),
    );
    const clock = aClock(async (n) => {
      if (n === 3) {
        await requests.update('req_1', { status: 'completed', executionId: `${ARN}:req_1-r1` });
      }
    });
    // Act
    const outcome = await withRecordPolling(aWorkflow(), requests, clock).wait(`${ARN}:req_1-r1`);
    // Assert
    expect(outcome).toEqual({ status: 'SUCCEEDED' });
    expect(clock.sleeps).toHaveLength(3);
  });

  it('asks the workflow once a minute, and takes its outcome when the execution has ended', async () => {
    // Arrange: the record never ends (the execution timed out before any stage could say so).
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_1', status: 'processing' }));
    const clock = aClock();
    let asked = 0;
    const workflow = aWorkflow(() => ++asked < 3);
    // Act
    const outcome = await withRecordPolling(workflow, requests, {
      ...clock,
      random: () => 0.5,
    }).wait(EXECUTION);
    // Assert
    expect(outcome).toEqual({ status: 'FAILED', error: 'States.Timeout', cause: 'timed out' });
    expect(workflow.running).toHaveBeenCalledTimes(3);
    expect(workflow.wait).toHaveBeenCalledWith(EXECUTION);
    const elapsed = clock.now();
    expect(elapsed).toBeGreaterThanOrEqual(180_000);
    expect(elapsed).toBeLessThan(190_000);
  });

  it('keeps polling while the record does not exist yet', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    const clock = aClock(async (n) => {
      if (n === 2) await requests.create(aRequestRecord({ id: 'req_1', status: 'completed' }));
    });
    // Act
    const outcome = await withRecordPolling(aWorkflow(), requests, clock).wait(EXECUTION);
    // Assert
    expect(outcome).toEqual({ status: 'SUCCEEDED' });
  });

  it('passes the other calls through to the workflow', async () => {
    // Arrange
    const workflow = aWorkflow();
    const polled = withRecordPolling(workflow, new InMemoryRequestStore());
    // Act
    const id = polled.executionIdFor('req_9');
    const started = await polled.start('req_9', { requestId: 'req_9' });
    const running = await polled.running(id);
    await polled.stop(id);
    // Assert
    expect(id).toBe(`${ARN}:req_9`);
    expect(started).toEqual({ executionId: `${ARN}:req_9` });
    expect(running).toBe(true);
    expect(workflow.stop).toHaveBeenCalledWith(id);
  });

  it('waits with setTimeout by default', async () => {
    // Arrange
    vi.useFakeTimers();
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_1', status: 'completed' }));
    try {
      // Act
      const outcome = withRecordPolling(aWorkflow(), requests).wait(EXECUTION);
      await vi.advanceTimersByTimeAsync(250);
      // Assert
      await expect(outcome).resolves.toEqual({ status: 'SUCCEEDED' });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('requestIdOfExecution', () => {
  it.each([
    [`${ARN}:abc123`, 'abc123'],
    [`${ARN}:abc123-r2`, 'abc123'],
    ['local:parse-document:abc123-r10', 'abc123'],
  ])('reads the request of %s', (executionId, requestId) => {
    expect(requestIdOfExecution(executionId)).toBe(requestId);
  });
});
