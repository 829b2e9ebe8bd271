import { type Stack, Token, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledges cdk-nag findings on `scope` and everything under it, each with the reason it is
 * acceptable here. `id` is the rule, optionally narrowed to one finding, e.g.
 * `AwsSolutions-IAM5[Resource::*]`.
 */
export function acknowledge(
  scope: IConstruct,
  findings: readonly { id: string; reason: string }[],
): void {
  for (const finding of findings) Validations.of(scope).acknowledge(finding);
}

/**
 * A stack's partition, Region and account as cdk-nag writes them in finding ids: an unresolved
 * value as `<AWS::Partition>`, `<AWS::Region>`, `<AWS::AccountId>`, a literal one as it is (a
 * stack deployed with an explicit environment, and the partition under
 * `@aws-cdk/core:enablePartitionLiterals`).
 */
export function nagEnvironment(stack: Stack): {
  partition: string;
  region: string;
  account: string;
} {
  return {
    partition: Token.isUnresolved(stack.partition) ? '<AWS::Partition>' : stack.partition,
    region: Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region,
    account: Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account,
  };
}

/** Findings every service function shares, with their reasons. */
export const FUNCTION_FINDINGS = [
  {
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
  },
  {
    id: 'AwsSolutions-L1',
    reason:
      'nodejs22.x is the runtime the service is built and tested for; a runtime upgrade is a deliberate, tested change.',
  },
] as const;
