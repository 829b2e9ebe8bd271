import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';

/** The context of `cdk.json`: the feature flags `cdk synth` and `cdk deploy` apply. */
export const CDK_JSON_CONTEXT =
  (
    JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'cdk.json'), 'utf8')) as {
      context?: Record<string, unknown>;
    }
  ).context ?? {};

/**
 * An app as the CDK CLI makes it from `cdk.json` (its feature flags), with `context` added and
 * without bundling (no esbuild run): the tests assert on the template a deployment gets.
 */
export const unbundledApp = (context: Record<string, unknown> = {}): App =>
  new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context } });
