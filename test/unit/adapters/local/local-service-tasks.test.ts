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
