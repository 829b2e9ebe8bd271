import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHandler } from '../../../functions/api/parse-upload.handler.js';
import { logger } from '../../../functions/observability/logger.js';
import {
  LocalResponseStream,
  invokeStreaming,
  type ApiHandler,
} from '../../../functions/api/streaming.js';
import { invokeBuffered } from '../../support/invoke-buffered.js';
import { DocumentRejectedError } from '../../../functions/core/domain/errors.js';
import { HTTPValidationError, ParseResponse } from '../../../functions/core/domain/schemas.js';
import { createUpload, uploadKeys } from '../../../functions/core/app/uploads.js';
import {
  FakeDocumentEngine,
  aProviderResult,
  FakePageProvider,
  OTHER_API_KEY,
  TENANT,
  TINY_PDF,
  anUploadEvent,
  bodyOf,
  fakeDeps,
  lambdaContext,
  type FakeDeps,
} from '../../support/builders.js';

async function call(event: Parameters<ReturnType<typeof createHandler>>[0], deps?: FakeDeps) {
  const d = deps ?? (await fakeDeps());
  const context = lambdaContext('parse-upload');
  const result = await invokeBuffered(
    createHandler(() => Promise.resolve(d)) as ApiHandler,
    event,
    context,
  );
  return { result, body: bodyOf(result), context, deps: d };
}

