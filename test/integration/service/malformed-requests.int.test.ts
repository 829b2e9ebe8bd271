import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { basename, join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/local-service.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * Requests an attacker builds by hand, sent over raw sockets to the real local service: broken
 * multipart bodies on every multipart route and on the upload-slot receiver, and bodies that
 * stall. Each must get a 4xx with a detail (or a closed connection, bounded in time), and the
 * service must answer GET /v1/live afterwards. The server runs with short timeouts so that the
 * stalling cases end in seconds.
 */

const DEV = corpusPath('dev');
const KEY = 'key-malformed-0001';
const IDLE_MS = 1000;
const REQUEST_MS = 4000;
const HEADERS_MS = 2000;
/** Far above any bound under test, far below "hangs". */
const ANSWER_WITHIN_MS = 15_000;

const MULTIPART_ROUTES = [
  '/v1/parse/upload',
  '/v1/parse/estimate',
  '/v1/parse/structured',
  '/v1/parse/stream',
  '/v1/compare',
];

/** The truncated body of the report: the file part never reaches its closing boundary. */
const TRUNCATED =
  '--B\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 partial';
const ODD_NAMES = ['__proto__[]', 'constructor[]', 'toString[]', 'hasOwnProperty[]'];

let running: TestService;
let port: number;

beforeAll(async () => {
  running = await startTestService('malformed', {
    API_KEYS: `${KEY}=attacker:pro`,
    // Many requests in a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
    REQUEST_IDLE_TIMEOUT_MS: String(IDLE_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    HEADERS_TIMEOUT_MS: String(HEADERS_MS),
  });
  port = running.server.port;
});

afterAll(async () => {
  await running.close();
});

const field = (name: string, value: string): string =>
  `--B\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePart = (content = '%PDF-1.4 x'): string =>
  `--B\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n${content}\r\n`;
const CLOSE = '--B--\r\n';

interface RawAnswer {
  status: number | undefined;
  /** The response body, de-chunked. */
  body: string;
  elapsedMs: number;
}

/**
 * Opens a socket, runs `send` on it (the request, written as the case needs), and reads until
 * the server closes the connection; rejects after {@link ANSWER_WITHIN_MS} without a close.
 * Requests that should be answered send `Connection: close`; those that stall do not, so the
 * close is the server's doing.
 */
function exchange(send: (socket: Socket) => void | Promise<void>): Promise<RawAnswer> {
  return new Promise((resolvePromise, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was not closed within ${ANSWER_WITHIN_MS} ms`));
    }, ANSWER_WITHIN_MS);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const headers = end === -1 ? '' : text.slice(0, end);
      const raw = end === -1 ? '' : text.slice(end + 4);
      resolvePromise({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]) || undefined,
        body: /\r\ntransfer-encoding: chunked/i.test(headers) ? dechunk(raw) : raw,
        elapsedMs: Date.now() - started,
      });
    });
    socket.on('error', () => {
      // 'close' follows.
    });
    socket.on('connect', () => {
      Promise.resolve(send(socket)).catch(() => {
        // The server may close while the case is still writing.
      });
    });
  });
}

