import { Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/api/routes.js';
import { stages } from '../../functions/pipeline/stages.js';
import { DocparseStack } from '../../lib/docparse-stack.js';
import { unbundledApp } from '../support/cdk-app.js';
import { isCdkProvided } from '../support/cdk-functions.js';

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

let template: Template;
let resources: Resources;

beforeAll(() => {
  template = Template.fromStack(new DocparseStack(unbundledApp(), 'ServiceTest'));
  resources = template.toJSON().Resources as Resources;
});

const ofType = (type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** The API path of an AWS::ApiGateway::Resource, rebuilt from its parents. */
function resourcePath(id: string): string {
  const resource = resources[id];
  if (!resource) return '';
  const parent = resource.Properties.ParentId as { Ref?: string; 'Fn::GetAtt'?: unknown };
  const part = resource.Properties.PathPart as string;
  return `${parent.Ref ? resourcePath(parent.Ref) : ''}/${part}`;
}

describe('the API', () => {
  it('has one method per route of the route table, each integrated with a Lambda proxy', () => {
    // Act
    const methods = ofType('AWS::ApiGateway::Method').map(([, m]) => ({
      method: m.Properties.HttpMethod,
      path: resourcePath((m.Properties.ResourceId as { Ref: string }).Ref),
      integration: (m.Properties.Integration as { Type: string }).Type,
    }));
    // Assert
    expect(methods).toHaveLength(routes.length);
    for (const route of routes) {
      expect(methods).toContainEqual({
        method: route.method,
        path: route.path,
        integration: 'AWS_PROXY',
      });
    }
  });

  it('streams the responses of the streaming routes and buffers the others', () => {
    // Act
    const modes = ofType('AWS::ApiGateway::Method').map(([, m]) => ({
      route: `${String(m.Properties.HttpMethod)} ${resourcePath((m.Properties.ResourceId as { Ref: string }).Ref)}`,
      mode:
        (m.Properties.Integration as { ResponseTransferMode?: string }).ResponseTransferMode ??
        'BUFFERED',
    }));
    // Assert
    for (const route of routes) {
      expect(modes).toContainEqual({
        route: `${route.method} ${route.path}`,
        mode: route.streaming ? 'STREAM' : 'BUFFERED',
      });
    }
    expect(routes.some((r) => r.streaming)).toBe(true);
  });

  it('passes multipart bodies as binary and logs and traces the stage', () => {
    // Assert
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      BinaryMediaTypes: ['multipart/form-data'],
    });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
    });
  });
});

describe('the functions', () => {
  // The service's own functions: not the handlers CDK provides for its custom resources.
  const functions = () => ofType('AWS::Lambda::Function').filter(([id]) => !isCdkProvided(id));

  it('run Node.js 22 ESM bundles on x86_64 with tracing, in the AWS runtime mode', () => {
    // Assert
    expect(functions().length).toBeGreaterThanOrEqual(stages.length + 4);
    for (const [, fn] of functions()) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['x86_64'],
        TracingConfig: { Mode: 'Active' },
        Environment: { Variables: { RUNTIME_MODE: 'aws' } },
      });
    }
  });

  it('each log to their own log group with a retention period', () => {
    // Act
    const groups = Object.fromEntries(ofType('AWS::Logs::LogGroup'));
    // Assert
    for (const [, fn] of functions()) {
      const group = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(groups[group]?.Properties.RetentionInDays).toBeGreaterThan(0);
    }
  });
});

