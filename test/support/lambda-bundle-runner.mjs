// Runs one synthesized Lambda bundle in its own Node.js process, as the Lambda runtime would:
// the module is imported once (the cold start) and each IPC message `{ id, event }` is one
// invocation, answered with `{ id, result }` or `{ id, error: { name, message } }`.
// Usage: fork(this file, [<asset directory>, <function name>]) with the function's environment.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [assetDir, functionName = 'function'] = process.argv.slice(2);
const { handler } = await import(pathToFileURL(join(assetDir, 'index.mjs')).href);

const context = () => {
  const deadline = Date.now() + 5 * 60 * 1000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '3008',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bundle-runner',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
};

process.on('message', (message) => {
  const { id, event } = message;
  Promise.resolve()
    .then(() => handler(event, context()))
    .then(
      (result) => process.send({ id, result }),
      (error) =>
        process.send({
          id,
          error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) },
        }),
    );
});
process.send({ ready: true });
