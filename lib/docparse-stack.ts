import { Annotations, CfnOutput, Stack, Token, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ApiWebAcl } from './constructs/api-web-acl.js';
import { DocumentStorage } from './constructs/document-storage.js';
import { ParseApi } from './constructs/parse-api.js';
import { ParsePipeline } from './constructs/parse-pipeline.js';
import { PlaygroundSite } from './constructs/playground-site.js';
import { ServiceAlarms, type WatchedFunction } from './constructs/service-alarms.js';
import { ServiceFunction } from './constructs/service-function.js';
import { WorkQueues } from './constructs/work-queues.js';
import { DEFAULT_RETENTION_DAYS } from '../functions/adapters/aws/dynamodb-items.js';
import {
  CONTEXT_KEYS,
  DEFAULT_GUARDS,
  deployProviders,
  type DeployGuards,
} from './deploy-context.js';

export interface DocparseStackProps extends StackProps {
  /**
   * Service configuration passed to every function's environment (the variables of
   * `functions/config.ts`, e.g. `MAX_UPLOAD_BYTES`, `FAST_CEILING`), validated at each
   * function's cold start. The API keys named by the providers' `api_key_env` go only to the
   * functions that call providers (ParsePage and Deliver); the others get
   * `PROVIDER_KEYS=withheld`. `RETENTION_DAYS` comes from {@link retentionDays}.
   * @default {}
   */
  readonly serviceEnvironment?: Record<string, string>;
  /**
   * Days documents, results and their records are kept: the bucket's lifecycle rules on
   * `uploads/`, `work/`, `results/` and `incoming/`, and every function's `RETENTION_DAYS` (the
   * TTL of request records, page checkpoints, events, batches and result cache entries).
   * @default 7 (`docparse:retentionDays`)
   */
  readonly retentionDays?: number;
  /**
   * Path of a provider configuration file (tiers, provider chains, tier prices), relative to
   * the working directory. It is validated at synth against {@link serviceEnvironment} (every
   * `api_key_env` it names must be set there), passed minified to every function as
   * `PROVIDERS_JSON`, and grants the page stage the AWS permissions of its Bedrock and Textract
   * providers and the reading of the secrets named by `api_key_secret`. `PROVIDERS_JSON` in
   * {@link serviceEnvironment} is treated the same way.
   * @default - none: the functions use the bundled `config/providers.json` (offline engines)
   */
  readonly providersFile?: string;
  /**
   * Cost guards and operations settings (throttles, reserved concurrency, WAF, alarm mail, the
   * account's API Gateway logging role); each one left out keeps its default.
   * @default DEFAULT_GUARDS of lib/deploy-context.ts
   */
  readonly guards?: Partial<DeployGuards>;
}

/**
 * The whole service: storage (bucket and table), the parse pipeline (state machine and stage
 * functions), the REST API built from the route table, and the work queues with event-driven
 * ingestion from `incoming/<tenant>/`. Every function gets the same service environment; the
 * synth fails when a provider configuration is invalid or an environment exceeds Lambda's 4 KB.
 */
export class DocparseStack extends Stack {
  readonly storage: DocumentStorage;
  readonly pipeline: ParsePipeline;
  readonly api: ParseApi;
  /** The playground page as a static site, with the API behind the same distribution. */
  readonly playground: PlaygroundSite;
  readonly queues: WorkQueues;
  /** The alarm topic, the alarms and the dashboard. */
  readonly alarms: ServiceAlarms;
  /** The WAF web ACL on the API stage, with `docparse:waf=true`. */
  readonly webAcl?: ApiWebAcl;

