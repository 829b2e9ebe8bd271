import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';

const PDF = corpusPath('dev/files/pypdf-minimal-document.pdf');
const ALPHA = 'key-alpha-0001';
const BETA = 'key-beta-0002';
const MAX_UPLOAD = 2 * 1024 * 1024;

interface UploadSlot {
  upload_id: string;
  url: string;
  fields: Record<string, string>;
  max_bytes: number;
  expires_at: string;
}

let running: TestService;
let server: LocalServer;

beforeAll(async () => {
  running = await startTestService('uploads', {
    API_KEYS: `${ALPHA}=alpha:pro,${BETA}=beta:free`,
    // Many requests in a minute: the plans' rate limits are tested in limits.int.test.ts.
    PLAN_LIMITS:
      '{"free":{"requests_per_minute":null,"pages_per_day":null},"pro":{"requests_per_minute":null}}',
    MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
  });
  server = running.server;
});

afterAll(async () => {
  await running.close();
});

async function createUpload(key = ALPHA, body: unknown = { filename: 'minimal.pdf' }) {
  const res = await fetch(`${server.url}/v1/uploads`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as UploadSlot };
}

/** The browser form upload: every field first, the file last as the part `file`. */
async function sendFile(slot: Pick<UploadSlot, 'url' | 'fields'>, bytes: Uint8Array) {
  const form = new FormData();
  for (const [name, value] of Object.entries(slot.fields)) form.append(name, value);
  form.append('file', new Blob([Uint8Array.from(bytes)]), 'document.pdf');
  const res = await fetch(slot.url, { method: 'POST', body: form });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

async function parseByReference(
  fields: Record<string, string>,
  options: { key?: string; file?: Uint8Array } = {},
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (options.file) form.append('file', new Blob([Uint8Array.from(options.file)]), 'doc.pdf');
  const res = await fetch(`${server.url}/v1/parse/upload`, {
    method: 'POST',
    headers: { 'x-api-key': options.key ?? ALPHA },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('local service: large uploads through an upload slot', () => {
  it('creates a slot, takes the file at its url and parses it by reference', async () => {
    // Arrange
    const bytes = readFileSync(PDF);
    // Act
    const created = await createUpload();
    const sent = await sendFile(created.body, bytes);
    const parsed = await parseByReference({ upload_id: created.body.upload_id });
    // Assert
    expect(created.status).toBe(201);
    expect(created.body.upload_id).toMatch(/^upl_[A-Za-z0-9]{24}$/);
    expect(created.body.url).toBe(`${server.url}/v1/uploads/${created.body.upload_id}`);
    expect(created.body.max_bytes).toBe(MAX_UPLOAD);
    expect(Date.parse(created.body.expires_at) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(sent).toEqual({ status: 204, body: null });
    expect(parsed.status, JSON.stringify(parsed.body).slice(0, 300)).toBe(200);
    const response = ParseResponse.parse(parsed.body);
    expect(response.document).toMatchObject({
      filename: 'minimal.pdf',
      format: 'pdf',
      size_bytes: bytes.byteLength,
    });
    expect(response.pages.length).toBeGreaterThan(0);
    expect(
      response.pages
        .map((p) => p.content_markdown)
        .join('\n')
        .trim(),
    ).not.toBe('');
  });

  it('refuses a file above the maximum with 413 while reading it, and keeps serving', async () => {
    // Arrange
    const created = await createUpload();
    const bytes = new Uint8Array(MAX_UPLOAD + 1);
    bytes.set(new TextEncoder().encode('%PDF-1.7\n'));
    // Act
    const sent = await sendFile(created.body, bytes);
    const parsed = await parseByReference({ upload_id: created.body.upload_id });
    // Assert
    expect(sent.status).toBe(413);
    expect(sent.body?.detail).toBe(
      `the file exceeds the maximum upload size of ${MAX_UPLOAD} bytes`,
    );
    expect(parsed.status).toBe(404);
    expect((await fetch(`${server.url}/v1/live`)).status).toBe(200);
  });

  it('refuses a tampered form with 403 and a detail', async () => {
    // Arrange
    const created = await createUpload();
    const fields = { ...created.body.fields, key: 'results/alpha/req_x.json' };
    // Act
    const sent = await sendFile({ url: created.body.url, fields }, readFileSync(PDF));
    // Assert
    expect(sent.status).toBe(403);
    expect(sent.body?.detail).toMatch(/the "key" field does not match the signed policy/);
  });

  it("answers 404 for another tenant's upload, exactly like an unknown or unsent one", async () => {
    // Arrange
    const created = await createUpload();
    await sendFile(created.body, readFileSync(PDF));
    const unsent = await createUpload(BETA);
    // Act
    const foreign = await parseByReference({ upload_id: created.body.upload_id }, { key: BETA });
    const never = await parseByReference({ upload_id: unsent.body.upload_id }, { key: BETA });
    // Assert
    expect(foreign.status).toBe(404);
    expect(never.status).toBe(404);
    const notFound = (id: string) =>
      `upload ${id} not found: create one with POST /v1/uploads and send the file to its url before parsing`;
    expect(foreign.body.detail).toBe(notFound(created.body.upload_id));
    expect(never.body.detail).toBe(notFound(unsent.body.upload_id));
  });

  it('fails with 400 when both a file and an upload_id are sent', async () => {
    // Arrange
    const created = await createUpload();
    await sendFile(created.body, readFileSync(PDF));
    // Act
    const res = await parseByReference(
      { upload_id: created.body.upload_id },
      { file: readFileSync(PDF) },
    );
    // Assert
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/either a "file" part or an "upload_id" field, not both/);
  });

  it('fails with 422 for an invalid create body and 401 without a key', async () => {
    // Act
    const invalid = await createUpload(ALPHA, { filename: 7 });
    const anonymous = await fetch(`${server.url}/v1/uploads`, { method: 'POST' });
    // Assert
    expect(invalid.status).toBe(422);
    expect(anonymous.status).toBe(401);
  });
});

/** Multipart framing the server allows above MAX_UPLOAD_BYTES (local-server.ts). */
const FRAMING = 1024 * 1024;

/**
 * Opens a raw connection that sends the head of `POST /v1/parse/upload` declaring `length`
 * bytes, then `sent` bytes of body; resolves with what the server answers (or '' on close).
 */
function holdUpload(key: string | null, length: number, sent: number) {
  const { port } = new URL(server.url);
  const socket = connect(Number(port), '127.0.0.1');
  let answer = '';
  const answered = new Promise<string>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n\r\n')) resolve(answer);
    });
    socket.on('close', () => {
      resolve(answer);
    });
    socket.on('error', () => {
      resolve(answer);
    });
  });
  socket.write(
    `POST /v1/parse/upload HTTP/1.1\r\nHost: 127.0.0.1\r\n${key ? `X-API-Key: ${key}\r\n` : ''}` +
      `Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${length}\r\n\r\n`,
  );
  if (sent > 0) socket.write(Buffer.alloc(sent, 0x61));
  return { socket, answered };
}

