import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHandler as classifyHandler } from '../../../functions/pipeline/classify.handler.js';
import { createHandler as deliverHandler } from '../../../functions/pipeline/deliver.handler.js';
import { createHandler as ingestHandler } from '../../../functions/pipeline/ingest.handler.js';
import { createHandler as parsePageHandler } from '../../../functions/pipeline/parse-page.handler.js';
import { createHandler as recordFailureHandler } from '../../../functions/pipeline/record-failure.handler.js';
import { createHandler as routeHandler } from '../../../functions/pipeline/route.handler.js';
import { stageHandler } from '../../../functions/pipeline/stage-handler.js';
import { createHandler as verifyHandler } from '../../../functions/pipeline/verify.handler.js';
import { submitUpload } from '../../../functions/core/app/parse-upload.js';
import { DocumentRejectedError, ValidationError } from '../../../functions/core/domain/errors.js';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import type { ProgressEvent } from '../../../functions/core/ports/event-log.js';
import { InMemoryEventLog } from '../../support/fakes.js';
import {
  FakeDocumentEngine,
  TENANT,
  TINY_PDF,
  eventsOf,
  fakeDeps,
  lambdaContext,
  parseOptions,
  type FakeDeps,
} from '../../support/builders.js';

async function submitted(deps: FakeDeps) {
  const record = await submitUpload(deps, {
    tenant: TENANT,
    bytes: TINY_PDF,
    filename: 'a.pdf',
    options: parseOptions(),
  });
  return record.id;
}

/** `log`, with every append held until `gate` opens. */
class GatedEventLog extends InMemoryEventLog {
  readonly #gate: Promise<void>;
  readonly #log: InMemoryEventLog;

  constructor(log: InMemoryEventLog, gate: Promise<void>) {
    super();
    this.#log = log;
    this.#gate = gate;
  }

  override async append(requestId: string, event: ProgressEvent): Promise<number> {
    await this.#gate;
    return this.#log.append(requestId, event);
  }
}

const Input = z.object({ requestId: z.string().min(1), pageNumber: z.number().optional() });

describe('stageHandler', () => {
  it('emits node.started, the stage events and node.completed in order, and returns the output', async () => {
    // Arrange
    const deps = await fakeDeps();
    const handler = stageHandler(
      () => Promise.resolve(deps),
      'Probe',
      Input,
      (_input, _d, progress) => {
        progress.emit({ event: 'probe.step', n: 1 });
        progress.emit({ event: 'probe.step', n: 2 });
        return Promise.resolve({ ok: true });
      },
    );
    // Act
    const output = await handler({ requestId: 'req_1' }, lambdaContext('Probe'));
    // Assert: every event is written when the handler returns.
    expect(output).toEqual({ ok: true });
    expect(await eventsOf(deps.events, 'req_1')).toEqual([
      { event: 'node.started', node: 'Probe' },
      { event: 'probe.step', n: 1 },
      { event: 'probe.step', n: 2 },
      { event: 'node.completed', node: 'Probe' },
    ]);
  });

  it('hands the last event writes to deferEvents in a long-lived process', async () => {
    // Arrange: an event log whose appends wait until released.
    const deps = await fakeDeps();
    const log = deps.events;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const deferred: Promise<void>[] = [];
    const slow: FakeDeps = {
      ...deps,
      events: new GatedEventLog(log, gate),
      deferEvents: (written) => deferred.push(written),
    };
    const handler = stageHandler(
      () => Promise.resolve(slow),
      'Probe',
      Input,
      () => Promise.resolve('done'),
    );
    // Act
    const output = await handler({ requestId: 'req_2' }, lambdaContext('Probe'));
    // Assert: the handler returned before any event was written; the deferred writes finish.
    expect(output).toBe('done');
    expect(await eventsOf(log, 'req_2')).toEqual([]);
    expect(deferred).toHaveLength(1);
    release();
    await deferred[0];
    expect(await eventsOf(log, 'req_2')).toEqual([
      { event: 'node.started', node: 'Probe' },
      { event: 'node.completed', node: 'Probe' },
    ]);
  });

  it('names the page in the node events of a page task', async () => {
    // Arrange
    const deps = await fakeDeps();
    const handler = stageHandler(
      () => Promise.resolve(deps),
      'ParsePage',
      Input,
      () => Promise.resolve(null),
    );
    // Act
    await handler({ requestId: 'req_1', pageNumber: 3 }, lambdaContext('ParsePage'));
    // Assert
    expect(await eventsOf(deps.events, 'req_1')).toEqual([
      { event: 'node.started', node: 'ParsePage', page: 3 },
      { event: 'node.completed', node: 'ParsePage', page: 3 },
    ]);
  });

  it('rejects an invalid state input with ValidationError located in the state', async () => {
    // Arrange
    const deps = await fakeDeps();
    const handler = ingestHandler(() => Promise.resolve(deps));
    // Act
    const result = handler({ requestId: '' }, lambdaContext('Ingest'));
    // Assert
    await expect(result).rejects.toBeInstanceOf(ValidationError);
    await expect(result).rejects.toMatchObject({
      issues: [expect.objectContaining({ loc: ['state', 'requestId'] })],
    });
  });

  it('rejects a page item without a page number', async () => {
    // Arrange
    const deps = await fakeDeps();
    const handler = parsePageHandler(() => Promise.resolve(deps));
    // Act
    const result = handler({ requestId: 'req_1' }, lambdaContext('ParsePage'));
    // Assert
    await expect(result).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ loc: ['state', 'pageNumber'] })],
    });
  });

  it('rejects with the stage error by name and emits no node.completed', async () => {
    // Arrange
    const deps = await fakeDeps({ engine: new FakeDocumentEngine({ pageCount: 0 }) });
    const requestId = await submitted(deps);
    // Act
    const result = ingestHandler(() => Promise.resolve(deps))(
      { requestId },
      lambdaContext('Ingest'),
    );
    // Assert
    await expect(result).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(result).rejects.toMatchObject({ name: 'DocumentRejectedError' });
    expect(await eventsOf(deps.events, requestId)).toEqual([
      { event: 'node.started', node: 'Ingest' },
    ]);
  });
});

