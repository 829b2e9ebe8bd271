import { describe, expect, it } from 'vitest';
import { followParse } from '../../../../functions/core/app/follow-parse.js';
import { workKeys } from '../../../../functions/core/domain/object-keys.js';
import { aPipeline, aStoredRequest } from '../../../support/builders.js';

/** A world with one stored request and a wait that lets the test act between polls. */
async function aRequest() {
  const world = aPipeline();
  const record = await aStoredRequest(world);
  const waits: number[] = [];
  return { world, record, waits };
}

async function collect(iterable: AsyncIterable<Record<string, unknown>>) {
  const out: Record<string, unknown>[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

const RESPONSE = { id: 'req_x', status: 'completed', pages: [{ page_number: 1, warnings: [] }] };

describe('followParse', () => {
  it('relays the logged events in order and ends with result.final carrying the stored result', async () => {
    // Arrange
    const { world, record, waits } = await aRequest();
    const key = workKeys.resultJson(record.tenant, record.id);
    await world.objects.put(
      key,
      new TextEncoder().encode(JSON.stringify(RESPONSE)),
      'application/json',
    );
    await world.events.append(record.id, { event: 'ingest.start', page_count: 1 });
    await world.events.append(record.id, { event: 'node.started', node: 'Deliver' });
    await world.events.append(record.id, { event: 'result.final', result_key: key });
    await world.events.append(record.id, { event: 'node.completed', node: 'Deliver' });
    // Act
    const events = await collect(
      followParse(world, record.tenant, record.id, {
        legacyEvents: false,
        includeWarnings: false,
        pollMs: 10,
        wait: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      }),
    );
    // Assert: the last stage's node.completed comes before the final result.
    expect(events.map((e) => e.event)).toEqual([
      'ingest.start',
      'node.started',
      'node.completed',
      'result.final',
    ]);
    expect(events.at(-1)?.payload).toEqual({ ...RESPONSE, pages: [{ page_number: 1 }] });
  });

  it('leaves out node events with legacyEvents and polls until events arrive', async () => {
    // Arrange
    const { world, record } = await aRequest();
    const key = workKeys.resultJson(record.tenant, record.id);
    await world.objects.put(
      key,
      new TextEncoder().encode(JSON.stringify(RESPONSE)),
      'application/json',
    );
    let polls = 0;
    const wait = async () => {
      polls += 1;
      if (polls === 2) {
        await world.events.append(record.id, { event: 'node.started', node: 'Ingest' });
        await world.events.append(record.id, { event: 'ingest.start', page_count: 1 });
        await world.events.append(record.id, { event: 'result.final', result_key: key });
      }
    };
    // Act
    const events = await collect(
      followParse(world, record.tenant, record.id, {
        legacyEvents: true,
        includeWarnings: true,
        pollMs: 10,
        wait,
      }),
    );
    // Assert
    expect(events.map((e) => e.event)).toEqual(['ingest.start', 'result.final']);
    expect(polls).toBeGreaterThanOrEqual(2);
  });

  it('ends a failed parse with an error event and the status view', async () => {
    // Arrange
    const { world, record } = await aRequest();
    await world.events.append(record.id, { event: 'ingest.start', page_count: 1 });
    await world.requests.update(record.id, {
      status: 'failed',
      error: {
        name: 'TierUnavailableError',
        kind: 'unavailable',
        message: 'every provider of the pro tier is unavailable',
      },
    });
    // Act
    const events = await collect(
      followParse(world, record.tenant, record.id, {
        legacyEvents: false,
        includeWarnings: false,
        pollMs: 10,
        wait: () => Promise.resolve(),
      }),
    );
    // Assert
    expect(events.map((e) => e.event)).toEqual(['ingest.start', 'error', 'result.final']);
    expect(events[1]).toMatchObject({
      kind: 'unavailable',
      detail: expect.stringContaining('pro tier') as string,
    });
    expect(events[2]?.payload).toMatchObject({ id: record.id, status: 'failed' });
  });

  it('stops following when the signal aborts, without an error', async () => {
    // Arrange
    const { world, record } = await aRequest();
    const abort = new AbortController();
    // Act
    const events = await collect(
      followParse(world, record.tenant, record.id, {
        legacyEvents: false,
        includeWarnings: false,
        pollMs: 10,
        signal: abort.signal,
        wait: () => {
          abort.abort();
          return Promise.resolve();
        },
      }),
    );
    // Assert
    expect(events).toEqual([]);
  });
});
