import { Annotations, Arn, ArnFormat, type CfnElement, Stack, Token } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct, type IConstruct } from 'constructs';
import { WEBHOOK_SECRET_PK_PREFIX } from '../../functions/adapters/aws/dynamodb-items.js';
import { keySecretOf, type ProvidersFile } from '../../functions/providers/provider-config.js';
import { acknowledge, nagEnvironment } from './acknowledge.js';

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
 *
 * The webhook signing secrets (partitions `WHSEC#<tenant>`, see `WEBHOOK_SECRET_PK_PREFIX`) are
 * denied unless `options.webhookSecrets` is set, for the functions that sign deliveries or show
 * the secret: an explicit Deny on any request naming such a partition key
 * (`dynamodb:LeadingKeys`), which no Allow can lift. Writes are denied too, since a failed
 * conditional write can return the item it met (`ReturnValuesOnConditionCheckFailure`).
 */
export function grantTable(
  grantee: iam.IGrantable,
  table: dynamodb.ITable,
  access: keyof typeof TABLE_ACTIONS,
  options: { webhookSecrets?: boolean } = {},
): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: [...TABLE_ACTIONS[access]], resources: [table.tableArn] }),
  );
  if (options.webhookSecrets === true) return;
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      effect: iam.Effect.DENY,
      actions: [...TABLE_ACTIONS.readWrite],
      resources: [table.tableArn],
      conditions: {
        'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [`${WEBHOOK_SECRET_PK_PREFIX}*`] },
      },
    }),
  );
}

/**
 * Lets `grantee` update the per-key request counters (`KEY#<sha256>` / `RATE#<minute>`) that
 * every authenticated request increments, and no other item: `dynamodb:UpdateItem` on the
 * table, only for partition keys starting with `KEY#` (`dynamodb:LeadingKeys`). For functions
 * that otherwise only read the table.
 */
export function grantRateCounters(grantee: iam.IGrantable, table: dynamodb.ITable): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['KEY#*'] } },
    }),
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
  if (follow) grantExecutionControl(grantee, stateMachine);
}

/**
 * Lets `grantee` read and stop the executions of the state machine (not start them): the cancel
 * endpoint. Executions are named per request, so the grant covers this state machine's
 * executions (`execution:<name>:*`) and no other's.
 */
export function grantExecutionControl(
  grantee: iam.IGrantable & IConstruct,
  stateMachine: sfn.StateMachine,
): void {
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
  const { partition, region, account } = nagEnvironment(Stack.of(stateMachine));
  acknowledge(policyHolder(grantee), [
    {
      id: `AwsSolutions-IAM5[Resource::arn:${partition}:states:${region}:${account}:execution:<${logicalId(stateMachine)}.Name>:*]`,
      reason:
        'Executions are named after their request; the grant covers the executions of this state machine only.',
    },
  ]);
}

/**
 * The geography prefixes of Bedrock's cross-Region (system-defined) inference profile ids, as in
 * `us.anthropic.claude-sonnet-4-20250514-v1:0` or `global.anthropic.claude-sonnet-4-5-…`.
 */
