import { Duration, Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { OBJECT_PREFIXES } from '../../functions/core/domain/object-keys.js';
import { acknowledge } from './acknowledge.js';
import type { DocumentStorage } from './document-storage.js';
import { grantExecutions, grantObjects, grantTable } from './grants.js';
import { ServiceFunction } from './service-function.js';

/** Deliveries of one message before it goes to the dead-letter queue. */
const MAX_RECEIVE_COUNT = 5;

/** A queue with its dead-letter queue, both encrypted and TLS-only. */
export class QueueWithDlq extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  /** @param visibilityTimeout at least six times the consumer's timeout, as AWS advises. */
  constructor(scope: Construct, id: string, visibilityTimeout: Duration) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'Dlq', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
  }
}

export interface WorkQueuesProps {
  readonly storage: DocumentStorage;
  readonly stateMachine: sfn.StateMachine;
  readonly environment?: Record<string, string>;
  /**
   * The functions that queue webhook events when parses end (the Deliver and RecordFailure
   * stages): they get `WEBHOOK_QUEUE_URL` and may send to the webhook queue.
   */
  readonly webhookAnnouncers?: readonly lambda.Function[];
  /**
   * Documents of batches parsed at once: the batch consumer's `maxConcurrency` (2 to 1000), each
   * invocation one document (batch size 1) that waits for its parse. Bounds the load batches put
   * on the state machine and the providers; `BATCH_CONCURRENCY` is the local runtime's value.
   * @default 10
   */
  readonly batchConcurrency?: number;
  /**
   * Ingestion messages handled at once: the ingestion consumer's `maxConcurrency` (2 to 1000).
   * Each invocation reads up to 10 objects and starts their parses, so a flood of files written
   * under `incoming/` waits in the queue instead of taking the account's concurrency.
   * @default 5
   */
  readonly ingestConcurrency?: number;
}

/** The consumer of the ingestion queue. */
const INGEST_TIMEOUT = Duration.minutes(1);

/**
 * The batch consumer: downloads one document, starts its parse and waits for it, up to Lambda's
 * 15 minutes. A parse still running then is followed by the message's next delivery (after the
 * queue's visibility timeout, six times this: 90 minutes), which finds the item's request and
 * records its end without parsing again.
 */
const BATCH_ITEM_TIMEOUT = Duration.minutes(15);

/**
 * The webhook deliverer: up to 10 attempts at once, each at most 15 s (`WEBHOOK_TIMEOUT_MS`),
 * plus the bookkeeping. The queue's visibility timeout is six times this.
 */
const WEBHOOK_DELIVERY_TIMEOUT = Duration.seconds(30);

/**
 * The service's queues, each with a dead-letter queue: batch items (one message per document of
 * a batch), webhook deliveries, and event-driven ingestion. Objects written under
 * `incoming/<tenant>/` in the bucket are announced by an S3 notification on the ingestion queue,
 * whose consumer starts a parse for that tenant; the result lands under `results/<tenant>/`.
 * Consumers report partial batch failures, so one bad message never fails its neighbours.
 */
export class WorkQueues extends Construct {
  readonly batchItems: QueueWithDlq;
  readonly webhooks: QueueWithDlq;
  readonly incoming: QueueWithDlq;
  readonly ingestFunction: ServiceFunction;
  readonly webhookFunction: ServiceFunction;
  readonly batchItemFunction: ServiceFunction;

  constructor(scope: Construct, id: string, props: WorkQueuesProps) {
    super(scope, id);
    const { bucket, table } = props.storage;
    const batchConcurrency = props.batchConcurrency ?? 10;
    if (!Number.isInteger(batchConcurrency) || batchConcurrency < 2 || batchConcurrency > 1000) {
      throw new Error(
        `batchConcurrency must be an integer from 2 to 1000; got ${batchConcurrency}`,
      );
    }
    const ingestConcurrency = props.ingestConcurrency ?? 5;
    if (!Number.isInteger(ingestConcurrency) || ingestConcurrency < 2 || ingestConcurrency > 1000) {
      throw new Error(
        `ingestConcurrency must be an integer from 2 to 1000; got ${ingestConcurrency}`,
      );
    }
    this.batchItems = new QueueWithDlq(
      this,
      'BatchItems',
      Duration.seconds(BATCH_ITEM_TIMEOUT.toSeconds() * 6),
    );
    this.webhooks = new QueueWithDlq(
      this,
      'Webhooks',
      Duration.seconds(WEBHOOK_DELIVERY_TIMEOUT.toSeconds() * 6),
    );
    this.incoming = new QueueWithDlq(this, 'Incoming', Duration.minutes(6));

    bucket.addEventNotification(
      s3.EventType.OBJECT_CREATED,
      new s3n.SqsDestination(this.incoming.queue),
      { prefix: OBJECT_PREFIXES.incoming },
    );
    // The stack-wide function CDK adds to configure bucket notifications.
    const notifications = Stack.of(this).node.children.find((child) =>
      child.node.id.startsWith('BucketNotificationsHandler'),
    );
    if (notifications) {
      acknowledge(notifications, [
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          reason:
            "CDK's own deployment-time function that configures the bucket's notifications; it runs only during deployments.",
        },
      ]);
    }