describe('local service: bodies held before they are parsed', () => {
  it('answers 401 without reading the body of an upload sent without a valid key', async () => {
    // Arrange: a body declared at the full size, of which only 100 bytes are ever sent.
    const calls = [holdUpload(null, MAX_UPLOAD, 100), holdUpload('not-a-key', MAX_UPLOAD, 100)];
    // Act
    const answers = await Promise.all(calls.map((c) => c.answered));
    // Assert
    for (const [k, answer] of answers.entries()) {
      expect(answer).toMatch(/^HTTP\/1\.1 401/);
      expect(answer).toMatch(k === 0 ? /missing API key/ : /invalid API key/);
    }
    for (const c of calls) c.socket.destroy();
  });

  it('answers 503 with Retry-After once the uploads being received pass their limit, and recovers', async () => {
    // Arrange: nine valid uploads each holding all but one byte of the largest body (eight fit).
    const largest = MAX_UPLOAD + FRAMING;
    const calls = Array.from({ length: 9 }, () => holdUpload(ALPHA, largest, largest - 1));
    // Act
    const busy = await Promise.race(calls.map((c) => c.answered));
    for (const c of calls) c.socket.destroy();
    const after = await parseByReference({}, { file: readFileSync(PDF) });
    // Assert
    expect(busy).toMatch(/^HTTP\/1\.1 503/);
    expect(busy).toMatch(/retry-after: 1/i);
    expect(after.status).toBe(200);
  });
});
