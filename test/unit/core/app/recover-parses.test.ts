import { describe, expect, it } from 'vitest';
import { submitUpload, failureOf } from '../../../../functions/core/app/parse-upload.js';
import { recoverInterruptedParses } from '../../../../functions/core/app/recover-parses.js';
import { DEFAULT_PARSE_OPTIONS } from '../../../../functions/core/domain/request.js';
import {
  FakeDocumentEngine,
  TENANT,
  TINY_PDF,
  anAppWorld,
  scannedPageFeatures,
  type AppWorld,
} from '../../../support/builders.js';

/** A request as a server killed mid-parse leaves it: `processing`, with no run going. */
async function anInterruptedRequest(world: AppWorld, runs?: number): Promise<string> {
  const record = await submitUpload(world, {
    tenant: TENANT,
    bytes: TINY_PDF,
    filename: 'two.pdf',
    options: { ...DEFAULT_PARSE_OPTIONS, enable_verification: false },
  });
  await world.requests.update(record.id, {
    status: 'processing',
    ...(runs === undefined ? {} : { runs }),
  });
  return record.id;
}

const aWorld = () =>
  anAppWorld({ engine: new FakeDocumentEngine({ pageCount: 2, features: scannedPageFeatures }) });

describe('recoverInterruptedParses', () => {
  it('restarts the interrupted first run under its own name, which completes the parse', async () => {
    // Arrange
    const world = await aWorld();
    const id = await anInterruptedRequest(world);
    // Act
    const outcomes = await recoverInterruptedParses(world, [id]);
    await world.workflow.wait(world.workflow.executionIdFor(id));
    // Assert
    expect(outcomes).toEqual([{ requestId: id, action: 'restarted' }]);
    const record = await world.requests.get(id);
    expect(record?.status).toBe('completed');
    expect(record?.restartedRun).toBe(0);
  });

  it('parses only the pages that have no checkpoint in the restarted run', async () => {
    // Arrange: page 1 was checkpointed before the server stopped (a checkpoint taken from a
    // finished parse of the same document).
    const world = await aWorld();
    const done = await anInterruptedRequest(world);
    await recoverInterruptedParses(world, [done]);
    await world.workflow.wait(world.workflow.executionIdFor(done));
    const [pageOne] = await world.requests.listPages(done);
    const id = await anInterruptedRequest(world);
    await world.requests.putPage(id, pageOne!);
    world.workflow.ran.length = 0;
    // Act
    await recoverInterruptedParses(world, [id]);
    await world.workflow.wait(world.workflow.executionIdFor(id));
    // Assert
    expect(world.workflow.ran.filter((stage) => stage === 'ParsePage')).toHaveLength(1);
    expect((await world.requests.get(id))?.status).toBe('completed');
  });

  it("restarts a resume's interrupted run under the resume's name", async () => {
    // Arrange
    const world = await aWorld();
    const id = await anInterruptedRequest(world, 2);
    // Act
    await recoverInterruptedParses(world, [id]);
    // Assert
    expect(await world.workflow.running(world.workflow.executionIdFor(`${id}-r2`))).toBe(true);
    await world.workflow.wait(world.workflow.executionIdFor(`${id}-r2`));
    expect((await world.requests.get(id))?.status).toBe('completed');
  });

  it('fails a run interrupted again after its restart, saying how to resume it', async () => {
    // Arrange: the restarted run was interrupted too (the server stopped again).
    const world = await aWorld();
    const id = await anInterruptedRequest(world);
    await world.requests.update(id, { restartedRun: 0 });
    // Act
    const outcomes = await recoverInterruptedParses(world, [id]);
    // Assert
    expect(outcomes).toEqual([{ requestId: id, action: 'failed' }]);
    const record = await world.requests.get(id);
    expect(record?.status).toBe('failed');
    expect(record?.error?.kind).toBe('unavailable');
    expect(record?.error?.message).toContain(`POST /v1/parse/${id}/resume`);
    expect(failureOf(record!.error!)).toMatchObject({ kind: 'unavailable' });
    expect(world.workflow.inputs).toHaveLength(0);
  });

  it('skips requests that ended, are unknown, or whose run is going', async () => {
    // Arrange
    const world = await aWorld();
    const ended = await anInterruptedRequest(world);
    await world.requests.update(ended, { status: 'cancelled' });
    const going = await anInterruptedRequest(world);
    const { executionId } = await world.workflow.start(going, { requestId: going });
    // Act
    const outcomes = await recoverInterruptedParses(world, [ended, 'req_unknown', going]);
    await world.workflow.wait(executionId);
    // Assert
    expect(outcomes.map((o) => o.action)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(world.workflow.inputs).toHaveLength(1);
  });
});
