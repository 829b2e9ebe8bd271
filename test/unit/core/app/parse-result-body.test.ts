import { describe, expect, it, vi } from 'vitest';
import {
  getParseResult,
  getParseResultBody,
} from '../../../../functions/core/app/parse-result-body.js';
import { parseUpload } from '../../../../functions/core/app/parse-upload.js';
import { NotFoundError } from '../../../../functions/core/domain/errors.js';
import type { RequestWebhook } from '../../../../functions/core/domain/request.js';
import {
  FakePageProvider,
  OTHER_TENANT,
  TENANT,
  TINY_PDF,
  aStoredRequest,
  anAppWorld,
  parseOptions,
} from '../../../support/builders.js';

/** A world with one completed parse of TINY_PDF (one page, with a hallucination warning). */
async function completedParse() {
  const world = await anAppWorld({
    textProvider: new FakePageProvider('pdf-text', { markdown: 'Invented dragons.' }),
  });
  const parsed = await parseUpload(world, {
    tenant: TENANT,
    bytes: TINY_PDF,
    filename: 'report.pdf',
    options: parseOptions(),
  });
  return { world, id: parsed.id };
}

const webhook = (status: RequestWebhook['status']): RequestWebhook => ({
  url: 'https://hooks.example.com/docparse',
  apiBaseUrl: 'https://api.example.com',
  status,
  attempts: [],
});

describe('getParseResultBody', () => {
  it('is the JSON text of getParseResult, with and without warnings, twice in a row', async () => {
    // Arrange
    const { world, id } = await completedParse();
    // Act
    const bodies = [];
    for (const warnings of [false, true, false, true]) {
      bodies.push((await getParseResultBody(world, TENANT, id, warnings)).json);
    }
    // Assert
    const plain = JSON.stringify(await getParseResult(world, TENANT, id, false));
    const withWarnings = JSON.stringify(await getParseResult(world, TENANT, id, true));
    expect(plain).not.toBe(withWarnings);
    expect(bodies).toEqual([plain, withWarnings, plain, withWarnings]);
  });

  it('is the JSON text of getParseResult for a request still queued', async () => {
    // Arrange
    const world = await anAppWorld();
    const record = await aStoredRequest(world, { tenant: TENANT, status: 'queued' });
    // Act
    const body = await getParseResultBody(world, TENANT, record.id, false);
    // Assert
    expect(body.json).toBe(JSON.stringify(await getParseResult(world, TENANT, record.id, false)));
    expect(JSON.parse(body.json)).toMatchObject({ id: record.id, status: 'queued', pages: [] });
    expect(body.utf8).toBeUndefined();
  });

  it('reads a completed result from the object store once', async () => {
    // Arrange
    const { world, id } = await completedParse();
    const reads = vi.spyOn(world.objects, 'get');
    // Act
    for (let i = 0; i < 5; i++) await getParseResultBody(world, TENANT, id, false);
    // Assert
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it("shows the webhook's current delivery on a result it has read before", async () => {
    // Arrange
    const { world, id } = await completedParse();
    await world.requests.update(id, { webhook: webhook('pending') });
    await getParseResultBody(world, TENANT, id, false);
    await world.requests.update(id, { webhook: webhook('delivered') });
    // Act
    const body = await getParseResultBody(world, TENANT, id, false);
    // Assert
    expect(JSON.parse(body.json)).toMatchObject({ webhook: { status: 'delivered' } });
    expect(body.json).toBe(JSON.stringify(await getParseResult(world, TENANT, id, false)));
    expect(new TextDecoder().decode(body.utf8)).toBe(body.json);
  });

  it('serves a result written again under the same key with its new content', async () => {
    // Arrange
    const { world, id } = await completedParse();
    const record = await world.requests.get(id);
    const key = record?.resultKey ?? '';
    await getParseResultBody(world, TENANT, id, false);
    const stored = JSON.parse(new TextDecoder().decode(await world.objects.get(key))) as object;
    const rewritten = { ...stored, created_at: '2030-01-01T00:00:00.000Z' };
    // Act
    await world.objects.put(key, new TextEncoder().encode(JSON.stringify(rewritten)), 'a/j');
    await world.requests.update(id, { updatedAt: '2030-01-01T00:00:01.000Z' });
    const body = await getParseResultBody(world, TENANT, id, false);
    // Assert
    expect(JSON.parse(body.json)).toMatchObject({ created_at: '2030-01-01T00:00:00.000Z' });
    expect(JSON.parse(new TextDecoder().decode(body.utf8))).toMatchObject({
      created_at: '2030-01-01T00:00:00.000Z',
    });
  });

  it('keeps the UTF-8 bytes of a completed result with its text, non-ASCII text included', async () => {
    // Arrange
    const world = await anAppWorld({
      textProvider: new FakePageProvider('pdf-text', { markdown: 'Ça coûte 5 € — 東京 🚀' }),
    });
    const { id } = await parseUpload(world, {
      tenant: TENANT,
      bytes: TINY_PDF,
      filename: 'report.pdf',
      options: parseOptions(),
    });
    // Act
    const first = await getParseResultBody(world, TENANT, id, false);
    const again = await getParseResultBody(world, TENANT, id, false);
    // Assert
    expect(first.json).toContain('東京 🚀');
    expect(first.utf8).toEqual(new TextEncoder().encode(first.json));
    expect(again.utf8).toBe(first.utf8);
  });

  it('sends the bytes of the result and the current webhook together', async () => {
    // Arrange
    const { world, id } = await completedParse();
    await getParseResultBody(world, TENANT, id, false);
    await world.requests.update(id, { webhook: webhook('dead_letter') });
    // Act
    const body = await getParseResultBody(world, TENANT, id, false);
    // Assert
    expect(body.utf8).toEqual(new TextEncoder().encode(body.json));
    expect(JSON.parse(body.json)).toMatchObject({ webhook: { status: 'dead_letter' } });
  });

  it('answers 404 to another tenant for a result it has read before', async () => {
    // Arrange
    const { world, id } = await completedParse();
    await getParseResultBody(world, TENANT, id, false);
    // Act
    const foreign = getParseResultBody(world, OTHER_TENANT, id, false);
    // Assert
    await expect(foreign).rejects.toBeInstanceOf(NotFoundError);
    await expect(foreign).rejects.toThrow(`parse request ${id} not found`);
  });
});
