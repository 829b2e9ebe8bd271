import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DocparseStack } from '../../lib/docparse-stack.js';
import { DocumentStorage } from '../../lib/constructs/document-storage.js';
import { ParseApi } from '../../lib/constructs/parse-api.js';
import { WorkQueues } from '../../lib/constructs/work-queues.js';
import { unbundledApp } from '../support/cdk-app.js';

type Resource = { Type: string; Properties: Record<string, unknown> };
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

let resources: Record<string, Resource>;

/** A stack synthesized without bundling (no esbuild run), as the tests need only the template. */

beforeAll(() => {
  const template = Template.fromStack(new DocparseStack(unbundledApp(), 'BatchTest'));
  resources = template.toJSON().Resources as Record<string, Resource>;
});

const ofType = (type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** The first function that `match` accepts (by logical id or properties). */
function functionWhere(match: (id: string, fn: Resource) => boolean): [string, Resource] {
  const found = ofType('AWS::Lambda::Function').find(([id, fn]) => match(id, fn));
  if (!found) throw new Error('no such function');
  return found;
}

/** The statements of the policies attached to a function's role. */
function statementsOf(fn: Resource): Statement[] {
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** The actions `fn`'s role is allowed (not those denied, such as the webhook secrets'). */
const actionsOf = (fn: Resource) =>
  statementsOf(fn)
    .filter((s) => s.Effect === 'Allow')
    .flatMap((s) => [s.Action].flat());
const variablesOf = (fn: Resource) =>
  (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
/** The logical id of the queue construct `QueuesBatchItemsQueue…` / `QueuesWebhooksQueue…`. */
const queueId = (prefix: string) =>
  ofType('AWS::SQS::Queue').find(([id]) => id.startsWith(prefix))?.[0];

describe('the batch queue', () => {
  it('feeds the batch consumer one document per invocation, at most 10 at once, reporting failures', () => {
    // Arrange
    const [consumerId, consumer] = functionWhere((id) => id.startsWith('QueuesBatchItem'));
    const batchQueue = queueId('QueuesBatchItemsQueue');
    // Act
    const [, mapping] =
      ofType('AWS::Lambda::EventSourceMapping').find(
        ([, m]) => (m.Properties.FunctionName as { Ref: string }).Ref === consumerId,
      ) ?? [];
    // Assert
    expect(mapping?.Properties).toMatchObject({
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 10 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [batchQueue, 'Arn'] },
    });
    expect(consumer.Properties.Timeout).toBe(900);
  });

  it('hides a message six times the consumer timeout, with a dead-letter queue after 5 receives', () => {
    // Act
    const queue = resources[queueId('QueuesBatchItemsQueue') ?? ''];
    // Assert
    expect(queue?.Properties).toMatchObject({
      VisibilityTimeout: 5400,
      RedrivePolicy: { maxReceiveCount: 5 },
    });
  });

  it('lets the consumer parse and announce: table, uploads/, results/, executions, the webhook queue', () => {
    // Arrange
    const [, consumer] = functionWhere((id) => id.startsWith('QueuesBatchItem'));
    // Act
    const statements = statementsOf(consumer);
    const actions = actionsOf(consumer);
    const sends = statements.filter((s) => [s.Action].flat().includes('sqs:SendMessage'));
    // Assert
    expect(Object.keys(variablesOf(consumer))).toEqual(
      expect.arrayContaining([
        'TABLE_NAME',
        'BUCKET_NAME',
        'STATE_MACHINE_ARN',
        'WEBHOOK_QUEUE_URL',
      ]),
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        's3:PutObject',
        'states:StartExecution',
        'states:DescribeExecution',
      ]),
    );
    // It reads stored results only (a document the result cache has is copied from its result).
    const reads = statements
      .filter((s) => [s.Action].flat().includes('s3:GetObject'))
      .flatMap((s) => [s.Resource].flat());
    expect(reads).toHaveLength(1);
    expect(JSON.stringify(reads[0])).toContain('/results/*');
    expect(sends).toHaveLength(1);
    expect(JSON.stringify(sends[0]?.Resource)).toContain(queueId('QueuesWebhooksQueue'));
  });

  it('is sent to by the batch submitter alone among the API functions, which gets its URL', () => {
    // Arrange
    const batchQueue = queueId('QueuesBatchItemsQueue') ?? '';
    const api = ofType('AWS::Lambda::Function').filter(([id]) => id.startsWith('Api'));
    // Act
    const senders = api.filter(([, fn]) =>
      statementsOf(fn).some(
        (s) =>
          [s.Action].flat().includes('sqs:SendMessage') &&
          JSON.stringify(s.Resource).includes(batchQueue),
      ),
    );
    // Assert
    expect(senders.map(([, fn]) => fn.Properties.Description)).toEqual([
      'API: POST /v1/parse/batch',
    ]);
    const submitter = senders[0]![1];
    expect(variablesOf(submitter).BATCH_QUEUE_URL).toEqual({ Ref: batchQueue });
    expect(actionsOf(submitter).filter((a) => /^(s3|states):/.test(a))).toEqual([]);
    expect(actionsOf(submitter)).toContain('dynamodb:PutItem');
  });

  it('is not touched by the batch reader, which writes no batch, object or message', () => {
    // Act
    const [, reader] = functionWhere((_, fn) =>
      String(fn.Properties.Description).includes('GET /v1/batch/{batch_id}'),
    );
    const actions = actionsOf(reader);
    // Assert
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    expect(actions.filter((a) => /^(s3|states|sqs):/.test(a))).toEqual([]);
    for (const write of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      expect(actions).not.toContain(write);
    }
  });
});

describe('props checks', () => {
  const aStack = () => {
    const stack = new Stack(unbundledApp(), 'Props');
    const storage = new DocumentStorage(stack, 'Storage');
    const stateMachine = new sfn.StateMachine(stack, 'Machine', {
      definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'Pass')),
    });
    return { stack, storage, stateMachine };
  };

  it('refuses a batch concurrency below 2 (the event source minimum)', () => {
    // Arrange
    const { stack, storage, stateMachine } = aStack();
    // Act / Assert
    expect(
      () => new WorkQueues(stack, 'Queues', { storage, stateMachine, batchConcurrency: 1 }),
    ).toThrow('batchConcurrency must be an integer from 2 to 1000; got 1');
  });

  it('refuses an API whose batch submitter has no batch queue to send to', () => {
    // Arrange
    const { stack, storage, stateMachine } = aStack();
    // Act / Assert
    expect(() => new ParseApi(stack, 'Api', { storage, stateMachine })).toThrow(
      'parse-batch.handler.ts sends to the batch queue: pass batchQueue to ParseApi',
    );
  });
});
