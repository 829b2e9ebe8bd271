import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** A Lambda context for invoking handler modules in-process (local server and workflow runner). */
export function lambdaContext(functionName = 'local'): Context {
  const deadline = Date.now() + 15 * 60 * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '2048',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