  constructor(scope: Construct, id: string, props: DocparseStackProps = {}) {
    // Checked before any construct exists, so that a bad configuration leaves the app untouched.
    const serviceEnvironment = props.serviceEnvironment ?? {};
    const providers = deployProviders(props.providersFile, serviceEnvironment);
    super(scope, id, props);
    const guards: DeployGuards = { ...DEFAULT_GUARDS, ...props.guards };
    const retentionDays = props.retentionDays ?? DEFAULT_RETENTION_DAYS;
    const given = serviceEnvironment.RETENTION_DAYS;
    if (given !== undefined && Number(given) !== retentionDays) {
      throw new Error(
        `RETENTION_DAYS of ${CONTEXT_KEYS.environment} (${given}) differs from ${CONTEXT_KEYS.retentionDays} (${String(retentionDays)}): the retention is one setting, ${CONTEXT_KEYS.retentionDays}, which sets RETENTION_DAYS and the bucket's lifecycle rules together`,
      );
    }
    const { shared: environment, providerKeys } = splitProviderKeys(
      {
        ...serviceEnvironment,
        ...(providers ? { PROVIDERS_JSON: providers.json } : {}),
        RETENTION_DAYS: String(retentionDays),
      },
      providers?.keyVariables ?? {},
    );
    if (providers && Object.keys(providers.keyVariables).length > 0) {
      Annotations.of(this).addWarningV2(
        'docparse:provider-key-env',
        `${providers.source}: provider${Object.keys(providers.keyVariables).length > 1 ? 's' : ''} ${Object.entries(
          providers.keyVariables,
        )
          .map(([id, name]) => `${id} (${name})`)
          .join(
            ', ',
          )} read their API keys from environment variables (api_key_env), which the template, the Lambda console and anyone allowed lambda:GetFunctionConfiguration can read. They are set on the ParsePage and Deliver functions only; keep the keys in Secrets Manager instead and name each secret with api_key_secret.`,
      );
    }
    this.storage = new DocumentStorage(this, 'Storage', { retentionDays });
    this.pipeline = new ParsePipeline(this, 'Pipeline', {
      storage: this.storage,
      environment,
      providerKeys,
      ...(providers ? { providers: providers.config } : {}),
      ...(guards.parsePageConcurrency === undefined
        ? {}
        : { parsePageConcurrency: guards.parsePageConcurrency }),
    });
    const stateMachine = this.pipeline.stateMachine;
    this.queues = new WorkQueues(this, 'Queues', {
      storage: this.storage,
      stateMachine,
      environment,
      webhookAnnouncers: [
        this.pipeline.functions.Deliver,
        this.pipeline.functions.RecordFailure,
      ].filter((fn) => fn !== undefined),
    });
    // After the queues: the batch submitter sends to the batch queue (no cycle: the queues
    // know nothing of the API).
    this.api = new ParseApi(this, 'Api', {
      storage: this.storage,
      stateMachine,
      environment,
      batchQueue: this.queues.batchItems.queue,
      throttle: {
        rateLimit: guards.apiRateLimit,
        burstLimit: guards.apiBurstLimit,
        parseRateLimit: guards.parseRateLimit,
        parseBurstLimit: guards.parseBurstLimit,
      },
      ...(guards.streamingConcurrency === undefined
        ? {}
        : { streamingConcurrency: guards.streamingConcurrency }),
      cloudWatchRole: guards.apiGatewayCloudWatchRole,
    });

    let distributionAcl: ApiWebAcl | undefined;
    if (guards.waf) {
      this.webAcl = new ApiWebAcl(this, 'ApiWaf', {
        scope: 'REGIONAL',
        rateLimit: guards.wafRateLimit,
      });
      this.webAcl.associate('StageAssociation', this.api.api.deploymentStage.stageArn);
      // A CLOUDFRONT web ACL exists only in us-east-1, so only a stack there can make one.
      if (!Token.isUnresolved(this.region) && this.region === 'us-east-1') {
        distributionAcl = new ApiWebAcl(this, 'DistributionWaf', {
          scope: 'CLOUDFRONT',
          rateLimit: guards.wafRateLimit,
        });
      } else {
        Annotations.of(this).addWarningV2(
          'docparse:waf-distribution',
          'docparse:waf protects the API stage; the CloudFront distribution gets a web ACL only when the stack is deployed to us-east-1 (CloudFront web ACLs live there). Requests through the distribution reach the stage from CloudFront addresses, so the stage rule counts them per edge address.',
        );
      }
    }

    this.playground = new PlaygroundSite(this, 'Playground', {
      api: this.api.api,
      accessLogs: this.storage.accessLogs,
      ...(distributionAcl ? { webAclArn: distributionAcl.webAcl.attrArn } : {}),
    });

    this.alarms = new ServiceAlarms(this, 'Alarms', {
      api: this.api.api,
      stateMachine,
      deadLetterQueues: {
        BatchItems: this.queues.batchItems.deadLetterQueue,
        Webhooks: this.queues.webhooks.deadLetterQueue,
        Incoming: this.queues.incoming.deadLetterQueue,
      },
      functions: watchedFunctions(this, Object.values(this.pipeline.functions)),
      ...(guards.alarmEmail ? { email: guards.alarmEmail } : {}),
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'PlaygroundUrl', {
      value: `https://${this.playground.distribution.distributionDomainName}/`,
      description: 'The playground, with the API under the same origin (/v1/…, /docs)',
    });
    new CfnOutput(this, 'BucketName', { value: this.storage.bucket.bucketName });
    new CfnOutput(this, 'TableName', { value: this.storage.table.tableName });
    new CfnOutput(this, 'StateMachineArn', { value: stateMachine.stateMachineArn });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'SNS topic of the alarms: subscribe the operators (mail, chat, paging)',
    });
    new CfnOutput(this, 'DashboardName', { value: this.alarms.dashboard.dashboardName });
  }
}

/**
 * Every service function of the stack, named by its construct path (`ApiParseUpload`,
 * `PipelineParsePage`, `QueuesBatchItem`): a function added later is watched too. Pipeline
 * stages throw by design for documents that cannot be parsed, so their errors page on a run of
 * five in 5 minutes; any other function's error is a fault.
 */
function watchedFunctions(stack: Stack, stages: readonly ServiceFunction[]): WatchedFunction[] {
  const stageSet = new Set<ServiceFunction>(stages);
  return stack.node
    .findAll()
    .filter((c): c is ServiceFunction => c instanceof ServiceFunction)
    .map((fn) => ({
      name: fn.node.path
        .split('/')
        .slice(1)
        .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
        .join(''),
      fn,
      errorThreshold: stageSet.has(fn) ? 5 : 1,
      reserved:
        (fn.node.defaultChild as { reservedConcurrentExecutions?: number })
          .reservedConcurrentExecutions !== undefined,
    }));
}

/**
 * The service environment without the provider API keys (`keyVariables`, by provider id: the
 * variables named by `api_key_env`), plus `PROVIDER_KEYS=withheld` when there were any, and
 * those keys apart: every function gets the first, only the functions that call providers the
 * keys too (see `PROVIDER_STAGES`).
 */
function splitProviderKeys(
  environment: Readonly<Record<string, string>>,
  keyVariables: Readonly<Record<string, string>>,
): { shared: Record<string, string>; providerKeys: Record<string, string> } {
  const names = new Set(Object.values(keyVariables));
  const shared: Record<string, string> = {};
  const providerKeys: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (names.has(name)) providerKeys[name] = value;
    else shared[name] = value;
  }
  if (names.size > 0) shared.PROVIDER_KEYS = 'withheld';
  return { shared, providerKeys };
}
