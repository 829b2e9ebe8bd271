import '../../functions/polyfills.js';
import { readFileSync } from 'node:fs';
import { ExecutionError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { PARSE_DOCUMENT_ASL, stages } from '../../functions/pipeline/stages.js';

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
  };
  const handlers: LocalHandlers = {};
  for (const { state } of stages) {
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
    overrides: {
      taskResourceLocalHandlers: tasks.handlers,
      retryIntervalOverrides: { Ingest: 0, Classify: 0, ParsePage: 0 },
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

  it('names every Task state after the function its placeholder stands for', () => {
    // Arrange
    const raw = JSON.parse(aslText) as { States: Record<string, Json> };
    const tasks: [string, unknown][] = [];
    const collect = (states: Record<string, Json>) => {
      for (const [name, state] of Object.entries(states)) {
        if (state.Type === 'Task') tasks.push([name, state.Resource]);
        const processor = state.ItemProcessor as { States: Record<string, Json> } | undefined;
        if (processor) collect(processor.States);
      }
    };
    // Act
    collect(raw.States);
    // Assert
    expect(tasks.length).toBe(stages.length);
    for (const [name, resource] of tasks) expect(resource).toBe(`\${${name}Arn}`);
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