    this.ingestFunction = new ServiceFunction(this, 'IngestObject', {
      entry: 'functions/pipeline/incoming-object.handler.ts',
      description: 'Starts a parse for each object written under incoming/<tenant>/',
      timeout: INGEST_TIMEOUT,
      environment: {
        ...props.environment,
        TABLE_NAME: table.tableName,
        BUCKET_NAME: bucket.bucketName,
        STATE_MACHINE_ARN: props.stateMachine.stateMachineArn,
      },
    });
    grantTable(this.ingestFunction, table, 'readWrite');
    grantObjects(this.ingestFunction, bucket, {
      read: [OBJECT_PREFIXES.incoming],
      write: [OBJECT_PREFIXES.uploads],
    });
    grantExecutions(this.ingestFunction, props.stateMachine, false);
    this.ingestFunction.addEventSource(
      new SqsEventSource(this.incoming.queue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        maxConcurrency: ingestConcurrency,
      }),
    );

    const webhookQueueUrl = this.webhooks.queue.queueUrl;
    this.webhookFunction = new ServiceFunction(this, 'WebhookDelivery', {
      entry: 'functions/pipeline/webhook-delivery.handler.ts',
      description: 'Delivers signed webhook events, one attempt per message, and schedules retries',
      timeout: WEBHOOK_DELIVERY_TIMEOUT,
      environment: {
        ...props.environment,
        TABLE_NAME: table.tableName,
        BUCKET_NAME: bucket.bucketName,
        WEBHOOK_QUEUE_URL: webhookQueueUrl,
        WEBHOOK_DLQ_URL: this.webhooks.deadLetterQueue.queueUrl,
      },
    });
    // Secrets and request records (attempts) live in the table; no object is read. It signs
    // deliveries, so it alone among the stack's functions (with GET /v1/webhooks/secret) may
    // read and create the tenants' signing secrets.
    grantTable(this.webhookFunction, table, 'readWrite', { webhookSecrets: true });
    this.webhooks.queue.grantSendMessages(this.webhookFunction);
    this.webhooks.deadLetterQueue.grantSendMessages(this.webhookFunction);
    this.webhookFunction.addEventSource(
      new SqsEventSource(this.webhooks.queue, { batchSize: 10, reportBatchItemFailures: true }),
    );

    this.batchItemFunction = new ServiceFunction(this, 'BatchItem', {
      entry: 'functions/pipeline/batch-item.handler.ts',
      description: 'Parses one document of a batch per message and records how it ended',
      timeout: BATCH_ITEM_TIMEOUT,
      environment: {
        ...props.environment,
        TABLE_NAME: table.tableName,
        BUCKET_NAME: bucket.bucketName,
        STATE_MACHINE_ARN: props.stateMachine.stateMachineArn,
        WEBHOOK_QUEUE_URL: webhookQueueUrl,
      },
    });
    // Batches, items, request records and result cache entries in the table; the downloaded
    // document under uploads/ (the end of a parse is read from its request record); a document
    // the result cache has: its stored result read and copied as the item's own under results/;
    // executions started and awaited; the batch's webhook event queued when its last item ends.
    grantTable(this.batchItemFunction, table, 'readWrite');
    grantObjects(this.batchItemFunction, bucket, {
      read: [OBJECT_PREFIXES.results],
      write: [OBJECT_PREFIXES.uploads, OBJECT_PREFIXES.results],
    });
    grantExecutions(this.batchItemFunction, props.stateMachine, true);
    this.webhooks.queue.grantSendMessages(this.batchItemFunction);
    this.batchItemFunction.addEventSource(
      new SqsEventSource(this.batchItems.queue, {
        batchSize: 1,
        maxConcurrency: batchConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    for (const announcer of props.webhookAnnouncers ?? []) {
      announcer.addEnvironment('WEBHOOK_QUEUE_URL', webhookQueueUrl);
      this.webhooks.queue.grantSendMessages(announcer);
    }
  }
}