describe('the parse pipeline', () => {
  it('is a STANDARD state machine with logging and tracing', () => {
    // Assert
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: Match.objectLike({ Level: 'ALL' }),
    });
  });

  it('substitutes a function for every Task state of the ASL file', () => {
    // Act
    const [, machine] = ofType('AWS::StepFunctions::StateMachine')[0] ?? [];
    const substitutions = machine?.Properties.DefinitionSubstitutions as Record<string, unknown>;
    // Assert: the stage functions, and the table that MarkFailed updates directly.
    expect(Object.keys(substitutions).sort()).toEqual(
      [...stages.map((s) => `${s.state}Arn`), 'TableName'].sort(),
    );
  });

  it('lets the state machine update request records (MarkFailed) and no other item', () => {
    // Arrange
    const [, machine] = ofType('AWS::StepFunctions::StateMachine')[0] ?? [];
    const roleId = (machine?.Properties.RoleArn as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    // Act
    const dynamo = ofType('AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    // Assert
    expect(dynamo).toEqual([
      expect.objectContaining({
        Action: 'dynamodb:UpdateItem',
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['REQ#*'] } },
      }),
    ]);
  });

  it("lets the state machine's role invoke exactly the stage functions", () => {
    // Arrange
    const [, machine] = ofType('AWS::StepFunctions::StateMachine')[0] ?? [];
    const substitutions = machine?.Properties.DefinitionSubstitutions as Record<string, unknown>;
    const functionArns = stages.map((s) => substitutions[`${s.state}Arn`]);
    const roleId = (machine?.Properties.RoleArn as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    // Act
    const invokes = ofType('AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .filter((s) => [s.Action].flat().includes('lambda:InvokeFunction'));
    // Assert
    expect(invokes).toHaveLength(1);
    expect(invokes[0]?.Resource).toEqual(expect.arrayContaining(functionArns));
    expect([invokes[0]?.Resource].flat()).toHaveLength(stages.length);
  });
});

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

describe('the queues', () => {
  it('each have a dead-letter queue, encryption, and consumers reporting partial failures', () => {
    // Act
    const queues = ofType('AWS::SQS::Queue');
    const withDlq = queues.filter(([, q]) => q.Properties.RedrivePolicy !== undefined);
    // Assert: batch items, webhooks and incoming, each with its DLQ.
    expect(withDlq).toHaveLength(3);
    expect(queues).toHaveLength(6);
    for (const [, q] of queues) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('feed the webhook deliverer, which may send to the webhook queue and its DLQ only', () => {
    // Act
    const [deliverer] = ofType('AWS::Lambda::Function').filter(([id]) =>
      id.startsWith('QueuesWebhookDelivery'),
    );
    const [policy] = ofType('AWS::IAM::Policy').filter(([id]) =>
      id.startsWith('QueuesWebhookDeliveryRoleDefaultPolicy'),
    );
    // Assert
    expect(deliverer).toBeDefined();
    const variables = (
      deliverer![1].Properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining(['WEBHOOK_QUEUE_URL', 'WEBHOOK_DLQ_URL', 'TABLE_NAME']),
    );
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: deliverer![0] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const statements = (policy![1].Properties.PolicyDocument as { Statement: Statement[] })
      .Statement;
    // The queues it may send to, however the statements are merged (@aws-cdk/aws-iam:minimizePolicies).
    const sendsTo = statements
      .filter((s) => [s.Action].flat().includes('sqs:SendMessage'))
      .flatMap((s) => [s.Resource].flat())
      .map((r) => (r as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]);
    const queue = (prefix: string) =>
      ofType('AWS::SQS::Queue').find(([id]) => id.startsWith(prefix))?.[0];
    expect(sendsTo.sort()).toEqual(
      [queue('QueuesWebhooksQueue'), queue('QueuesWebhooksDlq')].sort(),
    );
    expect(JSON.stringify(statements)).not.toContain('s3:');
  });

  it('are announced to by Deliver and RecordFailure, and by no other stage', () => {
    // Act
    const withQueue = ofType('AWS::Lambda::Function')
      .filter(([id]) => id.startsWith('Pipeline'))
      .filter(([, fn]) =>
        Object.hasOwn(
          (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
          'WEBHOOK_QUEUE_URL',
        ),
      )
      .map(([id]) => id.replace(/[0-9A-F]{8}$/, ''));
    // Assert
    expect(withQueue.sort()).toEqual(['PipelineDeliver', 'PipelineRecordFailure']);
  });

  it('receive the bucket notifications of objects created under incoming/', () => {
    // Assert
    template.hasResourceProperties('Custom::S3BucketNotifications', {
      NotificationConfiguration: {
        QueueConfigurations: [
          Match.objectLike({
            Events: ['s3:ObjectCreated:*'],
            Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'incoming/' }] } },
          }),
        ],
      },
    });
  });
});

