import { describe, expect, it } from 'vitest';
import { parseUpload, submitUpload } from '../../../../functions/core/app/parse-upload.js';
import {
  UPLOAD_EXPIRY_MINUTES,
  createUpload,
  readUpload,
  uploadKeys,
} from '../../../../functions/core/app/uploads.js';
import { NotFoundError, PayloadTooLargeError } from '../../../../functions/core/domain/errors.js';
import { workKeys } from '../../../../functions/core/domain/object-keys.js';
import {
  FakeDocumentEngine,
  OTHER_TENANT,
  T0,
  TENANT,
  TINY_PDF,
  anAppWorld,
  anUploadedSlot,
  parseOptions,
} from '../../../support/builders.js';

describe('createUpload', () => {
  it('signs a form for the tenant-scoped key, the maximum size and a 15-minute expiry', async () => {
    // Arrange
    const world = await anAppWorld({ maxUploadBytes: 5000 });
    // Act
    const slot = await createUpload(world, {
      tenant: TENANT,
      filename: 'scan.pdf',
      contentType: 'application/pdf',
    });
    // Assert
    const expiresAt = new Date(T0.getTime() + UPLOAD_EXPIRY_MINUTES * 60_000);
    expect(slot).toEqual({
      upload_id: 'upl_id0001',
      url: 'https://uploads.test/upl_id0001',
      fields: { key: 'uploads/slots/tenant-a/upl_id0001/document', policy: 'fake:upl_id0001' },
      max_bytes: 5000,
      expires_at: expiresAt.toISOString(),
    });
    expect(world.uploads.signed).toEqual([
      {
        uploadId: 'upl_id0001',
        key: 'uploads/slots/tenant-a/upl_id0001/document',
        tenant: TENANT,
        maxBytes: 5000,
        expiresAt,
        contentType: 'application/pdf',
      },
    ]);
  });

  it('keeps slot keys apart from the request upload keys', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const slot = await createUpload(world, { tenant: 'req_x', filename: null, contentType: null });
    // Assert
    const key = uploadKeys.document('req_x', slot.upload_id);
    expect(key).not.toBe(workKeys.upload('req_x'));
    expect(key.split('/')).toHaveLength(5);
    expect(workKeys.upload('req_x').split('/')).toHaveLength(3);
    expect(world.objects.keys()).toEqual([uploadKeys.slot('req_x', slot.upload_id)]);
  });
});

describe('readUpload', () => {
  it('returns the uploaded bytes and the file name the slot was created with', async () => {
    // Arrange
    const world = await anAppWorld();
    const uploadId = await anUploadedSlot(world);
    // Act
    const upload = await readUpload(world, TENANT, uploadId);
    // Assert
    expect(upload).toEqual({ bytes: TINY_PDF, filename: 'big.pdf' });
  });

  it("throws the same NotFoundError for an unknown, an unsent and another tenant's upload", async () => {
    // Arrange
    const world = await anAppWorld();
    const sent = await anUploadedSlot(world);
    const unsent = (
      await createUpload(world, { tenant: TENANT, filename: null, contentType: null })
    ).upload_id;
    const unknown = 'upl_unknown000000000000000';
    // Act
    const results = await Promise.allSettled([
      readUpload(world, TENANT, unknown),
      readUpload(world, TENANT, unsent),
      readUpload(world, OTHER_TENANT, sent),
    ]);
    // Assert
    const reasons = results.map((r) => (r.status === 'rejected' ? (r.reason as Error) : r.value));
    expect(reasons.every((reason) => reason instanceof NotFoundError)).toBe(true);
    const notFound = (id: string) =>
      `upload ${id} not found: create one with POST /v1/uploads and send the file to its url before parsing`;
    expect(reasons.map((r) => (r as Error).message)).toEqual([
      notFound(unknown),
      notFound(unsent),
      notFound(sent),
    ]);
  });

  it('throws NotFoundError for an id that is not an upload id, without touching the store', async () => {
    // Arrange
    const world = await anAppWorld();
    world.objects.get = () => Promise.reject(new Error('must not be called'));
    // Act
    const result = readUpload(world, TENANT, '../../results/tenant-b/req_1.json');
    // Assert
    await expect(result).rejects.toBeInstanceOf(NotFoundError);
  });

  it('passes store failures other than a missing object through', async () => {
    // Arrange
    const world = await anAppWorld();
    const uploadId = await anUploadedSlot(world);
    world.objects.get = () => Promise.reject(new Error('S3 is down'));
    // Act
    const result = readUpload(world, TENANT, uploadId);
    // Assert
    await expect(result).rejects.toThrow('S3 is down');
  });
});

describe('parseUpload by upload id', () => {
  it('copies the upload to the request and parses it like a direct upload', async () => {
    // Arrange
    const world = await anAppWorld({ engine: new FakeDocumentEngine({ pageCount: 2 }) });
    const uploadId = await anUploadedSlot(world);
    // Act
    const response = await parseUpload(world, {
      tenant: TENANT,
      uploadId,
      options: parseOptions(),
    });
    // Assert
    expect(response).toMatchObject({
      status: 'completed',
      document: { pages: 2, format: 'pdf', filename: 'big.pdf', size_bytes: TINY_PDF.byteLength },
    });
    const record = await world.requests.get(response.id);
    expect(record?.tenant).toBe(TENANT);
    expect(record?.document.key).toBe(workKeys.upload(response.id));
    expect(await world.objects.get(workKeys.upload(response.id))).toEqual(TINY_PDF);
  });

  it('applies the size check to the uploaded file', async () => {
    // Arrange
    const world = await anAppWorld({ maxUploadBytes: 100 });
    const uploadId = await anUploadedSlot(world, new Uint8Array(101));
    // Act
    const result = submitUpload(world, { tenant: TENANT, uploadId, options: parseOptions() });
    // Assert
    await expect(result).rejects.toBeInstanceOf(PayloadTooLargeError);
  });

  it("fails with NotFoundError for another tenant's upload and creates no request", async () => {
    // Arrange
    const world = await anAppWorld();
    const uploadId = await anUploadedSlot(world);
    // Act
    const result = parseUpload(world, { tenant: OTHER_TENANT, uploadId, options: parseOptions() });
    // Assert
    await expect(result).rejects.toBeInstanceOf(NotFoundError);
    expect(world.workflow.ran).toEqual([]);
  });
});
