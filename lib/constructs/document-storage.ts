import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledge } from './acknowledge.js';
import { serviceTable } from '../../functions/adapters/aws/service-table.js';

export interface DocumentStorageProps {
  /**
   * Days after which uploads and intermediate page work expire.
   * @default 7
   */
  readonly workExpiryDays?: number;
}

/**
 * The stateful resources: the bucket (uploads/, work/, results/, incoming/), its access-log
 * bucket, and the single service table, whose key schema comes from `serviceTable()` (the same
 * definition the local embedded DynamoDB uses). All three are retained on stack deletion.
 */
export class DocumentStorage extends Construct {
  readonly bucket: s3.Bucket;
  /** Server access logs of {@link bucket}, kept 90 days. */
  readonly accessLogs: s3.Bucket;
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: DocumentStorageProps = {}) {
    super(scope, id);
    const days = props.workExpiryDays ?? 7;
    if (!Number.isInteger(days) || days < 1)
      throw new Error('workExpiryDays must be a positive integer');
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
      lifecycleRules: [
        { prefix: 'uploads/', expiration: Duration.days(days) },
        { prefix: 'work/', expiration: Duration.days(days) },
      ],
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
