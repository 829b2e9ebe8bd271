import { Arn, ArnFormat, type CfnElement, Stack, Token } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct, type IConstruct } from 'constructs';
import { acknowledge } from './acknowledge.js';

/** Where a grant's policy lives: the principal's construct (a function's role), else the grantee. */
const policyHolder = (grantee: iam.IGrantable & IConstruct): IConstruct =>
  grantee.grantPrincipal instanceof Construct ? grantee.grantPrincipal : grantee;

/** The logical id CloudFormation gives a construct's resource, as cdk-nag names it. */
const logicalId = (construct: IConstruct): string => {
  const stack = Stack.of(construct);
  return stack.resolve(stack.getLogicalId(construct.node.defaultChild as CfnElement)) as string;
};

/** Item-level DynamoDB actions by access level (no table administration, no scans). */
const TABLE_ACTIONS = {
  read: [
    'dynamodb:GetItem',
    'dynamodb:Query',
    'dynamodb:BatchGetItem',
    'dynamodb:ConditionCheckItem',
  ],
  readWrite: [
    'dynamodb:GetItem',
    'dynamodb:Query',
    'dynamodb:BatchGetItem',
    'dynamodb:ConditionCheckItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ],
} as const;

/**
 * Lets `grantee` use the items of the service table, and nothing else of DynamoDB. The table is
 * encrypted with an AWS-owned key, so no KMS grant is needed.
 */
export function grantTable(
  grantee: iam.IGrantable,
  table: dynamodb.ITable,
  access: keyof typeof TABLE_ACTIONS,
): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: [...TABLE_ACTIONS[access]], resources: [table.tableArn] }),
  );
}

/**
 * Lets `grantee` read and/or write objects under the given key prefixes of the bucket (each
 * ending in `/`), and nothing else of S3. Object keys are per request, so each grant covers a
 * prefix (`<prefix>*`), never the whole bucket.
 */
export function grantObjects(
  grantee: iam.IGrantable & IConstruct,
  bucket: s3.IBucket,
  prefixes: { read?: readonly string[]; write?: readonly string[]; delete?: readonly string[] },
): void {
  const add = (actions: string[], list: readonly string[] | undefined) => {
    if (!list || list.length === 0) return;
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions,
        resources: list.map((prefix) => bucket.arnForObjects(`${prefix}*`)),
      }),
    );
  };
  const all = [
    ...new Set([...(prefixes.read ?? []), ...(prefixes.write ?? []), ...(prefixes.delete ?? [])]),
  ];
  acknowledge(
    policyHolder(grantee),
    all.map((prefix) => ({
      id: `AwsSolutions-IAM5[Resource::<${logicalId(bucket)}.Arn>/${prefix}*]`,
      reason: `Objects are keyed per request under ${prefix}; the grant is limited to that prefix.`,
    })),
  );
  add(['s3:GetObject'], prefixes.read);
  if (prefixes.read && prefixes.read.length > 0) {
    // Without it S3 answers a read of a missing key with 403 instead of 404.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
    );
  }
  add(['s3:PutObject'], prefixes.write);
  add(['s3:DeleteObject'], prefixes.delete);
}

/**
 * Lets `grantee` start executions of the state machine and, when `follow` is set, read and stop
 * them. Executions are named per request, so the second grant covers this state machine's
 * executions (`execution:<name>:*`) and no other's.
 */
export function grantExecutions(
  grantee: iam.IGrantable & IConstruct,
  stateMachine: sfn.StateMachine,
  follow: boolean,
): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['states:StartExecution'],
      resources: [stateMachine.stateMachineArn],
    }),
  );
  if (!follow) return;
  const executions = Arn.format(
    {
      service: 'states',
      resource: 'execution',
      resourceName: `${stateMachine.stateMachineName}:*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    },
    Stack.of(stateMachine),
  );
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['states:DescribeExecution', 'states:StopExecution'],
      resources: [executions],
    }),
  );
  // cdk-nag names unresolved values as <AWS::Region>, literal ones as they are.
  const stack = Stack.of(stateMachine);
  const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  acknowledge(policyHolder(grantee), [
    {
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:${region}:${account}:execution:<${logicalId(stateMachine)}.Name>:*]`,
      reason:
        'Executions are named after their request; the grant covers the executions of this state machine only.',
    },
  ]);
}
