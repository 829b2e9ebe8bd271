import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/api/routes.js';
import { stages } from '../../functions/pipeline/stages.js';
import { isParseRoute } from '../../lib/constructs/parse-api.js';
import { CONTEXT_KEYS, DEFAULT_GUARDS, deployContext } from '../../lib/deploy-context.js';
import { DocparseStack } from '../../lib/docparse-stack.js';
import { CDK_JSON_CONTEXT, unbundledApp } from '../support/cdk-app.js';
import { isCdkProvided } from '../support/cdk-functions.js';

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string }
>;

/** The stack as `bin/app.ts` builds it, from `context` (and cdk.json's flags). */
function synth(context: Record<string, unknown> = {}, region?: string): Resources {
  const app = unbundledApp(context);
  const stack = new DocparseStack(app, 'Guards', {
    ...(region ? { env: { account: '111111111111', region } } : {}),
    ...deployContext(app),
  });
  return Template.fromStack(stack).toJSON().Resources as Resources;
}

let defaults: Resources;
let custom: Resources;

beforeAll(() => {
  defaults = synth();
  custom = synth(
    {
      [CONTEXT_KEYS.apiRateLimit]: '200',
      [CONTEXT_KEYS.apiBurstLimit]: 400,
      [CONTEXT_KEYS.parseRateLimit]: '25',
      [CONTEXT_KEYS.parseBurstLimit]: '30',
      [CONTEXT_KEYS.parsePageConcurrency]: '120',
      [CONTEXT_KEYS.streamingConcurrency]: 'none',
      [CONTEXT_KEYS.waf]: 'true',
      [CONTEXT_KEYS.wafRateLimit]: '500',
      [CONTEXT_KEYS.alarmEmail]: 'ops@example.com',
      [CONTEXT_KEYS.apiGatewayCloudWatchRole]: 'true',
    },
    'us-east-1',
  );
}, 120_000);

const ofType = (resources: Resources, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type);

/** The one resource whose logical id is `prefix` and CDK's 8-character hash. */
function byLogicalId(resources: Resources, prefix: string): Resources[string] {
  const found = Object.entries(resources).filter(([id]) =>
    new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id),
  );
  expect(
    found.map(([id]) => id),
    prefix,
  ).toHaveLength(1);
  return found[0]![1];
}

interface MethodSetting {
  ResourcePath: string;
  HttpMethod: string;
  ThrottlingRateLimit?: number;
  ThrottlingBurstLimit?: number;
  LoggingLevel?: string;
}

const methodSettings = (resources: Resources): MethodSetting[] =>
  byLogicalId(resources, 'ApiDeploymentStageprod').Properties.MethodSettings as MethodSetting[];

/** API Gateway's escaped resource path: `/v1/parse` → `/~1v1~1parse`. */
const escaped = (path: string) => `/${path.replaceAll('/', '~1')}`;

describe('API Gateway throttling', () => {
  it('throttles the whole stage by default, before any Lambda runs', () => {
    // Act
    const stage = methodSettings(defaults).find(
      (s) => s.ResourcePath === '/*' && s.HttpMethod === '*',
    );
    // Assert
    expect(stage).toMatchObject({
      ThrottlingRateLimit: DEFAULT_GUARDS.apiRateLimit,
      ThrottlingBurstLimit: DEFAULT_GUARDS.apiBurstLimit,
      LoggingLevel: 'INFO',
    });
  });

  it('throttles each route that parses below the stage, and no other route', () => {
    // Arrange
    const parseRoutes = routes.filter(isParseRoute);
    // Act
    const settings = methodSettings(defaults).filter((s) => s.ResourcePath !== '/*');
    // Assert
    expect(parseRoutes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'POST /v1/compare',
      'POST /v1/parse',
      'POST /v1/parse/batch',
      'POST /v1/parse/estimate',
      'POST /v1/parse/stream',
      'POST /v1/parse/structured',
      'POST /v1/parse/upload',
      'POST /v1/parse/{request_id}/resume',
    ]);
    expect(settings).toHaveLength(parseRoutes.length);
    for (const route of parseRoutes) {
      expect(settings).toContainEqual(
        expect.objectContaining({
          ResourcePath: escaped(route.path),
          HttpMethod: route.method,
          ThrottlingRateLimit: DEFAULT_GUARDS.parseRateLimit,
          ThrottlingBurstLimit: DEFAULT_GUARDS.parseBurstLimit,
          // A method's settings replace the stage's: its logging is repeated.
          LoggingLevel: 'INFO',
        }),
      );
    }
  });

  it('takes its rates from the context keys', () => {
    // Act
    const settings = methodSettings(custom);
    // Assert
    expect(settings.find((s) => s.ResourcePath === '/*')).toMatchObject({
      ThrottlingRateLimit: 200,
      ThrottlingBurstLimit: 400,
    });
    expect(settings.find((s) => s.ResourcePath === escaped('/v1/parse/upload'))).toMatchObject({
      ThrottlingRateLimit: 25,
      ThrottlingBurstLimit: 30,
    });
  });
});

