import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { logger } from '../../../functions/observability/logger.js';
import { httpHandler } from '../../../functions/api/http-handler.js';
import { sqsConsumer } from '../../../functions/pipeline/sqs-consumer.js';
import { stageHandler } from '../../../functions/pipeline/stage-handler.js';
import { fakeDeps, lambdaContext } from '../../support/builders.js';

type Line = Record<string, unknown>;

/** The JSON lines the shared logger writes while the test runs. */
let lines: Line[];

beforeEach(() => {
  lines = [];
  const capture = (chunk: string | Uint8Array): boolean => {
    for (const text of String(chunk).split('\n')) {
      if (text.trim().startsWith('{')) lines.push(JSON.parse(text) as Line);
    }
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  logger.setLogLevel('DEBUG');
});

afterEach(() => {
  vi.restoreAllMocks();
  logger.setLogLevel('INFO');
});

const Input = z.object({ requestId: z.string().min(1), pageNumber: z.number().optional() });

const context = (): Context => ({ ...lambdaContext('ParsePage'), awsRequestId: 'lambda-req-1' });

describe('stage functions', () => {
  it('log their start and end at debug, with the parse and Lambda request ids', async () => {
    // Arrange
    const deps = await fakeDeps();
    const handler = stageHandler(
      () => Promise.resolve(deps),
      'ParsePage',
      Input,
      () => Promise.resolve({ ok: true }),
    );
    // Act
    await handler({ requestId: 'req_42', pageNumber: 3 }, context());
    // Assert
    const stageLines = lines.filter((l) => l.stage === 'ParsePage');
    expect(stageLines.map((l) => [l.level, l.message])).toEqual([
      ['DEBUG', 'stage started'],
      ['DEBUG', 'stage ended'],
    ]);
    for (const line of stageLines) {
      expect(line).toMatchObject({
        request_id: 'req_42',
        page: 3,
        function_request_id: 'lambda-req-1',
        function_name: 'ParsePage',
        cold_start: expect.any(Boolean) as boolean,
      });
    }
    expect(stageLines[1]?.durationMs).toEqual(expect.any(Number));
  });

  it('log a failure at warn with the error name, and leave no request id behind', async () => {
    // Arrange
    const deps = await fakeDeps();
    const handler = stageHandler(
      () => Promise.resolve(deps),
      'Verify',
      Input,
      () => Promise.reject(Object.assign(new Error('busy'), { name: 'ProviderUnavailableError' })),
    );
    // Act
    await expect(handler({ requestId: 'req_7' }, context())).rejects.toThrow('busy');
    logger.info('between invocations');
    // Assert
    expect(lines.find((l) => l.message === 'stage failed')).toMatchObject({
      level: 'WARN',
      stage: 'Verify',
      request_id: 'req_7',
      error: { name: 'ProviderUnavailableError', message: 'busy' },
    });
    const after = lines.find((l) => l.message === 'between invocations');
    expect(after).toBeDefined();
    expect(after).not.toHaveProperty('request_id');
  });
});

describe('API handlers', () => {
  it('log with the Lambda context and the request id of the path', async () => {
    // Arrange
    const deps = await fakeDeps();
    const handler = httpHandler(
      () => Promise.resolve(deps),
      { auth: false, params: z.object({ request_id: z.string() }) },
      () => {
        logger.info('looked up');
        return Promise.resolve({ statusCode: 200, body: {} });
      },
    );
    const event = {
      httpMethod: 'GET',
      path: '/v1/parse/req_9',
      headers: {},
      pathParameters: { request_id: 'req_9' },
      queryStringParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { stage: 'prod' },
    } as unknown as APIGatewayProxyEvent;
    // Act
    const reply = await handler(event, {
      ...lambdaContext('GetParse'),
      awsRequestId: 'lambda-req-2',
    });
    // Assert
    expect(reply.statusCode).toBe(200);
    expect(lines.find((l) => l.message === 'looked up')).toMatchObject({
      request_id: 'req_9',
      function_request_id: 'lambda-req-2',
      function_name: 'GetParse',
    });
  });
});

describe('queue consumers', () => {
  it('log a failed message with the Lambda context', async () => {
    // Arrange
    const handler = sqsConsumer(
      () => Promise.resolve({}),
      () => Promise.reject(new Error('down')),
    );
    const record = {
      messageId: 'm-1',
      body: '{}',
      attributes: { ApproximateReceiveCount: '1' },
    };
    // Act
    const response = await handler({ Records: [record] } as never, {
      ...lambdaContext('BatchItem'),
      awsRequestId: 'lambda-req-3',
    });
    // Assert
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    expect(lines.find((l) => l.messageId === 'm-1')).toMatchObject({
      level: 'ERROR',
      function_request_id: 'lambda-req-3',
      function_name: 'BatchItem',
    });
  });
});
