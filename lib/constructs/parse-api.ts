import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { endpointList, type HandlerAccess } from '../../functions/api/endpoints.js';
import { routes, type Route } from '../../functions/api/routes.js';
import { DEFAULT_GUARDS } from '../deploy-context.js';
import { acknowledge } from './acknowledge.js';
import type { DocumentStorage } from './document-storage.js';
import {
  grantExecutionControl,
  grantExecutions,
  grantObjects,
  grantRateCounters,
  grantTable,
} from './grants.js';
import { ServiceFunction } from './service-function.js';

export interface ParseApiProps {
  readonly storage: DocumentStorage;
  readonly stateMachine: sfn.StateMachine;
  /** Environment shared by the API functions (config values such as limits and thresholds). */
  readonly environment?: Record<string, string>;
  /** @default the endpoints of `functions/api/endpoints.ts` */
  readonly routes?: readonly Route[];
  /**
   * The batch queue (`WorkQueues.batchItems`), which the handlers with `batchQueue` access send
   * to (they get `BATCH_QUEUE_URL`).
   * @default - none: a route whose handler needs it fails the synth
   */
  readonly batchQueue?: sqs.IQueue;
  /**
   * API Gateway throttling, applied before any Lambda runs: the stage's steady rate and burst
   * (all routes together), and each parse route's own ({@link isParseRoute}).
   * @default the rates of `DEFAULT_GUARDS` (lib/deploy-context.ts)
   */
  readonly throttle?: ApiThrottle;
  /**
   * Reserved concurrency of each streaming route's function (they may hold a Lambda 15 minutes).
   * @default - none: they share the account's unreserved pool
   */
  readonly streamingConcurrency?: number;
  /**
   * Sets API Gateway's account-wide CloudWatch Logs role (`AWS::ApiGateway::Account`), which the
   * stage's logs need once per account and Region. The role is kept when the stack is deleted,
   * as other APIs of the account may log through it.
   * @default false: the account's role is set outside this stack
   */
  readonly cloudWatchRole?: boolean;
}

/** Requests per second API Gateway lets through, as steady rates and bursts. */
export interface ApiThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
  /** Of each parse route, below the stage's. */
  readonly parseRateLimit: number;
  readonly parseBurstLimit: number;
}

export type { HandlerAccess };

/**
 * The grants of each API handler module, by module file name: the `access` of its endpoint
 * records (`functions/api/endpoints.ts`, where each one says why). Each one is the least its
 * handler needs: authentication reads the key items; the presigned upload form is signed with
 * the function's own credentials, so its role must be able to write where the form writes.
 */
export const HANDLER_ACCESS: Readonly<Record<string, HandlerAccess>> = Object.fromEntries(
  endpointList.map((endpoint) => [endpoint.entry, endpoint.access]),
);

/**
 * Routes whose handler parses or starts parsing (executions started or awaited, the engines run
 * in the function, batch items queued): the costly ones, throttled below the rest of the stage.
 */
export function isParseRoute(route: Route): boolean {
  const { access } = route;
  return (
    access.executions === 'start' ||
    access.executions === 'follow' ||
    access.engines === true ||
    access.batchQueue !== undefined
  );
}

/** The longest a streaming response may last on API Gateway (REST response streaming). */
const STREAMING_TIMEOUT = Duration.minutes(15);

/**
 * The REST API, built from the route table the local server also serves: one resource per path,
 * one method per route, one Lambda per handler module (routes sharing a module share it).
 * Streaming routes (SSE, the synchronous upload) use response streaming and may run 15 minutes;
 * the others are buffered (29 seconds). Multipart bodies arrive base64-encoded
 * (`binaryMediaTypes`), so uploaded files keep their bytes.
 */