describe('POST /v1/parse/upload', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers 200 with a ParseResponse for a small PDF', async () => {
    // Arrange
    const deps = await fakeDeps({ engine: new FakeDocumentEngine({ pageCount: 2 }) });
    // Act
    const { result, body } = await call(anUploadEvent(), deps);
    // Assert
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({ 'content-type': 'application/json' });
    const response = ParseResponse.parse(body);
    expect(response.document).toMatchObject({
      pages: 2,
      format: 'pdf',
      filename: 'report.pdf',
      size_bytes: TINY_PDF.byteLength,
    });
    expect(response.pages).toHaveLength(2);
    expect(response.pages[0]).not.toHaveProperty('warnings');
  });

  it('stores the caller as the tenant and passes the form and query options', async () => {
    // Arrange
    const deps = await fakeDeps({ engine: new FakeDocumentEngine({ pageCount: 5 }) });
    const event = anUploadEvent({
      fields: { max_pages: '2', dpi: '300', maintain_format: 'false', operation_mode: 'ocr' },
      query: { include_warnings: 'true' },
    });
    // Act
    const { result, body } = await call(event, deps);
    // Assert
    expect(result.statusCode).toBe(200);
    const record = await deps.requests.get(body.id as string);
    expect(record?.tenant).toBe('tenant-a');
    expect(record?.options).toEqual({
      operation_mode: 'ocr',
      maintain_format: false,
      max_pages: 2,
      enable_verification: null,
      dpi: 300,
      include_warnings: true,
      extraction_strict: false,
      legacy_events: false,
    });
    expect((body.pages as unknown[]).length).toBe(2);
    expect((body.pages as Record<string, unknown>[])[0]).toHaveProperty('warnings', []);
  });

  it('fails with 401 without an API key', async () => {
    // Act
    const { result, body } = await call(anUploadEvent({ apiKey: null }));
    // Assert
    expect(result.statusCode).toBe(401);
    expect(body).toEqual({ detail: 'missing API key: send it in the X-API-Key header' });
  });

  it('fails with 401 for a wrong API key', async () => {
    // Act
    const { result, body } = await call(anUploadEvent({ apiKey: 'wrong-key-123' }));
    // Assert
    expect(result.statusCode).toBe(401);
    expect(body).toEqual({ detail: 'invalid API key' });
  });

  it('fails with 400 when the file field is missing', async () => {
    // Act
    const { result, body } = await call(anUploadEvent({ file: null, fields: { dpi: '150' } }));
    // Assert
    expect(result.statusCode).toBe(400);
    expect(body.detail).toMatch(/missing form field "file"/);
  });

  it('fails with 400 when the body is not multipart', async () => {
    // Arrange
    const event = anUploadEvent();
    event.headers['content-type'] = 'application/json';
    // Act
    const { result, body } = await call(event);
    // Assert
    expect(result.statusCode).toBe(400);
    expect(body.detail).toMatch(/^malformed request body/);
  });

  it('fails with 413 when the file part exceeds the maximum upload size', async () => {
    // Arrange
    const deps = await fakeDeps({ maxUploadBytes: 256 });
    const big = new Uint8Array(257).fill(0x41);
    // Act
    const { result, body } = await call(anUploadEvent({ file: { content: big } }), deps);
    // Assert
    expect(result.statusCode).toBe(413);
    expect(body.detail).toMatch(/exceeds the maximum upload size of 256 bytes/);
    expect(deps.objects.keys()).toEqual([]);
  });

  it('accepts a file of exactly the maximum upload size', async () => {
    // Arrange
    const deps = await fakeDeps({ maxUploadBytes: TINY_PDF.byteLength });
    // Act
    const { result } = await call(anUploadEvent(), deps);
    // Assert
    expect(result.statusCode).toBe(200);
  });

  it('fails with 400 for an empty file', async () => {
    // Act
    const { result, body } = await call(anUploadEvent({ file: { content: new Uint8Array(0) } }));
    // Assert
    expect(result.statusCode).toBe(400);
    expect(body).toEqual({ detail: 'the uploaded file is empty (0 bytes)' });
  });

  it('fails with 400 naming the detected type for unsupported bytes', async () => {
    // Arrange
    const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0]);
    // Act
    const { result, body } = await call(
      anUploadEvent({ file: { content: gif, filename: 'scan.pdf' } }),
    );
    // Assert
    expect(result.statusCode).toBe(400);
    expect(body.detail).toMatch(/^unsupported file type: the content is GIF image/);
  });

  it('fails with 422 and an HTTPValidationError body for dpi=abc', async () => {
    // Act
    const { result, body } = await call(anUploadEvent({ fields: { dpi: 'abc' } }));
    // Assert
    expect(result.statusCode).toBe(422);
    const parsed = HTTPValidationError.parse(body);
    expect(parsed.detail).toEqual([
      { loc: ['body', 'dpi'], msg: 'must be an integer or null', type: 'custom', input: 'abc' },
    ]);
  });

  it('fails with 422 listing every invalid form field', async () => {
    // Act
    const { result, body } = await call(
      anUploadEvent({ fields: { operation_mode: 'poetry', dpi: '5', max_pages: '0' } }),
    );
    // Assert
    expect(result.statusCode).toBe(422);
    const locs = HTTPValidationError.parse(body).detail.map((d) => d.loc);
    expect(locs).toHaveLength(3);
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body', 'operation_mode'],
        ['body', 'dpi'],
        ['body', 'max_pages'],
      ]),
    );
  });

  it('fails with 422 located in the query for an invalid query boolean', async () => {
    // Act
    const { result, body } = await call(anUploadEvent({ query: { include_warnings: 'maybe' } }));
    // Assert
    expect(result.statusCode).toBe(422);
    expect(HTTPValidationError.parse(body).detail).toEqual([
      {
        loc: ['query', 'include_warnings'],
        msg: 'must be a boolean (true or false)',
        type: 'custom',
        input: 'maybe',
      },
    ]);
  });

  it('fails with 422 when the pipeline rejects the document', async () => {
    // Arrange
    const deps = await fakeDeps({ engine: new FakeDocumentEngine({ pageCount: 0 }) });
    // Act
    const { result, body } = await call(anUploadEvent(), deps);
    // Assert
    expect(result.statusCode).toBe(422);
    expect(body).toEqual({ detail: 'the document has no pages' });
  });

  it('fails with 503 when the providers are unavailable', async () => {
    // Arrange
    const deps = await fakeDeps({
      textProvider: new FakePageProvider('pdf-text', () =>
        Promise.reject(Object.assign(new Error('busy'), { name: 'ProviderUnavailableError' })),
      ),
    });
    // Act
    const { result } = await call(anUploadEvent(), deps);
    // Assert
    expect(result.statusCode).toBe(503);
  });

  describe('a parse longer than the commit delay', () => {
    const slow = { commitAfterMs: 20, keepaliveMs: 10 };
    const after = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

    async function callSlow(deps: FakeDeps) {
      const stream = new LocalResponseStream();
      const chunks: string[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
      await invokeStreaming(
        createHandler(() => Promise.resolve(deps), slow) as ApiHandler,
        anUploadEvent(),
        stream,
        lambdaContext('parse-upload'),
      );
      return { prelude: stream.prelude, chunks };
    }

    it('is answered 200 at once, then spaces, then the ParseResponse', async () => {
      // Arrange: the page takes 80 ms.
      const deps = await fakeDeps({
        textProvider: new FakePageProvider('pdf-text', async (request) => {
          await after(80);
          return aProviderResult({ markdown: `page ${String(request.pageNumber)}` });
        }),
      });
      // Act
      const { prelude, chunks } = await callSlow(deps);
      // Assert
      expect(prelude).toMatchObject({
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
      });
      expect(chunks.length).toBeGreaterThan(2);
      expect(chunks[0]).toBe(' ');
      const body = chunks.join('');
      expect(body).toMatch(/^ {2,}\{/);
      expect(ParseResponse.parse(JSON.parse(body)).pages).toHaveLength(1);
    });

    it('ends with the error body when the parse then fails', async () => {
      // Arrange
      const deps = await fakeDeps({
        textProvider: new FakePageProvider('pdf-text', async () => {
          await after(60);
          throw Object.assign(new Error('busy'), { name: 'ProviderUnavailableError' });
        }),
      });
      // Act
      const { prelude, chunks } = await callSlow(deps);
      // Assert
      expect(prelude?.statusCode).toBe(200);
      const body = JSON.parse(chunks.join('')) as { detail?: unknown };
      expect(Object.keys(body).sort()).toEqual(['detail', 'request_id', 'status']);
      expect(typeof body.detail).toBe('string');
    });

    it('names the real cause, the parse id and the status in the error body after the 200', async () => {
      // Arrange: the page runs past its time budget once the 200 is sent.
      const cause = 'page 1 took longer than the 30 s per-page budget';
      const deps = await fakeDeps({
        textProvider: new FakePageProvider('pdf-text', async () => {
          await after(60);
          throw new DocumentRejectedError(cause);
        }),
      });
      // Act
      const { prelude, chunks } = await callSlow(deps);
      // Assert
      expect(prelude?.statusCode).toBe(200);
      const body = JSON.parse(chunks.join('')) as Record<string, unknown>;
      expect(body).toMatchObject({ detail: cause, status: 422 });
      expect(typeof body['request_id']).toBe('string');
      const stored = await deps.requests.get(body['request_id'] as string);
      expect(stored?.error).toMatchObject({ kind: 'unprocessable', message: cause });
    });

    it('is answered with the real status when it fails within the delay', async () => {
      // Arrange: an empty upload fails at once.
      const deps = await fakeDeps();
      const event = anUploadEvent({ file: { content: new Uint8Array(0) } });
      const stream = new LocalResponseStream();
      // Act
      await invokeStreaming(
        createHandler(() => Promise.resolve(deps), slow) as ApiHandler,
        event,
        stream,
        lambdaContext('parse-upload'),
      );
      // Assert
      expect(stream.prelude?.statusCode).toBe(400);
    });
  });

  it('fails with 500 naming the request id without leaking the error message', async () => {
    // Arrange
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const deps = await fakeDeps();
    deps.workflow.start = () => Promise.reject(new Error('db password is hunter2'));
    // Act
    const { result, body, context } = await call(anUploadEvent(), deps);
    // Assert
    expect(result.statusCode).toBe(500);
    expect(body).toEqual({ detail: `internal error (request ${context.awsRequestId})` });
    expect(result.body).not.toContain('hunter2');
    expect(logged).toHaveBeenCalledWith(
      'unhandled error',
      expect.objectContaining({ requestId: context.awsRequestId }),
    );
  });
});