describe('permissions', () => {
  it('grant no "*" action and no service-wide action in any statement', () => {
    // Act
    const actions = ofType('AWS::IAM::Policy')
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .filter((s) => s.Effect === 'Allow')
      .flatMap((s) => [s.Action].flat());
    // Assert
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((a) => a === '*' || a.endsWith(':*'))).toEqual([]);
  });

  it('give the stage functions no way to start executions', () => {
    // Act
    const statements = ofType('AWS::IAM::Policy')
      .filter(([id]) => id.startsWith('PipelineIngest') || id.startsWith('PipelineParsePage'))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    // Assert
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.flatMap((s) => [s.Action].flat())).not.toContain('states:StartExecution');
  });
});

describe('the API functions', () => {
  /** The actions granted to the function serving `route`, from its role's policies. */
  const actionsOf = (route: string): string[] => {
    const [, fn] =
      ofType('AWS::Lambda::Function').find(([, f]) =>
        String(f.Properties.Description).includes(route),
      ) ?? [];
    const roleId = (fn?.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    return (
      ofType('AWS::IAM::Policy')
        .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
        .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
        // What the role may do: the Deny on the webhook secrets' items takes nothing away here.
        .filter((s) => s.Effect === 'Allow')
        .flatMap((s) => [s.Action].flat())
    );
  };
  const ofService = (actions: string[], service: string) =>
    actions.filter((a) => a.startsWith(`${service}:`));

  it('give each handler only what it touches', () => {
    // Act
    const live = actionsOf('GET /v1/live');
    const health = actionsOf('GET /v1/health');
    const getParse = actionsOf('GET /v1/parse/{request_id}');
    const createUpload = actionsOf('POST /v1/uploads');
    const parseUpload = actionsOf('POST /v1/parse/upload');
    // Assert: liveness touches no data at all.
    expect(live.filter((a) => /^(dynamodb|s3|states):/.test(a))).toEqual([]);
    // Reads only (and, for authenticated routes, the key's rate counter), and no executions,
    // except for the upload that starts and awaits parses.
    const reads = [
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
    ];
    expect(ofService(health, 'dynamodb').sort()).toEqual(reads);
    for (const actions of [health, getParse, createUpload]) {
      expect(ofService(actions, 'states')).toEqual([]);
    }
    for (const actions of [getParse, createUpload]) {
      expect(ofService(actions, 'dynamodb').sort()).toEqual(
        [...reads, 'dynamodb:UpdateItem'].sort(),
      );
    }
    expect(ofService(health, 's3')).toEqual([]);
    expect(ofService(getParse, 's3').sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(ofService(createUpload, 's3')).toEqual(['s3:PutObject']);
    expect(ofService(parseUpload, 'states').sort()).toEqual([
      'states:DescribeExecution',
      'states:StartExecution',
      'states:StopExecution',
    ]);
    expect(parseUpload).toContain('dynamodb:PutItem');
  });

  it('let read-only handlers update only the rate counters of API keys', () => {
    // Act
    const [, fn] =
      ofType('AWS::Lambda::Function').find(([, f]) =>
        String(f.Properties.Description).includes('GET /v1/parse/{request_id}'),
      ) ?? [];
    const roleId = (fn?.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const updates = ofType('AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .filter((s) => s.Effect === 'Allow' && [s.Action].flat().includes('dynamodb:UpdateItem'));
    // Assert
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({
      Action: 'dynamodb:UpdateItem',
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['KEY#*'] } },
    });
  });
});

describe('cdk-nag AwsSolutions checks', () => {
  it('report no unacknowledged finding on the stack', () => {
    // Arrange
    const app = unbundledApp();
    new DocparseStack(app, 'NagTest');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act / Assert
    expect(() => app.synth()).not.toThrow();
  });

  it('fail the synth on an unacknowledged finding (the check is live)', () => {
    // Arrange: a role with a wildcard action.
    const app = unbundledApp();
    const stack = new Stack(app, 'Bad');
    new iam.Role(stack, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    }).addToPolicy(new iam.PolicyStatement({ actions: ['s3:*'], resources: ['*'] }));
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act / Assert
    expect(() => app.synth()).toThrow();
  });
});