const INFERENCE_PROFILE_GEOGRAPHIES = ['us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'ca', 'global'];
const INFERENCE_PROFILE_ID = new RegExp(
  `^(?:${INFERENCE_PROFILE_GEOGRAPHIES.join('|')})\\.(.+\\..+)$`,
);
const BEDROCK_ARN = /^arn:([^:]+):bedrock:([^:]*):([^:]*):([a-z-]+)\/(.+)$/;

/** What `bedrock:InvokeModel` must allow for one configured model, and the wildcards among it. */
interface BedrockResources {
  readonly arns: string[];
  /** ARNs with a `*` Region, each with the cdk-nag finding id it raises. */
  readonly anyRegion: { readonly findingId: string; readonly profile: string }[];
  /** Set when the model is an ARN whose underlying models cannot be derived. */
  readonly warning?: string;
}

/**
 * The resources a Converse call on `model` needs: a model id names a foundation model in the
 * provider's Region; a cross-Region inference profile id (`us.`, `eu.`, … `global.`) names the
 * profile in this account and the foundation model in whichever Region serves the call, so in
 * any Region; an ARN names itself (and, for a system inference profile, its foundation models).
 */
function bedrockResources(stack: Stack, model: string, region: string): BedrockResources {
  // cdk-nag names unresolved values as <AWS::Partition>, literal ones as they are.
  const nagPartition = Token.isUnresolved(stack.partition) ? '<AWS::Partition>' : stack.partition;
  const anyRegionModel = (partition: string, nagPrefix: string, id: string, profile: string) => ({
    arn: `arn:${partition}:bedrock:*::foundation-model/${id}`,
    finding: {
      findingId: `AwsSolutions-IAM5[Resource::arn:${nagPrefix}:bedrock:*::foundation-model/${id}]`,
      profile,
    },
  });
  const arn = BEDROCK_ARN.exec(model);
  if (arn) {
    const [, partition = '', , , kind, name = ''] = arn;
    const profile = kind === 'inference-profile' ? INFERENCE_PROFILE_ID.exec(name) : null;
    if (profile?.[1]) {
      const any = anyRegionModel(partition, partition, profile[1], name);
      return { arns: [model, any.arn], anyRegion: [any.finding] };
    }
    return {
      arns: [model],
      anyRegion: [],
      ...(kind === 'application-inference-profile'
        ? {
            warning: `${model} is an application inference profile: allow bedrock:InvokeModel on the foundation models it routes to as well, the deployment grants the profile only`,
          }
        : {}),
    };
  }
  const profile = INFERENCE_PROFILE_ID.exec(model);
  if (profile?.[1]) {
    const any = anyRegionModel(stack.partition, nagPartition, profile[1], model);
    return {
      arns: [
        stack.formatArn({
          service: 'bedrock',
          region,
          resource: 'inference-profile',
          resourceName: model,
        }),
        any.arn,
      ],
      anyRegion: [any.finding],
    };
  }
  return {
    arns: [
      stack.formatArn({
        service: 'bedrock',
        region,
        account: '',
        resource: 'foundation-model',
        resourceName: model,
      }),
    ],
    anyRegion: [],
  };
}

/** A secret ARN, its name (and random suffix, when complete) in the capture. */
const SECRET_ARN = /^arn:[^:]+:secretsmanager:[^:]+:[^:]*:secret:(.+)$/;
/** The suffix Secrets Manager appends to a secret's name in its ARN: `-` and 6 random characters. */
const SECRET_SUFFIX = /-[A-Za-z0-9]{6}$/;

/**
 * The resource `secretsmanager:GetSecretValue` must allow for `secretId` (a provider's
 * `api_key_secret`). A secret's ARN is `arn:<partition>:secretsmanager:<region>:<account>:secret:`
 * followed by its name, `-` and six random characters, and IAM checks that complete ARN even
 * when the secret is read by name: a name becomes its ARN in the stack's partition, Region and
 * account with `-??????` (exactly six characters, so no other secret matches) for the suffix; an
 * ARN is kept as given, with `-??????` added only when it lacks the suffix (a partial ARN; a name
 * ending in `-` and six letters or digits reads as complete, as it does for Secrets Manager).
 *
 * cdk-nag's AwsSolutions-IAM5 reports `*` only, so `?` raises no finding to acknowledge.
 */
function secretResource(stack: Stack, secretId: string): string {
  const arn = SECRET_ARN.exec(secretId);
  if (arn) return SECRET_SUFFIX.test(arn[1] ?? '') ? secretId : `${secretId}-??????`;
  return stack.formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${secretId}-??????`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/**
 * Lets `fn` call the providers of the configuration that it uses (`uses`: those of the tiers, or
 * those of the extraction chain), with its own role:
 * `bedrock:InvokeModel` (which the Converse API requires) on the models of its
 * `bedrock-converse` providers, in each provider's `region` (default: the stack's),
 * `textract:AnalyzeDocument` for its `textract` providers, and `secretsmanager:GetSecretValue`
 * on exactly the secrets named by the `api_key_secret` of its HTTP providers (see
 * {@link secretResource}). Not granted: `kms:Decrypt` on a customer managed KMS key encrypting
 * such a secret (the default `aws/secretsmanager` key needs none); add it to the role for those.
 * Providers with `api_key_env` or no key need no grant; nothing is created when no tier uses a
 * provider that needs one.
 *
 * The statements go in a policy of their own, created in `scope` beside the function (not under
 * it, where the function's acknowledgements would apply), so that each wildcard carries its own
 * reason: Textract takes no resource-level permissions (resource `*`), and a cross-Region
 * inference profile may use its model in any Region of its geography.
 */
export function grantProviderCalls(
  scope: Construct,
  fn: lambda.IFunction,
  providers: ProvidersFile,
  uses: 'tiers' | 'extraction' = 'tiers',
): void {
  const role = fn.role;
  if (!role) throw new Error(`${fn.node.path} has no role to grant provider calls to`);
  const stack = Stack.of(fn);
  const used = new Set(
    uses === 'tiers'
      ? Object.values(providers.tiers).flatMap((tier) => tier.providers)
      : providers.extraction.providers,
  );
  // By resolved value: two providers of one model make one resource.
  const models = new Map<string, string>();
  const anyRegion = new Map<string, string>();
  const secrets = new Map<string, string>();
  let textract = false;
  for (const [id, entry] of Object.entries(providers.providers)) {
    if (!used.has(id)) continue;
    const secret = keySecretOf(entry);
    if (secret) {
      const arn = secretResource(stack, secret.secretId);
      secrets.set(JSON.stringify(stack.resolve(arn)), arn);
    }
    if (entry.kind === 'textract') textract = true;
    if (entry.kind !== 'bedrock-converse') continue;
    const resources = bedrockResources(stack, entry.model, entry.region ?? stack.region);
    for (const arn of resources.arns) models.set(JSON.stringify(stack.resolve(arn)), arn);
    for (const { findingId, profile } of resources.anyRegion) anyRegion.set(findingId, profile);
    if (resources.warning) {
      Annotations.of(fn).addWarningV2('docparse:bedrock-application-profile', resources.warning);
    }
  }
  if (models.size === 0 && !textract && secrets.size === 0) return;

  const statements: iam.PolicyStatement[] = [];
  if (models.size > 0) {
    statements.push(
      new iam.PolicyStatement({
        actions: ['bedrock:InvokeModel'],
        resources: [...models.values()],
      }),
    );
  }
  if (textract) {
    statements.push(
      new iam.PolicyStatement({ actions: ['textract:AnalyzeDocument'], resources: ['*'] }),
    );
  }
  if (secrets.size > 0) {
    statements.push(
      new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [...secrets.values()],
      }),
    );
  }
  const policy = new iam.Policy(scope, `${fn.node.id}ProviderCalls`, { statements });
  policy.attachToRole(role);
  // The function must not run before it may call its providers.
  fn.node.addDependency(policy);
  acknowledge(policy, [
    ...[...anyRegion].map(([findingId, profile]) => ({
      id: findingId,
      reason: `The cross-Region inference profile ${profile} sends each call to the model in one of the Regions of its geography, chosen per call, and Bedrock checks the foundation-model ARN of that Region: the Region cannot be named in advance.`,
    })),
    ...(textract
      ? [
          {
            id: 'AwsSolutions-IAM5[Resource::*]',
            reason:
              'Textract (the textract provider of the configuration) supports no resource-level permissions: textract:AnalyzeDocument can only be granted on "*".',
          },
        ]
      : []),
  ]);
}
