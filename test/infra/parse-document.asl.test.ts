import { readFileSync } from 'node:fs';
import { ExecutionError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { localContextObject } from '../../functions/adapters/local/local-workflow.js';
import { PARSE_DOCUMENT_ASL, serviceTasks, stages } from '../../functions/pipeline/stages.js';

type Json = Record<string, unknown>;
type Task = (input: Json) => unknown;
type LocalHandlers = NonNullable<
  NonNullable<
    NonNullable<Parameters<StateMachine['run']>[1]>['overrides']
  >['taskResourceLocalHandlers']
>;
type LocalHandler = LocalHandlers[string];

const aslText = readFileSync(new URL(`../../${PARSE_DOCUMENT_ASL}`, import.meta.url), 'utf8');

/** The definition with `${XArn}` placeholders replaced by Lambda ARNs, as CDK substitutes them. */
const definition = JSON.parse(
  aslText.replace(
    /\$\{(\w+)Arn\}/g,
    (_, state: string) => `arn:aws:lambda:us-east-1:000000000000:function:${state}`,
  ),
) as StateMachineDefinition;

/** Task states run by a Step Functions service integration rather than a stage function. */
const SERVICE_TASKS: readonly string[] = serviceTasks;

/** Every Lambda Task state retries these, the invoke failures of the Lambda service itself. */
const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

const namedError = (name: string, message: string): Error =>
  Object.assign(new Error(message), { name });

/** Stub tasks that record their calls; `overrides` replace single tasks. */
function stubTasks(pages: number, overrides: Record<string, Task> = {}) {
  const calls: { state: string; input: Json }[] = [];
  const defaults: Record<string, Task> = {
    Ingest: (input) => ({ requestId: input.requestId, pageCount: pages }),
    Classify: (input) => ({ requestId: input.requestId }),
    Route: (input) => ({
      requestId: input.requestId,
      pages: Array.from({ length: pages }, (_, i) => ({
        requestId: input.requestId,
        pageNumber: i + 1,
      })),
    }),
    ParsePage: (input) => ({ pageNumber: input.pageNumber }),
    Verify: (input) => ({ requestId: input.requestId }),
    Deliver: (input) => ({ requestId: input.requestId }),
    RecordFailure: (input) => {
      const failure = input.failure as { Error: string; Cause?: string };
      return { requestId: input.requestId, error: failure.Error, cause: failure.Cause ?? '' };
    },
    MarkFailed: () => ({}),
  };
  const handlers: LocalHandlers = {};
  for (const state of [...stages.map((s) => s.state), ...SERVICE_TASKS]) {
    const task = overrides[state] ?? defaults[state]!;
    const handler: LocalHandler = async (input) => {
      const json = structuredClone(input) as Json;
      calls.push({ state, input: json });
      return (await task(json)) as Awaited<ReturnType<LocalHandler>>;
    };
    handlers[state] = handler;
  }
  return { calls, handlers };
}

function execute(tasks: ReturnType<typeof stubTasks>, input: Json) {
  const machine = new StateMachine(definition);
  return machine.run(input as never, {
    context: localContextObject(),
    overrides: {
      taskResourceLocalHandlers: tasks.handlers,
      retryIntervalOverrides: Object.fromEntries(
        [...stages.map((s) => s.state), ...SERVICE_TASKS].map((state) => [state, 0]),
      ),
    },
  }).result;
}

const START = { requestId: 'req_1', settings: { pageConcurrency: 2 } };

describe('parse-document state machine', () => {
  it('runs Ingest, Classify, Route, ParsePage once per page, Verify and Deliver in order', async () => {
    // Arrange
    const tasks = stubTasks(3);
    // Act
    await execute(tasks, START);
    // Assert
    const states = tasks.calls.map((c) => c.state);
    expect(states).toEqual([
      'Ingest',
      'Classify',
      'Route',
      'ParsePage',
      'ParsePage',
      'ParsePage',
      'Verify',
      'Deliver',
    ]);
    const pageInputs = tasks.calls.filter((c) => c.state === 'ParsePage').map((c) => c.input);
    expect(pageInputs).toEqual(
      expect.arrayContaining([1, 2, 3].map((pageNumber) => ({ requestId: 'req_1', pageNumber }))),
    );
  });

  it('passes only the request id to the document-level stages', async () => {
    // Arrange
    const tasks = stubTasks(1);
    // Act
    await execute(tasks, START);
    // Assert
    for (const call of tasks.calls.filter((c) => c.state !== 'ParsePage')) {
      expect(call.input).toEqual({ requestId: 'req_1' });
    }
  });

  it('fails with the stage error name after RecordFailure receives { Error, Cause }', async () => {
    // Arrange
    const tasks = stubTasks(2, {
      Classify: () => {
        throw namedError('DocumentRejectedError', 'the document has no pages');
      },
    });
    // Act
    const outcome = await execute(tasks, START).catch((error: unknown) => error);
    // Assert
    expect(outcome).toBeInstanceOf(ExecutionError);
    expect((outcome as Error).cause).toMatchObject({
      name: 'DocumentRejectedError',
      message: 'the document has no pages',
    });
    expect(tasks.calls.map((c) => c.state)).toEqual(['Ingest', 'Classify', 'RecordFailure']);
    expect(tasks.calls.at(-1)?.input).toEqual({
      requestId: 'req_1',
      failure: { Error: 'DocumentRejectedError', Cause: 'the document has no pages' },
    });
  });

  it.each(['Ingest', 'Route', 'ParsePage', 'Verify', 'Deliver'])(
    'fails through RecordFailure when %s throws',
    async (state) => {
      // Arrange
      const tasks = stubTasks(1, {
        [state]: () => {
          throw namedError('UnsupportedDocumentError', `${state} refused`);
        },
      });
      // Act
      const outcome = await execute(tasks, START).catch((error: unknown) => error);
      // Assert
      expect((outcome as Error).cause).toMatchObject({ name: 'UnsupportedDocumentError' });
      expect(tasks.calls.at(-1)).toEqual({
        state: 'RecordFailure',
        input: {
          requestId: 'req_1',
          failure: { Error: 'UnsupportedDocumentError', Cause: `${state} refused` },
        },
      });
    },
  );

  it('retries a page whose provider is unavailable and then goes on', async () => {
    // Arrange
    let attempts = 0;
    const tasks = stubTasks(1, {
      ParsePage: (input) => {
        attempts += 1;
        if (attempts < 3) throw namedError('ProviderUnavailableError', 'busy');
        return { pageNumber: input.pageNumber };
      },
    });
    // Act
    await execute(tasks, START);
    // Assert
    expect(attempts).toBe(3);
    expect(tasks.calls.map((c) => c.state).slice(-2)).toEqual(['Verify', 'Deliver']);
  });

  it('fails with ProviderUnavailableError once the page retries are used up', async () => {
    // Arrange
    const tasks = stubTasks(1, {
      ParsePage: () => {
        throw namedError('ProviderUnavailableError', 'still busy');
      },
    });
    // Act
    const outcome = await execute(tasks, START).catch((error: unknown) => error);
    // Assert
    expect((outcome as Error).cause).toMatchObject({ name: 'ProviderUnavailableError' });
    expect(tasks.calls.filter((c) => c.state === 'ParsePage')).toHaveLength(4);
    expect(tasks.calls.at(-1)?.state).toBe('RecordFailure');
  });

  it.each(['Ingest', 'Classify', 'Route', 'ParsePage', 'Verify', 'Deliver'])(
    'retries %s when Lambda is throttled and then goes on',
    async (state) => {
      // Arrange
      let attempts = 0;
      const tasks = stubTasks(1);
      const stub = tasks.handlers[state]!;
      tasks.handlers[state] = async (input, ...rest) => {
        attempts += 1;
        if (attempts <= 2) throw namedError('Lambda.TooManyRequestsException', 'Rate Exceeded.');
        return stub(input, ...rest);
      };
      // Act
      await execute(tasks, START);
      // Assert
      expect(attempts).toBe(3);
      expect(tasks.calls.map((c) => c.state)).not.toContain('RecordFailure');
      expect(tasks.calls.at(-1)?.state).toBe('Deliver');
    },
  );

  it('marks the request failed without RecordFailure when RecordFailure itself fails', async () => {
    // Arrange
    const tasks = stubTasks(1, {
      Verify: () => {
        throw namedError('VerificationError', 'pages disagree');
      },
      RecordFailure: () => {
        throw namedError('Lambda.TooManyRequestsException', 'Rate Exceeded.');
      },
    });
    // Act
    const outcome = await execute(tasks, START).catch((error: unknown) => error);
    // Assert
    expect(tasks.calls.filter((c) => c.state === 'RecordFailure')).toHaveLength(7);
    const marked = tasks.calls.at(-1);
    expect(marked?.state).toBe('MarkFailed');
    expect(marked?.input).toMatchObject({
      Key: { pk: { S: 'REQ#req_1' }, sk: { S: 'META' } },
      ConditionExpression: '#status IN (:queued, :processing)',
      ExpressionAttributeValues: {
        ':failed': { S: 'failed' },
        ':error': { M: { name: { S: 'VerificationError' }, kind: { S: 'internal' } } },
      },
    });
    expect(outcome).toBeInstanceOf(ExecutionError);
    expect((outcome as Error).cause).toMatchObject({
      name: 'VerificationError',
      message: 'pages disagree',
    });
  });

  it('still fails with the stage error when marking the request failed fails too', async () => {
    // Arrange
    const tasks = stubTasks(1, {
      Route: () => {
        throw namedError('RoutingError', 'no tier');
      },
      RecordFailure: () => {
        throw namedError('States.Timeout', 'timed out');
      },
      MarkFailed: () => {
        throw namedError('DynamoDB.ConditionalCheckFailedException', 'already ended');
      },
    });
    // Act
    const outcome = await execute(tasks, START).catch((error: unknown) => error);
    // Assert
    expect(tasks.calls.filter((c) => c.state === 'MarkFailed')).toHaveLength(1);
    expect((outcome as Error).cause).toMatchObject({ name: 'RoutingError' });
  });

  it('does not retry a rejected document', async () => {
    // Arrange
    const tasks = stubTasks(1, {
      Ingest: () => {
        throw namedError('DocumentRejectedError', 'too many pages');
      },
    });
    // Act
    await execute(tasks, START).catch(() => undefined);
    // Assert
    expect(tasks.calls.filter((c) => c.state === 'Ingest')).toHaveLength(1);
  });
});

describe('parse-document definition and stages.ts', () => {
  const placeholders = [...aslText.matchAll(/\$\{(\w+)Arn\}/g)].map((m) => m[1]);

  it('has a stages.ts entry for every ${...Arn} placeholder and a placeholder for every entry', () => {
    // Arrange
    const declared = stages.map((s) => s.state).sort();
    // Act
    const used = [...new Set(placeholders)].sort();
    // Assert
    expect(used).toEqual(declared);
  });

  const raw = JSON.parse(aslText) as { States: Record<string, Json> };
  /** Every state of the definition, those inside Map item processors included. */
  const allStates = (states: Record<string, Json> = raw.States): [string, Json][] =>
    Object.entries(states).flatMap(([name, state]) => {
      const processor = state.ItemProcessor as { States: Record<string, Json> } | undefined;
      return [[name, state] as [string, Json], ...(processor ? allStates(processor.States) : [])];
    });
  const taskStates = allStates().filter(([, state]) => state.Type === 'Task');
  const lambdaTasks = taskStates.filter(([name]) => !SERVICE_TASKS.includes(name));

  it('names every Lambda Task state after the function its placeholder stands for', () => {
    // Assert
    expect(lambdaTasks.length).toBe(stages.length);
    for (const [name, state] of lambdaTasks) expect(state.Resource).toBe(`\${${name}Arn}`);
    for (const name of SERVICE_TASKS) {
      expect(raw.States[name]?.Resource).toMatch(/^arn:aws:states:::/);
    }
  });

  it('retries the Lambda service errors and throttling on every Task with full jitter', () => {
    // Assert
    for (const [name, state] of lambdaTasks) {
      const retriers = (state.Retry ?? []) as Json[];
      const lambda = retriers.find((r) =>
        LAMBDA_SERVICE_ERRORS.every((e) => (r.ErrorEquals as string[]).includes(e)),
      );
      expect(lambda, `${name} retries Lambda service errors`).toMatchObject({
        JitterStrategy: 'FULL',
        BackoffRate: 2,
        MaxAttempts: expect.any(Number) as number,
        MaxDelaySeconds: expect.any(Number) as number,
      });
      expect(lambda?.MaxAttempts).toBeGreaterThanOrEqual(3);
    }
    for (const name of SERVICE_TASKS) {
      const retriers = (raw.States[name]?.Retry ?? []) as Json[];
      expect(retriers, `${name} retries throttling`).toEqual([
        expect.objectContaining({ JitterStrategy: 'FULL' }),
      ]);
    }
  });

  it('catches every failure of RecordFailure into MarkFailed, which ends in a Fail state', () => {
    // Arrange
    const { RecordFailure: recordFailure, MarkFailed: markFailed } = raw.States;
    // Assert
    expect(recordFailure?.Catch).toEqual([
      expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'MarkFailed' }),
    ]);
    expect(markFailed).toMatchObject({
      Resource: 'arn:aws:states:::dynamodb:updateItem',
      Parameters: { TableName: '${TableName}' },
      Next: 'FailedUnrecorded',
      Catch: [expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'FailedUnrecorded' })],
    });
    expect(raw.States.FailedUnrecorded).toMatchObject({ Type: 'Fail' });
  });

  it('names a handler module that exists for every stage', () => {
    // Assert
    for (const { entry } of stages) {
      expect(() =>
        readFileSync(new URL(`../../functions/pipeline/${entry}`, import.meta.url)),
      ).not.toThrow();
    }
  });
});