describe('POST /v1/parse/upload with upload_id', () => {
  /** A slot of tenant-a whose file was sent. */
  async function anUploadedSlot(deps: FakeDeps, bytes: Uint8Array = TINY_PDF): Promise<string> {
    const slot = await createUpload(deps, {
      tenant: TENANT,
      filename: 'big.pdf',
      contentType: null,
    });
    await deps.objects.put(uploadKeys.document(TENANT, slot.upload_id), bytes, 'application/pdf');
    return slot.upload_id;
  }

  it('answers 200 with a ParseResponse for the uploaded file', async () => {
    // Arrange
    const deps = await fakeDeps({ engine: new FakeDocumentEngine({ pageCount: 2 }) });
    const uploadId = await anUploadedSlot(deps);
    // Act
    const { result, body } = await call(
      anUploadEvent({ file: null, fields: { upload_id: uploadId, max_pages: '1' } }),
      deps,
    );
    // Assert
    expect(result.statusCode).toBe(200);
    const response = ParseResponse.parse(body);
    expect(response.document).toMatchObject({ filename: 'big.pdf', pages: 2 });
    expect(response.pages).toHaveLength(1);
    const record = await deps.requests.get(response.id);
    expect(record?.options).not.toHaveProperty('upload_id');
  });

  it("fails with 404 for another tenant's upload", async () => {
    // Arrange
    const deps = await fakeDeps();
    const uploadId = await anUploadedSlot(deps);
    // Act
    const { result, body } = await call(
      anUploadEvent({ apiKey: OTHER_API_KEY, file: null, fields: { upload_id: uploadId } }),
      deps,
    );
    // Assert
    expect(result.statusCode).toBe(404);
    expect(body.detail).toBe(
      `upload ${uploadId} not found: create one with POST /v1/uploads and send the file to its url before parsing`,
    );
  });

  it('fails with 413 when the uploaded file exceeds the maximum upload size', async () => {
    // Arrange
    const deps = await fakeDeps({ maxUploadBytes: 256 });
    const uploadId = await anUploadedSlot(deps, new Uint8Array(257).fill(0x41));
    // Act
    const { result } = await call(
      anUploadEvent({ file: null, fields: { upload_id: uploadId } }),
      deps,
    );
    // Assert
    expect(result.statusCode).toBe(413);
  });

  it('fails with 400 when both a file and an upload_id are sent', async () => {
    // Arrange
    const deps = await fakeDeps();
    const uploadId = await anUploadedSlot(deps);
    // Act
    const { result, body } = await call(anUploadEvent({ fields: { upload_id: uploadId } }), deps);
    // Assert
    expect(result.statusCode).toBe(400);
    expect(body.detail).toMatch(/^send either a "file" part or an "upload_id" field, not both/);
    expect(deps.workflow.ran).toEqual([]);
  });

  it('fails with 400 naming both ways when neither a file nor an upload_id is sent', async () => {
    // Act
    const { result, body } = await call(anUploadEvent({ file: null }));
    // Assert
    expect(result.statusCode).toBe(400);
    expect(body.detail).toMatch(/"file".*"upload_id"/);
  });

  it('fails with 422 for an upload_id that is not one', async () => {
    // Act
    const { result, body } = await call(
      anUploadEvent({ file: null, fields: { upload_id: '../results/x' } }),
    );
    // Assert
    expect(result.statusCode).toBe(422);
    expect(HTTPValidationError.parse(body).detail[0]?.loc).toEqual(['body', 'upload_id']);
  });
});
