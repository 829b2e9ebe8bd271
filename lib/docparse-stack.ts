import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { DocumentStorage } from './constructs/document-storage.js';
import { ParseApi } from './constructs/parse-api.js';
import { ParsePipeline } from './constructs/parse-pipeline.js';
import { WorkQueues } from './constructs/work-queues.js';

export interface DocparseStackProps extends StackProps {
  /**
   * Service configuration passed to every function's environment (the variables of
   * `functions/config.ts`, e.g. `MAX_UPLOAD_BYTES`, `PRICE_PRO_USD`, `FAST_CEILING`). Validated at
   * each function's cold start.
   * @default {}
   */
  readonly serviceEnvironment?: Record<string, string>;
}

/**
 * The whole service: storage (bucket and table), the parse pipeline (state machine and stage
 * functions), the REST API built from the route table, and the work queues with event-driven
 * ingestion from `incoming/<tenant>/`.
 */
export class DocparseStack extends Stack {
  readonly storage: DocumentStorage;
  readonly pipeline: ParsePipeline;
  readonly api: ParseApi;
  readonly queues: WorkQueues;

  constructor(scope: Construct, id: string, props: DocparseStackProps = {}) {
    super(scope, id, props);
    const environment = props.serviceEnvironment ?? {};
    this.storage = new DocumentStorage(this, 'Storage');
    this.pipeline = new ParsePipeline(this, 'Pipeline', { storage: this.storage, environment });
    const stateMachine = this.pipeline.stateMachine;
    this.api = new ParseApi(this, 'Api', { storage: this.storage, stateMachine, environment });
    this.queues = new WorkQueues(this, 'Queues', {
      storage: this.storage,
      stateMachine,
      environment,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'BucketName', { value: this.storage.bucket.bucketName });
    new CfnOutput(this, 'TableName', { value: this.storage.table.tableName });
    new CfnOutput(this, 'StateMachineArn', { value: stateMachine.stateMachineArn });
  }
}
