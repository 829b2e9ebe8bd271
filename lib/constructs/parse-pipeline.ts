import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { OBJECT_PREFIXES } from '../../functions/core/domain/object-keys.js';
import { PARSE_DOCUMENT_ASL, stages } from '../../functions/pipeline/stages.js';
import type { ProvidersFile } from '../../functions/providers/provider-config.js';
import { acknowledge } from './acknowledge.js';
import type { DocumentStorage } from './document-storage.js';
import { grantObjects, grantProviderCalls, grantTable } from './grants.js';
import { PROJECT_ROOT, ServiceFunction } from './service-function.js';

export interface ParsePipelineProps {
  readonly storage: DocumentStorage;
  /** Environment shared by the stage functions (config values such as limits and thresholds). */
  readonly environment?: Record<string, string>;
  /**
   * The provider API keys given as environment variables (`api_key_env`): set on the stages that
   * call providers ({@link PROVIDER_STAGES}) only, which also lose `PROVIDER_KEYS=withheld`.
   * @default {}
   */
  readonly providerKeys?: Record<string, string>;
  /**
   * The provider configuration the functions run with, for the permissions of the stages that
   * call providers ({@link PROVIDER_STAGES}): Bedrock models, Textract and the Secrets Manager
   * secrets holding API keys (`api_key_secret`).
   * @default - none: the bundled configuration, whose offline engines need no permission
   */
  readonly providers?: ProvidersFile;
  /**
   * Reserved concurrency of ParsePage: the pages parsed at once, account-wide, never exceed it,
   * and a flood of other invocations cannot take them away.
   * @default - none: the account's unreserved pool
   */
  readonly parsePageConcurrency?: number;
}

/**
 * The stages that call providers, and which: ParsePage parses each page with its tier's chain
 * (and again one tier up when its confidence is low); Deliver fills `extraction_schema` with
 * the extraction chain. Route reads only the breakers' states, and Verify only the stored page
 * results. The other stages load the engines too, but never build a provider, so never read the
 * providers' secrets (see `loadEngines` in functions/container.ts).
 */
export const PROVIDER_STAGES: ReadonlyMap<string, 'tiers' | 'extraction'> = new Map([
  ['ParsePage', 'tiers'],
  ['Deliver', 'extraction'],
]);

/** Per-stage settings: the page stage does the parsing and may OCR a dense page. */
const STAGE_TIMEOUT: Partial<Record<string, Duration>> = {
  Ingest: Duration.minutes(5),
  Classify: Duration.minutes(5),
  ParsePage: Duration.minutes(5),
  Verify: Duration.minutes(2),
  // Extraction by a remote model may take a minute or two on long documents.
  Deliver: Duration.minutes(5),
};

/**
 * The parse pipeline: one Lambda per Task state of `statemachine/parse-document.asl.json`
 * (the list in `functions/pipeline/stages.ts`), and the STANDARD state machine built from that
 * same file, its `${<State>Arn}` placeholders substituted with the functions' ARNs. Execution
 * history goes to CloudWatch Logs (level ALL) and X-Ray tracing is on.
 */
export class ParsePipeline extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly functions: Readonly<Record<string, ServiceFunction>>;

  constructor(scope: Construct, id: string, props: ParsePipelineProps) {
    super(scope, id);
    const { bucket, table } = props.storage;
    const functions: Record<string, ServiceFunction> = {};
    for (const { state, entry } of stages) {
      const uses = PROVIDER_STAGES.get(state);
      const fn = new ServiceFunction(this, state, {
        entry: join('functions/pipeline', entry),
        description: `Parse pipeline: the ${state} state`,
        parsesDocuments: true,
        timeout: STAGE_TIMEOUT[state] ?? Duration.seconds(30),
        ...(state === 'ParsePage' && props.parsePageConcurrency !== undefined
          ? { reservedConcurrentExecutions: props.parsePageConcurrency }
          : {}),
        environment: {
          ...(uses ? withProviderKeys(props.environment, props.providerKeys) : props.environment),
          TABLE_NAME: table.tableName,
          BUCKET_NAME: bucket.bucketName,
        },
      });
      grantTable(fn, table, 'readWrite');
      grantObjects(fn, bucket, {
        read: [OBJECT_PREFIXES.uploads, OBJECT_PREFIXES.work],
        write: [OBJECT_PREFIXES.work, OBJECT_PREFIXES.results],
      });
      if (props.providers && uses) grantProviderCalls(this, fn, props.providers, uses);
      functions[state] = fn;
    }
    this.functions = functions;

    const logGroup = new logs.LogGroup(this, 'ExecutionLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromString(
        readFileSync(join(PROJECT_ROOT, PARSE_DOCUMENT_ASL), 'utf8'),
      ),
      definitionSubstitutions: {
        ...Object.fromEntries(
          Object.entries(functions).map(([state, fn]) => [`${state}Arn`, fn.functionArn]),
        ),
        // MarkFailed: the request record is updated by the state machine itself.
        TableName: table.tableName,
      },
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
      timeout: Duration.hours(2),
    });
    acknowledge(this.stateMachine, [
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Execution logging (logs:CreateLogDelivery and related) and X-Ray tracing take no resource-level permissions.',
      },
    ]);
    // Exactly the stage functions, nothing else.
    this.stateMachine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: Object.values(functions).map((fn) => fn.functionArn),
      }),
    );
    // MarkFailed (when RecordFailure cannot run): one update of a request record, no other item.
    this.stateMachine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['REQ#*'] } },
      }),
    );
  }
}

/** The environment of a stage that calls providers: the shared one with the providers' keys. */
function withProviderKeys(
  environment: Readonly<Record<string, string>> | undefined,
  keys: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = { ...environment, ...keys };
  delete out.PROVIDER_KEYS;
  return out;
}