describe('reserved concurrency', () => {
  const reservedOf = (resources: Resources, prefix: string) =>
    byLogicalId(resources, prefix).Properties.ReservedConcurrentExecutions;
  const streamingIds = [
    'ApiParseUpload',
    'ApiParseUrl',
    'ApiParseStream',
    'ApiCompare',
    'ApiParseStructured',
    'ApiResumeParse',
  ];

  it('reserves concurrency for ParsePage and each streaming API function, and no other', () => {
    // Act
    const reserved = ofType(defaults, 'AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined)
      .map(([id]) => id.replace(/[0-9A-F]{8}$/, ''));
    // Assert
    // GET /v1/parse/{request_id} streams only to send a large result, and answers at once.
    expect(
      new Set(routes.filter((r) => r.streaming && r.shortLived !== true).map((r) => r.entry)).size,
    ).toBe(streamingIds.length);
    expect(reserved.sort()).toEqual(['PipelineParsePage', ...streamingIds].sort());
    expect(reservedOf(defaults, 'PipelineParsePage')).toBe(DEFAULT_GUARDS.parsePageConcurrency);
    for (const id of streamingIds) {
      expect(reservedOf(defaults, id)).toBe(DEFAULT_GUARDS.streamingConcurrency);
    }
  });

  it("leaves the streamed GET of a result unreserved, with the buffered routes' timeout", () => {
    // Act
    const getParse = byLogicalId(defaults, 'ApiGetParse');
    // Assert
    expect(getParse.Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(getParse.Properties.Timeout).toBe(29);
  });

  it('follows the context: a number, or none for no reservation', () => {
    // Assert
    expect(reservedOf(custom, 'PipelineParsePage')).toBe(120);
    for (const id of streamingIds) expect(reservedOf(custom, id)).toBeUndefined();
  });
});

describe('alarms', () => {
  const topicRef = (resources: Resources) => ({
    Ref: Object.keys(resources).find((id) => /^AlarmsTopic[0-9A-F]{8}$/.test(id)),
  });
  const serviceFunctions = (resources: Resources) =>
    ofType(resources, 'AWS::Lambda::Function')
      .map(([id]) => id)
      .filter((id) => !isCdkProvided(id));

  it('page through one SNS topic that accepts TLS only and mails nobody by default', () => {
    // Act
    const topic = byLogicalId(defaults, 'AlarmsTopic');
    const policy = byLogicalId(defaults, 'AlarmsTopicPolicy');
    // Assert
    expect(topic.Type).toBe('AWS::SNS::Topic');
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('aws:SecureTransport');
    expect(ofType(defaults, 'AWS::SNS::Subscription')).toEqual([]);
    expect(ofType(custom, 'AWS::SNS::Subscription').map(([, s]) => s.Properties)).toEqual([
      expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com' }),
    ]);
  });

  it.each([
    ['AlarmsDlqBatchItems', 'ApproximateNumberOfMessagesVisible', 'QueuesBatchItemsDlq', 1],
    ['AlarmsDlqWebhooks', 'ApproximateNumberOfMessagesVisible', 'QueuesWebhooksDlq', 1],
    ['AlarmsDlqIncoming', 'ApproximateNumberOfMessagesVisible', 'QueuesIncomingDlq', 1],
    ['AlarmsExecutionsFailed', 'ExecutionsFailed', 'PipelineStateMachine', 5],
    ['AlarmsExecutionsTimedOut', 'ExecutionsTimedOut', 'PipelineStateMachine', 1],
    ['AlarmsExecutionsThrottled', 'ExecutionThrottled', 'PipelineStateMachine', 1],
    ['AlarmsApi5xx', '5XXError', '', 5],
    ['AlarmsLambdaThrottles', 'Throttles', '', 1],
  ])('%s alarms on %s (of %s) at %d in 5 minutes', (id, metric, subject, threshold) => {
    // Act
    const alarm = byLogicalId(defaults, id);
    // Assert
    expect(alarm.Type).toBe('AWS::CloudWatch::Alarm');
    expect(alarm.Properties).toMatchObject({
      MetricName: metric,
      Threshold: threshold,
      Period: 300,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [topicRef(defaults)],
      OKActions: [topicRef(defaults)],
    });
    expect(JSON.stringify(alarm.Properties.Dimensions ?? [])).toContain(subject);
  });

  it('watch the errors of every service function, stages paging on a run of five', () => {
    // Act
    const functions = serviceFunctions(defaults);
    // Assert
    expect(functions.length).toBeGreaterThanOrEqual(stages.length + 10);
    for (const fnId of functions) {
      const name = fnId.replace(/[0-9A-F]{8}$/, '');
      const alarm = byLogicalId(defaults, `AlarmsErrors${name}`);
      expect(alarm.Properties).toMatchObject({
        MetricName: 'Errors',
        Namespace: 'AWS/Lambda',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
        Threshold: name.startsWith('Pipeline') ? 5 : 1,
        AlarmActions: [topicRef(defaults)],
      });
    }
  });

  it('watch the throttles of each function with reserved concurrency', () => {
    // Act
    const reserved = ofType(defaults, 'AWS::Lambda::Function').filter(
      ([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined,
    );
    const throttleAlarms = Object.keys(defaults).filter((id) => id.startsWith('AlarmsThrottles'));
    // Assert
    expect(throttleAlarms).toHaveLength(reserved.length);
    for (const [fnId] of reserved) {
      const alarm = byLogicalId(defaults, `AlarmsThrottles${fnId.replace(/[0-9A-F]{8}$/, '')}`);
      expect(alarm.Properties).toMatchObject({
        MetricName: 'Throttles',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
        Threshold: 1,
      });
    }
  });

  it('are shown, with their states, on a dashboard', () => {
    // Act
    const dashboard = byLogicalId(defaults, 'AlarmsDashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    // Assert
    expect(dashboard.Type).toBe('AWS::CloudWatch::Dashboard');
    for (const widget of ['Alarms', 'API requests', 'Parse executions', 'Dead-letter queues']) {
      expect(body).toContain(widget);
    }
    expect(body).toContain(
      Object.keys(defaults).find((id) => id.startsWith('AlarmsExecutionsFailed')),
    );
  });
});

describe('WAF', () => {
  it('is not created by default', () => {
    // Assert
    expect(ofType(defaults, 'AWS::WAFv2::WebACL')).toEqual([]);
  });

  it('puts a per-address rate rule answering 429 on the stage, and on the distribution in us-east-1', () => {
    // Act
    const regional = byLogicalId(custom, 'ApiWafWebAcl');
    const edge = byLogicalId(custom, 'DistributionWafWebAcl');
    const association = byLogicalId(custom, 'ApiWafStageAssociation');
    const distribution = ofType(custom, 'AWS::CloudFront::Distribution')[0]![1];
    // Assert
    for (const [acl, scope] of [
      [regional, 'REGIONAL'],
      [edge, 'CLOUDFRONT'],
    ] as const) {
      const rules = acl.Properties.Rules as {
        Name: string;
        Action: { Block: { CustomResponse: { ResponseCode: number } } };
        Statement: unknown;
      }[];
      expect(acl.Properties).toMatchObject({ Scope: scope, DefaultAction: { Allow: {} } });
      expect(rules).toHaveLength(1);
      expect(rules[0]?.Name).toBe('RatePerAddress');
      expect(rules[0]?.Action.Block.CustomResponse.ResponseCode).toBe(429);
      expect(rules[0]?.Statement).toEqual({
        RateBasedStatement: { Limit: 500, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
      });
    }
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain('/stages/');
    expect(JSON.stringify(association.Properties.WebACLArn)).toContain('ApiWafWebAcl');
    expect(
      JSON.stringify(
        (distribution.Properties.DistributionConfig as { WebACLId: unknown }).WebACLId,
      ),
    ).toContain('DistributionWafWebAcl');
  });
});

describe('the API Gateway CloudWatch Logs role (account-wide)', () => {
  it('is left alone by default', () => {
    // Assert
    expect(ofType(defaults, 'AWS::ApiGateway::Account')).toEqual([]);
  });

  it('is set, and kept when the stack is deleted, when the context asks for it', () => {
    // Act
    const [account] = ofType(custom, 'AWS::ApiGateway::Account');
    const role = Object.entries(custom).find(([id]) => id.startsWith('ApiCloudWatchRole'));
    // Assert
    expect(account).toBeDefined();
    expect(role?.[1].DeletionPolicy).toBe('Retain');
  });
});

describe('deploy context', () => {
  it.each([
    [CONTEXT_KEYS.apiRateLimit, '0', /docparse:apiRateLimit must be a positive integer/],
    [CONTEXT_KEYS.parsePageConcurrency, 'lots', /reserved concurrency\) or none/],
    [CONTEXT_KEYS.waf, 'yes', /docparse:waf must be true or false/],
    [CONTEXT_KEYS.wafRateLimit, '5', /at least 10/],
    [CONTEXT_KEYS.alarmEmail, 'ops', /must be a mail address/],
    [CONTEXT_KEYS.parseBurstLimit, '5', /docparse:parseBurstLimit \(5\) must be at least/],
    [CONTEXT_KEYS.apiRateLimit, '5', /must be at most docparse:apiRateLimit/],
    [CONTEXT_KEYS.apiBurstLimit, '10', /docparse:apiBurstLimit \(10\) must be at least/],
  ])('rejects %s=%s, naming the key', (key, value, message) => {
    // Arrange
    const app = unbundledApp({ [key]: value });
    // Act / Assert
    expect(() => deployContext(app)).toThrow(message);
  });

  it('applies the defaults when no key is set', () => {
    // Act
    const { guards } = deployContext(unbundledApp());
    // Assert
    expect(guards).toEqual(DEFAULT_GUARDS);
  });
});

describe('cdk.json', () => {
  it('sets every feature flag aws-cdk-lib recommends, at the recommended value', () => {
    // Arrange
    const recommended = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '../../node_modules/aws-cdk-lib/recommended-feature-flags.json'),
        'utf8',
      ),
    ) as Record<string, unknown>;
    // Assert
    expect(CDK_JSON_CONTEXT).toEqual(expect.objectContaining(recommended));
  });

  it('delivers server access logs by bucket policy, without the legacy ACL', () => {
    // Act
    const logs = Object.entries(defaults).find(([id]) => id.startsWith('StorageAccessLogs'))!;
    const policy = ofType(defaults, 'AWS::S3::BucketPolicy').find(
      ([, p]) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: logs[0] }),
    );
    // Assert
    expect(logs[1].Properties.AccessControl).toBeUndefined();
    expect(logs[1].DeletionPolicy).toBe('Retain');
    expect(JSON.stringify(policy?.[1].Properties.PolicyDocument)).toContain(
      'logging.s3.amazonaws.com',
    );
  });
});

describe('cdk-nag with every guard on', () => {
  it('reports no unacknowledged finding', () => {
    // Arrange
    const app = unbundledApp({
      [CONTEXT_KEYS.waf]: true,
      [CONTEXT_KEYS.alarmEmail]: 'ops@example.com',
      [CONTEXT_KEYS.apiGatewayCloudWatchRole]: true,
    });
    new DocparseStack(app, 'GuardsNag', {
      env: { account: '111111111111', region: 'us-east-1' },
      ...deployContext(app),
    });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act / Assert
    expect(() => app.synth()).not.toThrow();
  }, 120_000);
});
