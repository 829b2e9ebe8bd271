import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** A Lambda context for invoking handler modules in-process (local server and workflow runner). */
export function lambdaContext(functionName = 'local'): Context {
  const deadline = Date.now() + 15 * 60 * 1000;
  const context = {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '2048',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  // The legacy callback methods the Context type still declares; handlers here never call them.
  const legacyCallbacks = { done: noop, fail: noop, succeed: noop };
  return Object.assign(context, legacyCallbacks);
}

function noop(): void {
  // intentionally empty
}
