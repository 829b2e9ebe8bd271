import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { StepFunctionsWorkflow } from '../../../../functions/adapters/aws/step-functions-workflow.js';

const MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:ParseDocument';
const EXECUTION = 'arn:aws:states:eu-west-1:123456789012:execution:ParseDocument:req_abc';

const sfn = mockClient(SFNClient);
const workflow = () => new StepFunctionsWorkflow(new SFNClient({}), MACHINE, { pollIntervalMs: 1 });

beforeEach(() => {
  sfn.reset();
});

describe('StepFunctionsWorkflow', () => {
  it('names the execution after the request, so its ARN is known before it starts', async () => {
    // Arrange
    sfn.on(StartExecutionCommand).resolves({ executionArn: EXECUTION, startDate: new Date() });
    const flow = workflow();
    // Act
    const { executionId } = await flow.start('req_abc', { requestId: 'req_abc' });
    // Assert
    expect(executionId).toBe(EXECUTION);
    expect(flow.executionIdFor('req_abc')).toBe(EXECUTION);
    expect(sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input).toEqual({
      stateMachineArn: MACHINE,
      name: 'req_abc',
      input: '{"requestId":"req_abc"}',
    });
  });

  it('answers a second start of the same request with the same execution', async () => {
    // Arrange
    sfn
      .on(StartExecutionCommand)
      .rejects(new ExecutionAlreadyExists({ message: 'exists', $metadata: {} }));
    // Act
    const { executionId } = await workflow().start('req_abc', {});
    // Assert
    expect(executionId).toBe(EXECUTION);
  });

  it('follows the execution until it ends and maps failures, timeouts and aborts', async () => {
    // Arrange
    sfn
      .on(DescribeExecutionCommand)
      .resolvesOnce({ status: 'RUNNING' })
      .resolvesOnce({ status: 'RUNNING' })
      .resolvesOnce({ status: 'FAILED', error: 'DocumentRejectedError', cause: 'no pages' })
      .resolvesOnce({ status: 'TIMED_OUT' })
      .resolvesOnce({ status: 'ABORTED' })
      .resolvesOnce({ status: 'SUCCEEDED' });
    const flow = workflow();
    // Act
    const outcomes = [
      await flow.wait(EXECUTION),
      await flow.wait(EXECUTION),
      await flow.wait(EXECUTION),
      await flow.wait(EXECUTION),
    ];
    // Assert
    expect(outcomes).toEqual([
      { status: 'FAILED', error: 'DocumentRejectedError', cause: 'no pages' },
      { status: 'FAILED', error: 'States.Timeout', cause: '' },
      { status: 'ABORTED' },
      { status: 'SUCCEEDED' },
    ]);
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(6);
    expect(sfn.commandCalls(DescribeExecutionCommand)[0]?.args[0].input).toEqual({
      executionArn: EXECUTION,
    });
  });

  it('stops an execution by its ARN', async () => {
    // Arrange
    sfn.on(StopExecutionCommand).resolves({ stopDate: new Date() });
    // Act
    await workflow().stop(EXECUTION);
    // Assert
    expect(sfn.commandCalls(StopExecutionCommand)[0]?.args[0].input).toMatchObject({
      executionArn: EXECUTION,
    });
  });

  it('refuses an ARN that is not a state machine', () => {
    // Act / Assert
    expect(() => new StepFunctionsWorkflow(new SFNClient({}), EXECUTION)).toThrow(
      /not a state machine ARN/,
    );
  });
});
