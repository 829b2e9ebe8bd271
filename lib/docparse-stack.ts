import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { DocumentStorage } from './constructs/document-storage.js';
import { ParseApi } from './constructs/parse-api.js';
import { ParsePipeline } from './constructs/parse-pipeline.js';
import { PlaygroundSite } from './constructs/playground-site.js';
import { WorkQueues } from './constructs/work-queues.js';
import { deployProviders } from './deploy-context.js';

export interface DocparseStackProps extends StackProps {
  /**
   * Service configuration passed to every function's environment (the variables of
   * `functions/config.ts`, e.g. `MAX_UPLOAD_BYTES`, `FAST_CEILING`, and the API keys named by
   * the providers' `api_key_env`). Validated at each function's cold start.
   * @default {}
   */
  readonly serviceEnvironment?: Record<string, string>;
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

  constructor(scope: Construct, id: string, props: DocparseStackProps = {}) {
    // Checked before any construct exists, so that a bad configuration leaves the app untouched.
    const serviceEnvironment = props.serviceEnvironment ?? {};
    const providers = deployProviders(props.providersFile, serviceEnvironment);
    super(scope, id, props);
    const environment = providers
      ? { ...serviceEnvironment, PROVIDERS_JSON: providers.json }
      : serviceEnvironment;
    this.storage = new DocumentStorage(this, 'Storage');
    this.pipeline = new ParsePipeline(this, 'Pipeline', {
      storage: this.storage,
      environment,
      ...(providers ? { providers: providers.config } : {}),
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
    });

    this.playground = new PlaygroundSite(this, 'Playground', {
      api: this.api.api,
      accessLogs: this.storage.accessLogs,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'PlaygroundUrl', {
      value: `https://${this.playground.distribution.distributionDomainName}/`,
      description: 'The playground, with the API under the same origin (/v1/…, /docs)',
    });
    new CfnOutput(this, 'BucketName', { value: this.storage.bucket.bucketName });
    new CfnOutput(this, 'TableName', { value: this.storage.table.tableName });
    new CfnOutput(this, 'StateMachineArn', { value: stateMachine.stateMachineArn });
  }
}