describe('pipeline task handlers', () => {
  it('run the stages of a parse one after another to a completed result', async () => {
    // Arrange
    const deps = await fakeDeps({ engine: new FakeDocumentEngine({ pageCount: 2 }) });
    const getDeps = () => Promise.resolve(deps);
    const requestId = await submitted(deps);
    // Act
    await ingestHandler(getDeps)({ requestId }, lambdaContext('Ingest'));
    await classifyHandler(getDeps)({ requestId }, lambdaContext('Classify'));
    const routed = await routeHandler(getDeps)({ requestId }, lambdaContext('Route'));
    for (const item of routed.pages) {
      await parsePageHandler(getDeps)(item, lambdaContext('ParsePage'));
    }
    await verifyHandler(getDeps)({ requestId }, lambdaContext('Verify'));
    await deliverHandler(getDeps)({ requestId }, lambdaContext('Deliver'));
    // Assert
    const record = await deps.requests.get(requestId);
    expect(record?.status).toBe('completed');
    const result = JSON.parse(
      new TextDecoder().decode(await deps.objects.get(record!.resultKey!)),
    ) as unknown;
    expect(ParseResponse.parse(result).pages).toHaveLength(2);
    const nodes = (await eventsOf(deps.events, requestId))
      .filter((e) => e.event === 'node.started')
      .map((e) => (e.page === undefined ? e.node : `${e.node as string}#${e.page as number}`));
    expect(nodes).toEqual([
      'Ingest',
      'Classify',
      'Route',
      'ParsePage#1',
      'ParsePage#2',
      'Verify',
      'Deliver',
    ]);
  });

  it('record a caught failure and return it for the Fail state', async () => {
    // Arrange
    const deps = await fakeDeps();
    const requestId = await submitted(deps);
    // Act
    const output = await recordFailureHandler(() => Promise.resolve(deps))(
      { requestId, failure: { Error: 'DocumentRejectedError', Cause: 'no pages' } },
      lambdaContext('RecordFailure'),
    );
    // Assert
    expect(output).toEqual({ requestId, error: 'DocumentRejectedError', cause: 'no pages' });
    expect((await deps.requests.get(requestId))?.error).toEqual({
      name: 'DocumentRejectedError',
      kind: 'unprocessable',
      message: 'no pages',
    });
  });

  it('rejects a failure input without an Error name', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const result = recordFailureHandler(() => Promise.resolve(deps))(
      { requestId: 'req_1', failure: { Cause: 'x' } },
      lambdaContext('RecordFailure'),
    );
    // Assert
    await expect(result).rejects.toMatchObject({
      issues: [expect.objectContaining({ loc: ['state', 'failure', 'Error'] })],
    });
  });
});
