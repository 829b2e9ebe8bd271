import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { InProcessHttpHandler } from '../../../../functions/adapters/local/in-process-http-handler.js';
import { resetStorageCalls, storageCalls } from '../../../../functions/adapters/storage-calls.js';

/** The SDK reads a body given as bytes without a stream. */
function text(body: unknown): string {
  expect(body).toBeInstanceOf(Uint8Array);
  return Buffer.from(body as Uint8Array).toString('utf8');
}

const request = {
  method: 'POST',
  protocol: 'http:',
  hostname: '127.0.0.1',
  port: 8000,
  path: '/',
  query: { a: 'b' },
  headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'X.Get' },
  body: '{"Key":1}',
};

describe('InProcessHttpHandler', () => {
  it('gives the listener the method, url, lower-cased headers and body, and returns its answer', async () => {
    // Arrange
    let seen: { method?: string; url?: string; headers?: unknown; body?: string } = {};
    const handler = new InProcessHttpHandler((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, headers: req.headers, body };
        res.statusCode = 400;
        res.setHeader('Content-Type', 'application/json');
        res.end('{"message":"no"}');
      });
    });
    // Act
    const { response } = await handler.handle(request);
    // Assert
    expect(seen).toEqual({
      method: 'POST',
      url: '/?a=b',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'X.Get' },
      body: '{"Key":1}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers).toEqual({ 'content-type': 'application/json' });
    expect(text(response.body)).toBe('{"message":"no"}');
  });

  it('rejects when the listener throws', async () => {
    // Arrange
    const handler = new InProcessHttpHandler(() => {
      throw new Error('listener broke');
    });
    // Act / Assert
    await expect(handler.handle(request)).rejects.toThrow('listener broke');
  });

  it('counts each call by its operation, for the benches', async () => {
    // Arrange
    const handler = new InProcessHttpHandler((_req: IncomingMessage, res: ServerResponse) => {
      res.end('{}');
    });
    const putItem = {
      ...structuredClone(request),
      headers: { 'X-Amz-Target': 'DynamoDB_20120810.PutItem' },
    };
    resetStorageCalls();
    // Act
    await handler.handle(putItem);
    await handler.handle(putItem);
    // Assert
    expect(storageCalls()).toEqual(new Map([['DynamoDB PutItem', 2]]));
  });

  it('stops waiting on close for a request the listener never answers', async () => {
    // Arrange: a listener that loses its request (an engine that threw outside any caller).
    const handler = new InProcessHttpHandler(() => undefined);
    const lost = handler.handle(request);
    // Act
    const began = Date.now();
    const answered = await handler.close(50);
    // Assert
    expect(answered).toBe(false);
    expect(Date.now() - began).toBeLessThan(1_000);
    await expect(handler.handle(request)).rejects.toThrow(/stopping/);
    void lost;
  });

  it('says on close that every request was answered when they were', async () => {
    // Arrange
    const handler = new InProcessHttpHandler((_req: IncomingMessage, res: ServerResponse) => {
      setTimeout(() => res.end('{}'), 20);
    });
    const answer = handler.handle(request);
    // Act
    const answered = await handler.close(5_000);
    // Assert
    expect(answered).toBe(true);
    await expect(answer).resolves.toMatchObject({ response: { statusCode: 200 } });
  });
});
