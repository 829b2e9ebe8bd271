// Runs one synthesized Lambda bundle in its own Node.js process, as the Lambda runtime would:
// the module is imported once (the cold start) and each IPC message `{ id, event }` is one
// invocation, answered with `{ id, result }` or `{ id, error: { name, message } }`.
// A streaming handler (`awslambda.streamifyResponse`) is given a response stream as the Node.js
// runtime gives one: `HttpResponseStream.from` writes the JSON prelude and 8 zero bytes before the
// body. The runner splits them again and answers as API Gateway would, `{ statusCode, headers, body }`.
// Usage: fork(this file, [<asset directory>, <function name>]) with the function's environment.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';

const STREAMING = Symbol('streaming');
const DELIMITER = Buffer.alloc(8);
globalThis.awslambda = {
  streamifyResponse: (fn) => Object.assign(fn, { [STREAMING]: true }),
  HttpResponseStream: {
    from(stream, prelude) {
      stream.write(JSON.stringify(prelude));
      stream.write(DELIMITER);
      return stream;
    },
  },
};

const [assetDir, functionName = 'function'] = process.argv.slice(2);
const { handler } = await import(pathToFileURL(join(assetDir, 'index.mjs')).href);

/** Runs a streaming handler to its end and answers what API Gateway would send back. */
async function invokeStreaming(event, context) {
  const stream = new PassThrough();
  const chunks = [];
  stream.on('data', (chunk) => chunks.push(Buffer.from(chunk)));
  const ended = new Promise((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  await handler(event, stream, context);
  if (!stream.writableEnded) stream.end();
  await ended;
  const bytes = Buffer.concat(chunks);
  const at = bytes.indexOf(DELIMITER);
  const prelude = at < 0 ? {} : JSON.parse(bytes.subarray(0, at).toString('utf8'));
  const body = bytes.subarray(at < 0 ? 0 : at + DELIMITER.length).toString('utf8');
  return { statusCode: prelude.statusCode ?? 200, headers: prelude.headers ?? {}, body };
}

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
    .then(() =>
      handler[STREAMING] ? invokeStreaming(event, context()) : handler(event, context()),
    )
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
