import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  InProcessQueue,
  RECOVERY_DELAY_MS,
  toSqsEvent,
  type DeadLetter,
  type InProcessMessage,
} from '../../../../functions/adapters/local/in-process-queue.js';
import { describeQueueContract } from '../../../contract/queue.contract.js';
import { logger } from '../../../../functions/observability/logger.js';

/** A consumer that records what it was given and answers with `outcome` (resolve by default). */
function recorder(outcome: (message: InProcessMessage) => Promise<void> = () => Promise.resolve()) {
  const seen: InProcessMessage[] = [];
  return {
    seen,
    consumer: (message: InProcessMessage) => {
      seen.push(message);
      return outcome(message);
    },
  };
}

/** A promise with its resolve function, to hold a consumer until a test lets it go. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

afterEach(() => {
  vi.useRealTimers();
});

describeQueueContract('InProcessQueue', () => {
  const { seen, consumer } = recorder();
  const queue = new InProcessQueue({ consumer, concurrency: 4 });
  return {
    queue,
    received: async () => {
      await queue.drain();
      return seen.map((m) => ({ body: m.body, attributes: { ...m.attributes } }));
    },
  };
});

describe('InProcessQueue', () => {
  it('hands each message to the consumer with an id, its JSON body and attributes', async () => {
    // Arrange
    const { seen, consumer } = recorder();
    const queue = new InProcessQueue({ consumer });
    // Act
    await queue.send({ body: { requestId: 'req_1' }, attributes: { tenant: 't' } });
    await queue.drain();
    // Assert
    expect(seen).toEqual([
      {
        messageId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
        body: '{"requestId":"req_1"}',
        attributes: { tenant: 't' },
        receiveCount: 1,
        sentAt: expect.any(Date) as unknown,
      },
    ]);
  });

  it('runs at most `concurrency` deliveries at once, in the order sent', async () => {
    // Arrange
    const hold = gate();
    let running = 0;
    let mostAtOnce = 0;
    const { seen, consumer } = recorder(async () => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await hold.opened;
      running -= 1;
    });
    const queue = new InProcessQueue({ consumer, concurrency: 2 });
    // Act
    await queue.sendMany([...Array(5).keys()].map((i) => ({ id: `m${i}`, body: i })));
    await new Promise((resolve) => setImmediate(resolve));
    const startedBeforeRelease = seen.length;
    hold.open();
    await queue.drain();
    // Assert
    expect(startedBeforeRelease).toBe(2);
    expect(mostAtOnce).toBe(2);
    expect(seen.map((m) => m.body)).toEqual(['0', '1', '2', '3', '4']);
  });

  it('delivers a failed message again after a doubling backoff, then succeeds', async () => {
    // Arrange
    vi.useFakeTimers();
    let calls = 0;
    const { seen, consumer } = recorder(() =>
      ++calls < 3 ? Promise.reject(new Error('not yet')) : Promise.resolve(),
    );
    const queue = new InProcessQueue({ consumer, backoffMs: 100, maxReceiveCount: 3 });
    // Act
    await queue.send({ body: 'x' });
    await vi.advanceTimersByTimeAsync(99);
    const afterFirstWait = seen.length;
    await vi.advanceTimersByTimeAsync(1);
    const afterBackoff = seen.length;
    await vi.advanceTimersByTimeAsync(199);
    const beforeSecondBackoff = seen.length;
    await vi.advanceTimersByTimeAsync(1);
    await queue.drain();
    // Assert
    expect([afterFirstWait, afterBackoff, beforeSecondBackoff, seen.length]).toEqual([1, 2, 2, 3]);
    expect(seen.map((m) => m.receiveCount)).toEqual([1, 2, 3]);
    expect(new Set(seen.map((m) => m.messageId)).size).toBe(1);
    expect(queue.deadLetters).toEqual([]);
  });

  it('dead-letters a message after maxReceiveCount failed deliveries, with the last error', async () => {
    // Arrange
    const deadLetters: DeadLetter[] = [];
    const { seen, consumer } = recorder((m) =>
      Promise.reject(new Error(`failure ${m.receiveCount}`)),
    );
    const queue = new InProcessQueue({
      consumer,
      maxReceiveCount: 2,
      backoffMs: 1,
      onDeadLetter: (dead) => deadLetters.push(dead),
    });
    // Act
    await queue.send({ body: { poison: true } });
    await queue.drain();
    // Assert
    expect(seen).toHaveLength(2);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]?.message).toMatchObject({ body: '{"poison":true}', receiveCount: 2 });
    expect((deadLetters[0]?.error as Error).message).toBe('failure 2');
    expect(queue.deadLetters).toEqual(deadLetters);
  });

  it('keeps a dead letter when the dead-letter callback throws', async () => {
    // Arrange
    const log = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const queue = new InProcessQueue({
      consumer: () => Promise.reject(new Error('bad')),
      maxReceiveCount: 1,
      onDeadLetter: () => {
        throw new Error('callback failed');
      },
    });
    // Act
    await queue.send({ body: 1 });
    await queue.drain();
    // Assert
    expect(queue.deadLetters).toHaveLength(1);
    expect(log).toHaveBeenCalledWith(
      'the dead-letter callback failed',
      expect.objectContaining({ error: expect.any(Error) as unknown }),
    );
    log.mockRestore();
  });

  it('caps the backoff at maxBackoffMs', async () => {
    // Arrange
    vi.useFakeTimers();
    const { seen, consumer } = recorder(() => Promise.reject(new Error('down')));
    const queue = new InProcessQueue({
      consumer,
      backoffMs: 100,
      maxBackoffMs: 150,
      maxReceiveCount: 3,
    });
    // Act
    await queue.send({ body: 1 });
    await vi.advanceTimersByTimeAsync(100);
    await vi.advanceTimersByTimeAsync(150);
    // Assert: the third delivery came 150 ms after the second, not 200 ms.
    expect(seen).toHaveLength(3);
    await queue.drain();
  });

  it('holds a delayed message back for its delay', async () => {
    // Arrange
    vi.useFakeTimers();
    const { seen, consumer } = recorder();
    const queue = new InProcessQueue({ consumer });
    // Act
    await queue.send({ body: 'later', delaySeconds: 5 });
    await vi.advanceTimersByTimeAsync(4999);
    const early = seen.length;
    await vi.advanceTimersByTimeAsync(1);
    // Assert
    expect(early).toBe(0);
    expect(seen.map((m) => m.body)).toEqual(['"later"']);
  });

  it('drains only when delayed and retried messages are done too', async () => {
    // Arrange
    vi.useFakeTimers();
    let failures = 1;
    const { seen, consumer } = recorder(() =>
      failures-- > 0 ? Promise.reject(new Error('once')) : Promise.resolve(),
    );
    const queue = new InProcessQueue({ consumer, backoffMs: 1000 });
    await queue.send({ body: 'retried' });
    await queue.send({ body: 'delayed', delaySeconds: 2 });
    let drained = false;
    // Act
    const draining = queue.drain().then(() => {
      drained = true;
    });
    await vi.advanceTimersByTimeAsync(1500);
    const drainedEarly = drained;
    await vi.advanceTimersByTimeAsync(500);
    await draining;
    // Assert
    expect(drainedEarly).toBe(false);
    expect(seen.map((m) => m.body)).toEqual(['"retried"', '"retried"', '"delayed"']);
  });

  it('waits, on close, for messages sent by running consumers, then refuses new ones', async () => {
    // Arrange
    const seen: string[] = [];
    const queue: InProcessQueue = new InProcessQueue({
      consumer: async (m) => {
        seen.push(m.body);
        if (m.body === '"first"') await queue.send({ body: 'follow-up' });
      },
    });
    await queue.send({ body: 'first' });
    // Act
    await queue.close();
    // Assert
    expect(seen).toEqual(['"first"', '"follow-up"']);
    await expect(queue.send({ body: 'late' })).rejects.toThrow('the queue is closed');
    await expect(queue.sendMany([{ id: 'a', body: 1 }])).rejects.toThrow('the queue is closed');
  });

  it('on stop, forgets delayed messages, waits for the running one and refuses new ones', async () => {
    // Arrange
    const held = gate();
    const { seen, consumer } = recorder(() => held.opened);
    const queue = new InProcessQueue({ consumer });
    await queue.send({ body: { now: true } });
    await queue.send({ body: { later: true }, delaySeconds: 900 });
    // Act
    const stopping = queue.stop();
    held.open();
    const forgotten = await stopping;
    // Assert
    expect(forgotten).toBe(1);
    expect(seen.map((m) => m.body)).toEqual(['{"now":true}']);
    await expect(queue.send({ body: {} })).rejects.toThrow('the queue is closed');
  });

  it('drains at once when nothing was sent', async () => {
    // Arrange
    const queue = new InProcessQueue({ consumer: () => Promise.resolve() });
    // Act / Assert
    await expect(queue.drain()).resolves.toBeUndefined();
  });

  it('refuses a concurrency or maxReceiveCount below one', () => {
    // Act / Assert
    const consumer = () => Promise.resolve();
    expect(() => new InProcessQueue({ consumer, concurrency: 0 })).toThrow(
      'concurrency must be a positive integer; got 0',
    );
    expect(() => new InProcessQueue({ consumer, maxReceiveCount: 1.5 })).toThrow(
      'maxReceiveCount must be a positive integer; got 1.5',
    );
  });
});

describe('InProcessQueue without a consumer', () => {
  it('keeps the messages sent or recovered before subscribe, then delivers them to its consumer', async () => {
    // Arrange: a journal holding one message a previous process left, and no consumer yet
    vi.useFakeTimers();
    const journal = join(mkdtempSync(join(tmpdir(), 'queue-journal-')), 'queues', 'q.jsonl');
    const previous = new InProcessQueue({ journal });
    await previous.send({ body: 'left over' });
    await previous.stop();
    const queue = new InProcessQueue({ journal });
    await queue.send({ body: 'sent' });
    await vi.advanceTimersByTimeAsync(RECOVERY_DELAY_MS * 5);
    const { seen, consumer } = recorder();
    // Act
    queue.subscribe(consumer);
    await queue.drain();
    // Assert
    expect(seen.map((m) => m.body).sort()).toEqual(['"left over"', '"sent"']);
    expect(seen.every((m) => m.receiveCount === 1)).toBe(true);
  });

  it('refuses a second consumer', () => {
    // Arrange
    const queue = new InProcessQueue({ consumer: () => Promise.resolve() });
    // Act
    const subscribe = () => {
      queue.subscribe(() => Promise.resolve());
    };
    // Assert
    expect(subscribe).toThrow('the queue has a consumer already');
  });
});

describe('InProcessQueue with a journal', () => {
  it('delivers, after a restart, what was waiting or running, each once, with its id and the rest of its delay', async () => {
    // Arrange: a first process handles one message, then stops with one delayed and one running
    vi.useFakeTimers();
    const journal = join(mkdtempSync(join(tmpdir(), 'queue-journal-')), 'queues', 'q.jsonl');
    const held = gate();
    const first = recorder((m) => (m.body === '"slow"' ? held.opened : Promise.resolve()));
    const before = new InProcessQueue({ consumer: first.consumer, journal });
    await before.send({ body: 'handled' });
    await before.send({ body: 'delayed', delaySeconds: 60, attributes: { kind: 'retry' } });
    await before.send({ body: 'slow' });
    await vi.advanceTimersByTimeAsync(0);
    // The process dies: timers gone, "slow" never ends, and its last journal line is cut short.
    void before.stop();
    appendFileSync(journal, '{"op":"put","id":"cut sh');
    await vi.advanceTimersByTimeAsync(10_000);
    // Act: the next process, on the same journal
    const second = recorder();
    const after = new InProcessQueue({ consumer: second.consumer, journal });
    await vi.advanceTimersByTimeAsync(RECOVERY_DELAY_MS);
    const soon = second.seen.map((m) => m.body);
    await vi.advanceTimersByTimeAsync(50_000);
    await after.drain();
    // Assert
    expect(after.recovered).toBe(2);
    expect(soon).toEqual(['"slow"']);
    expect(second.seen.map((m) => m.body)).toEqual(['"slow"', '"delayed"']);
    const delayed = second.seen[1]!;
    expect(delayed.attributes).toEqual({ kind: 'retry' });
    expect(delayed.messageId).toBe(
      first.seen.find((m) => m.body === '"slow"') ? delayed.messageId : '',
    );
    // Everything is done with: a third start recovers nothing.
    expect(new InProcessQueue({ consumer: second.consumer, journal }).recovered).toBe(0);
    expect(readFileSync(journal, 'utf8')).toBe('');
    held.open();
  });
});

describe('toSqsEvent', () => {
  it('shapes a message as the SQS event a consumer Lambda receives', () => {
    // Arrange
    const message: InProcessMessage = {
      messageId: '6f1c0c56-2f4e-4a53-9d0b-0d4bd0b5a1a2',
      body: '{"a":1}',
      attributes: { tenant: 't' },
      receiveCount: 2,
      sentAt: new Date('2025-03-04T05:06:07.000Z'),
    };
    // Act
    const event = toSqsEvent(message, 'batch-items');
    // Assert
    expect(event.Records).toEqual([
      {
        messageId: message.messageId,
        receiptHandle: message.messageId,
        body: '{"a":1}',
        attributes: {
          ApproximateReceiveCount: '2',
          SentTimestamp: '1741064767000',
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: '1741064767000',
        },
        messageAttributes: { tenant: { dataType: 'String', stringValue: 't' } },
        md5OfBody: createHash('md5').update('{"a":1}').digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:local:000000000000:batch-items',
        awsRegion: 'local',
      },
    ]);
  });
});
