import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DocumentStorage } from '../../lib/constructs/document-storage.js';
import { WorkQueues } from '../../lib/constructs/work-queues.js';

/** The work queues alone, synthesized without bundling (no esbuild run). */
function queuesStack(props: { ingestConcurrency?: number } = {}): Stack {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Ingestion');
  const storage = new DocumentStorage(stack, 'Storage');
  const stateMachine = new sfn.StateMachine(stack, 'Machine', {
    definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'Pass')),
  });
  new WorkQueues(stack, 'Queues', { storage, stateMachine, ...props });
  return stack;
}

/** The logical id of the ingestion queue (not its dead-letter queue). */
function incomingQueueId(template: Template): string {
  const ids = Object.keys(template.findResources('AWS::SQS::Queue')).filter(
    (id) => id.startsWith('QueuesIncoming') && !id.includes('Dlq'),
  );
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
}

describe('the ingestion queue consumer', () => {
  let template: Template;

  beforeAll(() => {
    template = Template.fromStack(queuesStack());
  });

  it('handles at most 5 ingestion messages at once by default (event source maxConcurrency)', () => {
    // Arrange
    const queue = incomingQueueId(template);
    // Assert
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
  });

  it('takes another limit from ingestConcurrency', () => {
    // Act
    const lifted = Template.fromStack(queuesStack({ ingestConcurrency: 50 }));
    // Assert
    lifted.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [incomingQueueId(lifted), 'Arn'] },
      ScalingConfig: { MaximumConcurrency: 50 },
    });
  });

  it('throws for a limit Lambda does not accept', () => {
    // Act
    const building = () => queuesStack({ ingestConcurrency: 1 });
    // Assert
    expect(building).toThrow('ingestConcurrency must be an integer from 2 to 1000; got 1');
  });

  it('lets the consumer read the table, where the tenants and their plans are found', () => {
    // Assert
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: Match.arrayWith(['dynamodb:Query']) }),
        ]),
      },
      Roles: [{ Ref: Match.stringLikeRegexp('^QueuesIngestObject.*Role') }],
    });
  });
});