/** The body of a chunked response (sizes in hex, each chunk followed by CRLF). */
function dechunk(raw: string): string {
  let out = '';
  let rest = raw;
  for (;;) {
    const line = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, line), 16);
    if (line === -1 || !size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

const head = (path: string, contentLength: number, extra = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${KEY}\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: ${contentLength}\r\n${extra}\r\n`;

/** Sends `body` whole, with a matching Content-Length, and `Connection: close`. */
function post(path: string, body: string): Promise<RawAnswer> {
  return exchange((socket) => {
    socket.write(head(path, Buffer.byteLength(body), 'Connection: close\r\n') + body);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const detailOf = (answer: RawAnswer): string =>
  (JSON.parse(answer.body) as { detail: string }).detail;

async function expectLive(): Promise<void> {
  const res = await fetch(`${running.url}/v1/live`, { signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
}

interface Slot {
  url: string;
  fields: Record<string, string>;
}

/** A new upload slot: its path on this server and the signed fields to send before the file. */
async function slot(): Promise<{ path: string; fields: string }> {
  const res = await fetch(`${running.url}/v1/uploads`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ filename: 'a.pdf' }),
  });
  expect(res.status).toBe(201);
  const created = (await res.json()) as Slot;
  return {
    path: new URL(created.url).pathname,
    fields: Object.entries(created.fields)
      .map(([name, value]) => field(name, value))
      .join(''),
  };
}

/** Each target: where to post, and the fields it needs before the file part. */
const TARGETS: [string, () => Promise<{ path: string; fields: string }>][] = [
  ...MULTIPART_ROUTES.map(
    (path) =>
      [path, () => Promise.resolve({ path, fields: '' })] as [
        string,
        () => Promise<{ path: string; fields: string }>,
      ],
  ),
  ['the upload-slot receiver POST /v1/uploads/{id}', slot],
];

describe.each(TARGETS)('malformed multipart bodies on %s', (_, target) => {
  it('answers a body that ends without its closing boundary with 400 naming it', async () => {
    // Arrange
    const { path, fields } = await target();
    // Act
    const answer = await post(path, fields + TRUNCATED);
    // Assert
    expect(answer.status).toBe(400);
    expect(detailOf(answer)).toMatch(/ends before its closing boundary/);
    await expectLive();
  });

  it.each(ODD_NAMES)('survives a field named %s', async (name) => {
    // Arrange
    const { path, fields } = await target();
    // Act
    const answer = await post(path, fields + field(name, 'x') + field(name, 'y') + CLOSE);
    // Assert
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(detailOf(answer)).not.toBe('');
    await expectLive();
  });

  it('answers three file parts with 400 asking for exactly one', async () => {
    // Arrange
    const { path, fields } = await target();
    const file = filePart('%PDF-1.4 ' + 'x'.repeat(200_000));
    // Act
    const answer = await post(path, fields + file + file + file + CLOSE);
    // Assert
    expect(answer.status).toBe(400);
    expect(detailOf(answer)).toMatch(/more than one file part: send exactly one file/);
    await expectLive();
  });

  it('answers a part without Content-Disposition with 400 naming it', async () => {
    // Arrange
    const { path, fields } = await target();
    const anonymous = '--B\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 x\r\n';
    // Act
    const answer = await post(path, fields + anonymous + filePart() + CLOSE);
    // Assert
    expect(answer.status).toBe(400);
    expect(detailOf(answer)).toMatch(/has no Content-Disposition header/);
    await expectLive();
  });
});

describe('keep-alive connections', () => {
  it('answers a malformed request after a good one on the same connection with 400', async () => {
    // Act: a GET answered on a kept-alive connection, then bytes that are not HTTP.
    const raw = await new Promise<string>((resolvePromise) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('"status":"live"') && !text.includes('NOT HTTP')) {
          text += '\n--- NOT HTTP sent ---\n';
          socket.write('NOT HTTP AT ALL\r\n\r\n');
        }
      });
      socket.on('close', () => {
        resolvePromise(text);
      });
      socket.on('error', () => {
        // 'close' follows.
      });
      socket.write('GET /v1/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
    // Assert: the live answer, then a 400 with a detail, not a bare close.
    const [first, second] = raw.split('--- NOT HTTP sent ---');
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    expect(second).toMatch(/HTTP\/1\.1 400 Bad Request/);
    expect(second).toMatch(/"detail":"malformed HTTP request/);
    await expectLive();
  });
});

describe('requests that stall', () => {
  it.each(['/v1/parse/upload', 'slot'])(
    'answers a body that stops midway on %s with 408 and closes the connection',
    async (where) => {
      // Arrange
      const { path, fields } = where === 'slot' ? await slot() : { path: where, fields: '' };
      const body = fields + filePart('%PDF-1.4 ' + 'x'.repeat(10_000)) + CLOSE;
      // Act
      const answer = await exchange((socket) => {
        socket.write(head(path, Buffer.byteLength(body)) + body.slice(0, body.length / 2));
      });
      // Assert
      expect(answer.status).toBe(408);
      expect(detailOf(answer)).toMatch(/sent no byte for 1 s/);
      await expectLive();
    },
  );

  it('answers a Content-Length larger than the body sent with 408', async () => {
    // Arrange
    const body = filePart() + CLOSE;
    // Act
    const answer = await exchange((socket) => {
      socket.write(head('/v1/parse/upload', Buffer.byteLength(body) + 100) + body);
    });
    // Assert
    expect(answer.status).toBe(408);
    await expectLive();
  });

  it('ends a body sent one byte at a time within the request timeout', async () => {
    // Arrange: a byte every 200 ms never trips the idle timeout, only the whole-request one.
    const body = filePart('%PDF-1.4 ' + 'x'.repeat(1000)) + CLOSE;
    // Act
    const answer = await exchange(async (socket) => {
      socket.write(head('/v1/parse/upload', Buffer.byteLength(body)));
      for (const byte of body) {
        if (socket.destroyed) return;
        socket.write(byte);
        await sleep(200);
      }
    });
    // Assert
    expect(answer.status).toBe(408);
    expect(detailOf(answer)).toMatch(/not received in time/);
    expect(answer.elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);
    await expectLive();
  });

  it('ends headers sent one byte at a time within the headers timeout', async () => {
    // Arrange
    const request = head('/v1/parse/upload', 10, 'X-Padding: ' + 'a'.repeat(200) + '\r\n');
    // Act
    const answer = await exchange(async (socket) => {
      for (const byte of request) {
        if (socket.destroyed) return;
        socket.write(byte);
        await sleep(100);
      }
    });
    // Assert
    expect(answer.status).toBe(408);
    await expectLive();
  });

  it('still streams a whole SSE parse that lasts longer than the timeouts', async () => {
    // Arrange
    const document = join(DEV, 'files/docling-ocr_test.pdf');
    const form = new FormData();
    form.append('operation_mode', 'ocr');
    form.append('file', new Blob([readFileSync(document)]), basename(document));
    // Act
    const res = await fetch(`${running.url}/v1/parse/stream`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, accept: 'text/event-stream' },
      body: form,
    });
    const started = Date.now();
    const events: string[] = [];
    const parser = createParser({
      onEvent: (message) => events.push((JSON.parse(message.data) as { event: string }).event),
    });
    const decoder = new TextDecoder();
    if (!res.body) throw new Error('no body');
    for await (const chunk of res.body) parser.feed(decoder.decode(chunk, { stream: true }));
    console.info(`SSE parse streamed ${events.length} events in ${Date.now() - started} ms`);
    // Assert
    expect(res.status).toBe(200);
    expect(events.at(-1)).toBe('result.final');
    await expectLive();
  });

  it('still answers a synchronous parse that stays silent longer than the timeouts', async () => {
    // Arrange
    const document = join(DEV, 'files/docling-ocr_test.pdf');
    const form = new FormData();
    form.append('operation_mode', 'ocr');
    form.append('file', new Blob([readFileSync(document)]), basename(document));
    const started = Date.now();
    // Act
    const res = await fetch(`${running.url}/v1/parse/upload`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
      body: form,
    });
    const body = (await res.json()) as { pages?: unknown[] };
    console.info(`synchronous OCR parse answered in ${Date.now() - started} ms`);
    // Assert
    expect(res.status).toBe(200);
    expect(body.pages?.length).toBeGreaterThan(0);
    await expectLive();
  });
});
