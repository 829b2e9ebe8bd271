import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/api/create-upload.handler.js';
import { HTTPValidationError } from '../../../functions/core/domain/schemas.js';
import {
  API_KEY,
  T0,
  TENANT,
  anApiEvent,
  bodyOf,
  fakeDeps,
  lambdaContext,
  type FakeDeps,
} from '../../support/builders.js';

/** A POST /v1/uploads event; `body` is sent as it is (a string) or as JSON. */
function aCreateUploadEvent(
  options: { body?: unknown; contentType?: string | null; apiKey?: string | null } = {},
) {
  const headers: Record<string, string> = {};
  if (options.apiKey !== null) headers['X-API-Key'] = options.apiKey ?? API_KEY;
  if (options.contentType !== null)
    headers['Content-Type'] = options.contentType ?? 'application/json';
  const body =
    options.body === undefined
      ? null
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  return anApiEvent({ httpMethod: 'POST', path: '/v1/uploads', headers, body });
}

async function call(event: ReturnType<typeof aCreateUploadEvent>, deps?: FakeDeps) {
  const d = deps ?? (await fakeDeps());
  const result = await createHandler(() => Promise.resolve(d))(
    event,
    lambdaContext('create-upload'),
  );
  return { result, body: bodyOf(result), deps: d };
}

describe('POST /v1/uploads', () => {
  it('answers 201 with the upload id, the signed form, the maximum size and the expiry', async () => {
    // Arrange
    const deps = await fakeDeps({ maxUploadBytes: 50 * 1024 * 1024 });
    // Act
    const { result, body } = await call(
      aCreateUploadEvent({ body: { filename: 'scan.pdf', content_type: 'application/pdf' } }),
      deps,
    );
    // Assert
    expect(result.statusCode).toBe(201);
    expect(body).toEqual({
      upload_id: 'upl_id0001',
      url: 'https://uploads.test/upl_id0001',
      fields: { key: 'uploads/slots/tenant-a/upl_id0001/document', policy: 'fake:upl_id0001' },
      max_bytes: 50 * 1024 * 1024,
      expires_at: new Date(T0.getTime() + 15 * 60_000).toISOString(),
    });
    expect(deps.uploads.signed[0]).toMatchObject({
      tenant: TENANT,
      contentType: 'application/pdf',
    });
  });

  it('accepts a request without a body, or with null fields', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const empty = await call(aCreateUploadEvent({ contentType: null }), deps);
    const nulls = await call(
      aCreateUploadEvent({ body: { filename: null, content_type: null } }),
      deps,
    );
    // Assert
    expect(empty.result.statusCode).toBe(201);
    expect(nulls.result.statusCode).toBe(201);
    expect(deps.uploads.signed.map((p) => p.contentType)).toEqual([null, null]);
  });

  it('reads a base64-encoded JSON body (the local server sends every body so)', async () => {
    // Arrange
    const deps = await fakeDeps();
    const event = aCreateUploadEvent({ body: { content_type: 'image/png' } });
    event.body = Buffer.from(event.body ?? '').toString('base64');
    event.isBase64Encoded = true;
    // Act
    const { result } = await call(event, deps);
    // Assert
    expect(result.statusCode).toBe(201);
    expect(deps.uploads.signed[0]?.contentType).toBe('image/png');
  });

  it('fails with 401 without an API key', async () => {
    // Act
    const { result, body } = await call(aCreateUploadEvent({ apiKey: null }));
    // Assert
    expect(result.statusCode).toBe(401);
    expect(body.detail).toMatch(/X-API-Key/);
  });

  it('fails with 422 and an HTTPValidationError body for invalid fields', async () => {
    // Act
    const { result, body } = await call(
      aCreateUploadEvent({ body: { filename: 42, content_type: 'pdf' } }),
    );
    // Assert
    expect(result.statusCode).toBe(422);
    const locs = HTTPValidationError.parse(body).detail.map((d) => d.loc);
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body', 'filename'],
        ['body', 'content_type'],
      ]),
    );
  });

  it('fails with 422 for a file name with control characters', async () => {
    // Act
    const { result, body } = await call(aCreateUploadEvent({ body: { filename: 'a\nb.pdf' } }));
    // Assert
    expect(result.statusCode).toBe(422);
    expect(HTTPValidationError.parse(body).detail[0]).toMatchObject({
      loc: ['body', 'filename'],
      msg: 'must not contain control characters',
    });
  });

  it('fails with 422 when the body is JSON but not an object', async () => {
    // Act
    const { result } = await call(aCreateUploadEvent({ body: [1, 2] }));
    // Assert
    expect(result.statusCode).toBe(422);
  });

  it('fails with 400 for a body that is not valid JSON', async () => {
    // Act
    const { result, body } = await call(aCreateUploadEvent({ body: '{"filename":' }));
    // Assert
    expect(result.statusCode).toBe(400);
    expect(body.detail).toMatch(/^malformed request body: invalid JSON/);
  });

  it('fails with 400 for a body sent with another content type', async () => {
    // Act
    const { result, body } = await call(
      aCreateUploadEvent({
        body: 'filename=a.pdf',
        contentType: 'application/x-www-form-urlencoded',
      }),
    );
    // Assert
    expect(result.statusCode).toBe(400);
    expect(body.detail).toMatch(/Content-Type: application\/json/);
  });
});
