import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { localServiceTasks } from '../../../../functions/adapters/local/local-service-tasks.js';
import {
  LocalStepFunctionsWorkflow,
  type LocalTask,
} from '../../../../functions/adapters/local/local-workflow.js';
import { PARSE_DOCUMENT_ASL } from '../../../../functions/pipeline/stages.js';
import { aRequestRecord } from '../../../support/builders.js';
import { InMemoryRequestStore } from '../../../support/fakes.js';

const ASL = fileURLToPath(new URL(`../../../../${PARSE_DOCUMENT_ASL}`, import.meta.url));

const namedError = (name: string, message: string): Error =>
  Object.assign(new Error(message), { name });

/** The real definition run locally: Route fails, and RecordFailure cannot run (timed out). */
function failingWorkflow(requests: InMemoryRequestStore) {
  const ok: LocalTask = (input) => Promise.resolve(input);
  const tasks: Record<string, LocalTask> = {
    Ingest: ok,
    Classify: ok,
    Route: () => Promise.reject(namedError('RoutingError', 'no tier for the page')),
    RecordFailure: () => Promise.reject(namedError('States.Timeout', 'States.Timeout')),
    ...localServiceTasks(requests),
  };
  return new LocalStepFunctionsWorkflow(ASL, () => Promise.resolve(tasks), {
    TableName: 'local',
  });
}

describe('local service tasks', () => {
  it('marks a processing request failed when RecordFailure cannot run', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_1', status: 'processing' }));
    const workflow = failingWorkflow(requests);
    // Act
    const { executionId } = await workflow.start('req_1', { requestId: 'req_1' });
    const outcome = await workflow.wait(executionId);
    // Assert
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'RoutingError' });
    const record = await requests.get('req_1');
    expect(record).toMatchObject({
      status: 'failed',
      error: {
        name: 'RoutingError',
        kind: 'internal',
        message: 'the parse failed and its failure could not be recorded',
      },
    });
    expect(Date.parse(record?.updatedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  it('leaves a cancelled request cancelled and still ends the execution failed', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_2', status: 'cancelled' }));
    const workflow = failingWorkflow(requests);
    // Act
    const { executionId } = await workflow.start('req_2', { requestId: 'req_2' });
    const outcome = await workflow.wait(executionId);
    // Assert
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'RoutingError' });
    expect((await requests.get('req_2'))?.status).toBe('cancelled');
  });

  it('fails MarkFailed as the service integration does when the request has ended', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_3', status: 'completed' }));
    const input = {
      Key: { pk: { S: 'REQ#req_3' }, sk: { S: 'META' } },
      ExpressionAttributeValues: {
        ':error': { M: { name: { S: 'X' }, kind: { S: 'internal' }, message: { S: 'm' } } },
        ':now': { S: '2026-01-01T00:00:00.000Z' },
      },
    };
    // Act
    const outcome = localServiceTasks(requests).MarkFailed(input);
    // Assert
    await expect(outcome).rejects.toMatchObject({
      name: 'DynamoDB.ConditionalCheckFailedException',
    });
    expect((await requests.get('req_3'))?.status).toBe('completed');
  });
});

describe('LocalStepFunctionsWorkflow with tasks bound later', () => {
  it('runs the tasks given by bindTasks', async () => {
    // Arrange
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_3', status: 'processing' }));
    const workflow = new LocalStepFunctionsWorkflow(ASL, undefined, { TableName: 'local' });
    const ok: LocalTask = (input) => Promise.resolve(input);
    workflow.bindTasks({
      Ingest: ok,
      Classify: ok,
      Route: () => Promise.reject(namedError('RoutingError', 'no tier for the page')),
      RecordFailure: () => Promise.reject(namedError('States.Timeout', 'States.Timeout')),
      ...localServiceTasks(requests),
    });
    // Act
    const { executionId } = await workflow.start('req_3', { requestId: 'req_3' });
    const outcome = await workflow.wait(executionId);
    // Assert
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'RoutingError' });
    expect(await requests.get('req_3')).toMatchObject({ status: 'failed' });
  });

  it('refuses to start before its tasks are bound, and a second binding', async () => {
    // Arrange
    const workflow = new LocalStepFunctionsWorkflow(ASL, undefined);
    // Act
    const started = workflow.start('req_4', { requestId: 'req_4' });
    // Assert
    await expect(started).rejects.toThrow('no Task state is bound to the workflow');
    workflow.bindTasks({});
    expect(() => {
      workflow.bindTasks({});
    }).toThrow('the workflow has its tasks already');
  });

  it('starts one execution for concurrent starts of one name, as StartExecution does', async () => {
    // Arrange: 20 starts of one name made together, before the definition is loaded.
    const requests = new InMemoryRequestStore();
    await requests.create(aRequestRecord({ id: 'req_5', status: 'processing' }));
    const workflow = new LocalStepFunctionsWorkflow(ASL, undefined, { TableName: 'local' });
    let ingests = 0;
    const ok: LocalTask = (input) => Promise.resolve(input);
    workflow.bindTasks({
      Ingest: (input) => {
        ingests++;
        return Promise.resolve(input);
      },
      Classify: ok,
      Route: () => Promise.reject(namedError('RoutingError', 'no tier for the page')),
      RecordFailure: ok,
      ...localServiceTasks(requests),
    });
    // Act
    const started = await Promise.all(
      Array.from({ length: 20 }, () => workflow.start('req_5-r2', { requestId: 'req_5' })),
    );
    await workflow.wait(started[0]?.executionId ?? '');
    // Assert
    expect(new Set(started.map((s) => s.executionId)).size).toBe(1);
    expect(ingests).toBe(1);
  });
});