export class ParseApi extends Construct {
  readonly api: apigateway.RestApi;
  /** The function of each handler module, by module file name. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;

  constructor(scope: Construct, id: string, props: ParseApiProps) {
    super(scope, id);
    const { bucket, table } = props.storage;
    const throttle = props.throttle ?? DEFAULT_THROTTLE;
    const routeTable = props.routes ?? routes;
    // Method settings replace the stage's for their method: each repeats its logging settings.
    const logging = {
      metricsEnabled: true,
      loggingLevel: apigateway.MethodLoggingLevel.INFO,
      dataTraceEnabled: false,
    };
    const methodOptions = Object.fromEntries(
      routeTable.filter(isParseRoute).map((route) => [
        `${route.path}/${route.method}`,
        {
          ...logging,
          throttlingRateLimit: throttle.parseRateLimit,
          throttlingBurstLimit: throttle.parseBurstLimit,
        },
      ]),
    );
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new apigateway.RestApi(this, 'Api', {
      restApiName: 'docparse',
      description: 'Document parsing API (spec/SPEC.md §4)',
      binaryMediaTypes: ['multipart/form-data'],
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      cloudWatchRole: props.cloudWatchRole ?? false,
      ...(props.cloudWatchRole ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN } : {}),
      deployOptions: {
        stageName: 'prod',
        tracingEnabled: true,
        ...logging,
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
        methodOptions,
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields(),
      },
    });

    const functions = new Map<string, ServiceFunction>();
    const functionFor = (route: Route): ServiceFunction => {
      const existing = functions.get(route.entry);
      if (existing) return existing;
      const name = route.entry.replace(/\.handler\.ts$/, '');
      const { access } = route;
      const fn = new ServiceFunction(this, functionId(name), {
        entry: join('functions/api', route.entry),
        description: `API: ${routes
          .filter((r) => r.entry === route.entry)
          .map((r) => `${r.method} ${r.path}`)
          .join(', ')}`,
        timeout: route.streaming && !route.shortLived ? STREAMING_TIMEOUT : Duration.seconds(29),
        ...(access.engines ? { parsesDocuments: true } : {}),
        ...(access.packages ? { packages: access.packages } : {}),
        ...(route.streaming && !route.shortLived && props.streamingConcurrency !== undefined
          ? { reservedConcurrentExecutions: props.streamingConcurrency }
          : {}),
        environment: {
          ...props.environment,
          TABLE_NAME: table.tableName,
          BUCKET_NAME: bucket.bucketName,
          ...(access.executions ? { STATE_MACHINE_ARN: props.stateMachine.stateMachineArn } : {}),
        },
      });
      if (access.table) {
        grantTable(fn, table, access.table, { webhookSecrets: access.webhookSecrets === true });
      }
      // Authenticated routes count each request against the key's rate limit.
      if (access.table === 'read' && route.auth) {
        grantRateCounters(fn, table);
      }
      if (access.objects) grantObjects(fn, bucket, access.objects);
      if (access.executions === 'stop') {
        grantExecutionControl(fn, props.stateMachine);
      } else if (access.executions) {
        grantExecutions(fn, props.stateMachine, access.executions === 'follow');
      }
      if (access.batchQueue) {
        if (!props.batchQueue) {
          throw new Error(`${route.entry} sends to the batch queue: pass batchQueue to ParseApi`);
        }
        fn.addEnvironment('BATCH_QUEUE_URL', props.batchQueue.queueUrl);
        props.batchQueue.grantSendMessages(fn);
      }
      functions.set(route.entry, fn);
      return fn;
    };

    for (const route of routeTable) {
      const resource = this.api.root.resourceForPath(route.path);
      resource.addMethod(
        route.method,
        new apigateway.LambdaIntegration(functionFor(route), {
          responseTransferMode: route.streaming
            ? apigateway.ResponseTransferMode.STREAM
            : apigateway.ResponseTransferMode.BUFFERED,
          ...(route.streaming ? { timeout: STREAMING_TIMEOUT } : {}),
        }),
      );
    }
    this.functions = functions;

    const apiKeys =
      'Callers authenticate with X-API-Key (spec §5), checked by each handler against the hashed keys in the service table, where per-key rate limits and plan quotas also live.';
    acknowledge(this.api, [
      { id: 'AwsSolutions-APIG4', reason: apiKeys },
      { id: 'AwsSolutions-COG4', reason: apiKeys },
      {
        id: 'AwsSolutions-APIG2',
        reason:
          "Handlers validate requests with the core's zod schemas and answer the spec's 422 body; a gateway validator would answer in another shape.",
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'A WAF web ACL is a per-deployment choice (cost, rules): -c docparse:waf=true attaches one with a per-address rate rule; the stage is throttled either way.',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          "The account's API Gateway logging role; AWS's managed policy is the documented way to let API Gateway write execution logs.",
      },
    ]);
  }
}

/** The throttling of `DEFAULT_GUARDS`. */
const DEFAULT_THROTTLE: ApiThrottle = {
  rateLimit: DEFAULT_GUARDS.apiRateLimit,
  burstLimit: DEFAULT_GUARDS.apiBurstLimit,
  parseRateLimit: DEFAULT_GUARDS.parseRateLimit,
  parseBurstLimit: DEFAULT_GUARDS.parseBurstLimit,
};

/** `parse-upload` → `ParseUpload`. */
function functionId(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
