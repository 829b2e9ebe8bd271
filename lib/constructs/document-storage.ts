import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledge } from './acknowledge.js';
import { DEFAULT_RETENTION_DAYS } from '../../functions/adapters/aws/dynamodb-items.js';
import { serviceTable } from '../../functions/adapters/aws/service-table.js';
import { EXPIRING_PREFIXES } from '../../functions/core/domain/object-keys.js';

/**
 * The bucket's key prefixes that hold documents or their content, each expiring after the
 * retention: uploaded originals, intermediate page work, results, and objects dropped for
 * event-driven ingestion (parsed at once, so never needed past the retention). Named with the
 * rest of the key layout, in `OBJECT_PREFIXES`.
 */
export { EXPIRING_PREFIXES };

export interface DocumentStorageProps {
  /**
   * Days objects under {@link EXPIRING_PREFIXES} are kept (S3 lifecycle expiration: whole
   * days, counted from each object's creation and rounded up to the next midnight UTC). The
   * functions get the same value as `RETENTION_DAYS`, the TTL of the table's items that hold
   * document content or history (`docparse:retentionDays`).
   * @default 7
   */
  readonly retentionDays?: number;
}

/**
 * The stateful resources: the bucket (uploads/, work/, results/, incoming/, each expiring after
 * the retention), its access-log bucket, and the single service table (its TTL attribute
 * `expiresAt` removes items past their retention), whose key schema comes from `serviceTable()`
 * (the same definition the local embedded DynamoDB uses). All three are retained on stack
 * deletion.
 */
export class DocumentStorage extends Construct {
  readonly bucket: s3.Bucket;
  /** Server access logs of {@link bucket}, kept 90 days. */
  readonly accessLogs: s3.Bucket;
  readonly table: dynamodb.Table;
  /** Days objects and items holding documents are kept ({@link DocumentStorageProps.retentionDays}). */
  readonly retentionDays: number;

  constructor(scope: Construct, id: string, props: DocumentStorageProps = {}) {
    super(scope, id);
    const days = props.retentionDays ?? DEFAULT_RETENTION_DAYS;
    if (!Number.isInteger(days) || days < 1) {
      throw new Error(`retentionDays must be a whole number of days, at least 1; got ${days}`);
    }
    this.retentionDays = days;
    this.accessLogs = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      // Server access log delivery supports SSE-S3 only.
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: Duration.days(90) }],
    });
    acknowledge(this.accessLogs, [
      {
        id: 'AwsSolutions-S1',
        reason: 'This is the access-log bucket; logging it to itself would loop.',
      },
    ]);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      serverAccessLogsBucket: this.accessLogs,
      // Browser pages may send files with the presigned upload form (POST /v1/uploads); the
      // form's signed policy, not the origin, is what authorises the write.
      cors: [
        {
          allowedMethods: [s3.HttpMethods.POST],
          allowedOrigins: ['*'],
          allowedHeaders: ['*'],
          maxAge: 3600,
        },
      ],
      serverAccessLogsPrefix: 'bucket/',
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: false,
      removalPolicy: RemovalPolicy.RETAIN,
      // Rule ids are left to CloudFormation, as for the first two rules: naming them now
      // would rewrite the deployed rules for nothing.
      lifecycleRules: EXPIRING_PREFIXES.map((prefix) => ({
        prefix,
        expiration: Duration.days(days),
      })),
    });
    const def = serviceTable('unused');
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: def.partitionKey.name, type: dynamodb.AttributeType.STRING },
      sortKey: { name: def.sortKey.name, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: def.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
