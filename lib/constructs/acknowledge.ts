import { Validations } from 'aws-cdk-lib';
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
