import { describe, expect, it, vi } from 'vitest';
import { UploadForm, UploadQuery } from '../../../../functions/api/request-schemas.js';
import { ingestObjects, type IngestOutcome } from '../../../../functions/core/app/ingest-object.js';
import { submitUpload } from '../../../../functions/core/app/parse-upload.js';
import { ConflictError } from '../../../../functions/core/domain/errors.js';
import { workKeys } from '../../../../functions/core/domain/object-keys.js';
import { DEFAULT_PARSE_OPTIONS } from '../../../../functions/core/domain/request.js';
import { isTenantId } from '../../../../functions/core/domain/tenant.js';
import {
  FakeDocumentEngine,
  OTHER_API_KEY,
  OTHER_TENANT,
  TENANT,
  TINY_PDF,
  T0,
  anAppWorld,
  type AppWorld,
} from '../../../support/builders.js';
import { hashApiKey } from '../../../../functions/core/app/authenticate.js';
import { planLimits } from '../../../../functions/core/domain/plans.js';
import { apiKeyId } from '../../../../functions/core/app/api-keys.js';
import {
  anS3EventRecord,
  anS3Notification,
  anS3TestEvent,
  type S3ObjectFields,
} from '../../../support/s3-events.js';

const KEY = `incoming/${TENANT}/report.pdf`;

/** A world with `bytes` stored under each of `keys` (decoded, as the object store names them). */
async function aWorldWith(keys: string[], bytes: Uint8Array = TINY_PDF): Promise<AppWorld> {
  const world = await anAppWorld();
  for (const key of keys) await world.objects.put(key, bytes, 'application/octet-stream');
  return world;
}

/** The notification body for one created object. */
const created = (object: S3ObjectFields) => anS3Notification(anS3EventRecord(object));

/** The request id an outcome names, for outcomes that name one. */
function requestIdOf(outcome: IngestOutcome | undefined): string {
  if (!outcome || !('requestId' in outcome))
    throw new Error(`no request in ${JSON.stringify(outcome)}`);
  return outcome.requestId;
}

/** Waits for the execution of `requestId` to end. */
const finished = (world: AppWorld, requestId: string) =>
  world.workflow.wait(world.workflow.executionIdFor(requestId));

const ingestRuns = (world: AppWorld) => world.workflow.ran.filter((s) => s === 'Ingest').length;

describe('ingestObjects', () => {
  it('starts one parse for the tenant named by the key, with the default options', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    // Act
    const outcomes = await ingestObjects(world, created({ key: KEY, size: TINY_PDF.byteLength }));
    // Assert
    expect(outcomes).toEqual([
      {
        status: 'started',
        requestId: expect.stringMatching(/^req_[0-9a-f]{32}$/) as unknown,
        tenant: TENANT,
        key: KEY,
      },
    ]);
    const requestId = requestIdOf(outcomes[0]);
    expect(await world.requests.get(requestId)).toMatchObject({
      tenant: TENANT,
      options: DEFAULT_PARSE_OPTIONS,
      document: { key: workKeys.upload(requestId), format: 'pdf', filename: 'report.pdf' },
    });
    expect(await world.objects.get(workKeys.upload(requestId))).toEqual(TINY_PDF);
    expect(world.workflow.inputs).toEqual([
      { requestId, settings: { pageConcurrency: world.limits.pageConcurrency } },
    ]);
    expect(await finished(world, requestId)).toEqual({ status: 'SUCCEEDED' });
    expect(await world.objects.exists(workKeys.resultJson(TENANT, requestId))).toBe(true);
  });

  it('decodes the key as S3 encodes it: "+" for spaces, percent-escapes for the rest', async () => {
    // Arrange
    const decoded = `incoming/${TENANT}/reports/Annual report (2025) + notes.pdf`;
    const world = await aWorldWith([decoded]);
    // Act
    const [outcome] = await ingestObjects(
      world,
      created({ key: `incoming/${TENANT}/reports/Annual+report+%282025%29+%2B+notes.pdf` }),
    );
    // Assert
    expect(outcome).toMatchObject({ status: 'started', key: decoded });
    expect((await world.requests.get(requestIdOf(outcome)))?.document.filename).toBe(
      'Annual report (2025) + notes.pdf',
    );
  });

  it('starts no second parse when the same event is delivered again', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    const body = created({ key: KEY, versionId: 'v1' });
    const [first] = await ingestObjects(world, body);
    await finished(world, requestIdOf(first));
    // Act
    const [again] = await ingestObjects(world, body);
    // Assert
    expect(again).toEqual({
      status: 'duplicate',
      requestId: requestIdOf(first),
      tenant: TENANT,
      key: KEY,
      requestStatus: 'completed',
    });
    expect(world.workflow.inputs).toHaveLength(1);
    expect(ingestRuns(world)).toBe(1);
  });

  it('starts the request a failed delivery created but could not start, once', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    vi.spyOn(world.workflow, 'start').mockRejectedValueOnce(new Error('ThrottlingException'));
    const body = created({ key: KEY });
    await expect(ingestObjects(world, body)).rejects.toThrow('ThrottlingException');
    // Act
    const [redelivered] = await ingestObjects(world, body);
    // Assert
    expect(redelivered).toMatchObject({ status: 'duplicate', requestStatus: 'queued' });
    expect(await finished(world, requestIdOf(redelivered))).toEqual({ status: 'SUCCEEDED' });
    expect(ingestRuns(world)).toBe(1);
  });

  it('treats a delivery racing another one of the same event as a duplicate', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    const body = created({ key: KEY });
    const [first] = await ingestObjects(world, body);
    await finished(world, requestIdOf(first));
    // The racing delivery looked before the first one created the request.
    vi.spyOn(world.requests, 'get').mockResolvedValueOnce(undefined);
    // Act
    const [racing] = await ingestObjects(world, body);
    // Assert
    expect(racing).toMatchObject({ status: 'duplicate', requestId: requestIdOf(first) });
    expect(ingestRuns(world)).toBe(1);
  });

  it('starts a new parse for each new write of the same key', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    // Act
    const [first] = await ingestObjects(
      world,
      created({ key: KEY, sequencer: '0055AED6DCD90281E5' }),
    );
    const [second] = await ingestObjects(
      world,
      created({ key: KEY, sequencer: '0055AED6DCD90281E6' }),
    );
    // Assert
    expect(first?.status).toBe('started');
    expect(second?.status).toBe('started');
    expect(requestIdOf(second)).not.toBe(requestIdOf(first));
  });

  it('names the same request for each delivery of an event without version, ETag or sequencer', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    const body = created({ key: KEY, eTag: undefined, sequencer: undefined });
    const [first] = await ingestObjects(world, body);
    await finished(world, requestIdOf(first));
    // Act
    const [again] = await ingestObjects(world, body);
    // Assert
    expect(first?.status).toBe('started');
    expect(again).toMatchObject({ status: 'duplicate', requestId: requestIdOf(first) });
  });

  it('handles each record of a notification on its own', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    // Act
    const outcomes = await ingestObjects(
      world,
      anS3Notification(
        anS3EventRecord({ key: KEY }),
        anS3EventRecord({ key: 'incoming/report.pdf' }),
      ),
    );
    // Assert
    expect(outcomes.map((o) => o.status)).toEqual(['started', 'dropped']);
  });

  it.each([
    ['outside incoming/', 'uploads/tenant-a/report.pdf', /is outside incoming\//],
    ['without a tenant', 'incoming/report.pdf', /"report.pdf" is not a tenant id|names no file/],
    [
      'with a tenant of other characters',
      'incoming/ten+ant/report.pdf',
      /"ten ant" is not a tenant id/,
    ],
    ['with a tenant of dots', 'incoming/../report.pdf', /"\.\." is not a tenant id/],
    ['of a folder marker', 'incoming/tenant-a/', /names no file/],
    ['with an empty segment', 'incoming/tenant-a/a//b.pdf', /names no file/],
    ['with a ".." segment', 'incoming/tenant-a/x/../../b.pdf', /names no file/],
  ])('drops an object key %s without throwing or starting anything', async (_, key, reason) => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const outcomes = await ingestObjects(world, created({ key }));
    // Assert
    expect(outcomes).toEqual([
      {
        status: 'dropped',
        reason: expect.stringMatching(reason) as unknown,
        key: expect.any(String) as unknown,
      },
    ]);
    expect((outcomes[0] as { reason: string }).reason).toMatch(
      /^object keys must be incoming\/<tenant>\/<name>; /,
    );
    expect(world.workflow.inputs).toEqual([]);
    expect(world.objects.keys()).toEqual([]);
  });

  describe('tenants and plans', () => {
    const DAY = '2025-03-04';
    /** OTHER_TENANT has one key, on the free plan (25 pages a day). */
    const FREE_KEY = `incoming/${OTHER_TENANT}/report.pdf`;

    it('drops an object of a tenant that has no API key, with the reason, starting nothing', async () => {
      // Arrange
      const key = 'incoming/nobody/report.pdf';
      const world = await aWorldWith([key]);
      // Act
      const outcomes = await ingestObjects(world, created({ key }));
      // Assert
      expect(outcomes).toEqual([
        {
          status: 'dropped',
          reason:
            'no tenant "nobody" exists (it has no API key that is not revoked); objects under incoming/<tenant>/ are parsed only for tenants with a key',
          key,
        },
      ]);
      expect(world.workflow.inputs).toEqual([]);
      // The object is left where it was written, for the lifecycle rule of incoming/.
      expect(world.objects.keys()).toEqual([key]);
    });

    it('drops an object of a tenant whose keys are all revoked', async () => {
      // Arrange
      const world = await aWorldWith([FREE_KEY]);
      await world.apiKeys.revoke(apiKeyId(hashApiKey(OTHER_API_KEY)), T0);
      // Act
      const [outcome] = await ingestObjects(world, created({ key: FREE_KEY }));
      // Assert
      expect(outcome).toMatchObject({
        status: 'dropped',
        reason: expect.stringMatching(/^no tenant "tenant-b" exists/) as unknown,
      });
      expect(world.workflow.inputs).toEqual([]);
    });

    it("parses under the tenant's plan: its pages count on the tenant's day", async () => {
      // Arrange
      const world = await anAppWorld({ engine: new FakeDocumentEngine({ pageCount: 4 }) });
      await world.objects.put(FREE_KEY, TINY_PDF, 'application/pdf');
      // Act
      const [outcome] = await ingestObjects(world, created({ key: FREE_KEY }));
      // Assert
      const requestId = requestIdOf(outcome);
      expect(await finished(world, requestId)).toEqual({ status: 'SUCCEEDED' });
      expect((await world.requests.get(requestId))?.plan).toBe('free');
      expect(await world.usage.pagesUsed(OTHER_TENANT, DAY)).toBe(4);
    });

    it("takes the highest plan among the tenant's keys that are not revoked", async () => {
      // Arrange
      const world = await anAppWorld({ engine: new FakeDocumentEngine({ pageCount: 30 }) });
      await world.objects.put(FREE_KEY, TINY_PDF, 'application/pdf');
      await world.apiKeys.put({
        keyHash: hashApiKey('another-key-of-tenant-b'),
        tenant: OTHER_TENANT,
        plan: 'pro',
        createdAt: T0.toISOString(),
      });
      // Act
      const [outcome] = await ingestObjects(world, created({ key: FREE_KEY }));
      // Assert: 30 pages do not fit in the free plan's 25, but do in pro's 10,000.
      const requestId = requestIdOf(outcome);
      expect(await finished(world, requestId)).toEqual({ status: 'SUCCEEDED' });
      expect((await world.requests.get(requestId))?.plan).toBe('pro');
      expect(await world.usage.pagesUsed(OTHER_TENANT, DAY)).toBe(30);
    });

    it("refuses a document above the plan's daily pages and says so in the failed request record", async () => {
      // Arrange
      const world = await anAppWorld({ engine: new FakeDocumentEngine({ pageCount: 26 }) });
      await world.objects.put(FREE_KEY, TINY_PDF, 'application/pdf');
      // Act
      const [outcome] = await ingestObjects(world, created({ key: FREE_KEY }));
      // Assert
      const requestId = requestIdOf(outcome);
      expect(await finished(world, requestId)).toMatchObject({ status: 'FAILED' });
      const detail =
        'the free plan allows 25 pages per day; 0 are used today and this document has 26; the count resets at 2025-03-05T00:00:00Z (UTC midnight); set max_pages to 25 or less to parse the first pages now';
      expect(await world.requests.get(requestId)).toMatchObject({
        status: 'failed',
        error: { name: 'PlanLimitError', kind: 'plan_limit', message: detail },
      });
      expect(await world.usage.pagesUsed(OTHER_TENANT, DAY)).toBe(0);
      expect(world.workflow.ran).not.toContain('ParsePage');
    });

    it('looks no day up for a plan without a daily page limit, or without usage counters', async () => {
      // Arrange
      const world = await anAppWorld({
        settings: { planLimits: planLimits({ scale: { pages_per_day: null } }) },
      });
      for (const key of ['incoming/big/a.pdf', 'incoming/big/b.pdf']) {
        await world.objects.put(key, TINY_PDF, 'application/pdf');
      }
      await world.apiKeys.put({
        keyHash: hashApiKey('key-of-a-scale-tenant'),
        tenant: 'big',
        plan: 'scale',
        createdAt: T0.toISOString(),
      });
      await world.usage.reservePages('big', DAY, 1_000_000, null, T0);
      // Act
      const [scale] = await ingestObjects(world, created({ key: 'incoming/big/a.pdf' }));
      const [uncounted] = await ingestObjects(
        { ...world, usage: undefined },
        created({ key: 'incoming/big/b.pdf' }),
      );
      // Assert
      expect(scale).toMatchObject({ status: 'started', tenant: 'big' });
      expect(uncounted).toMatchObject({ status: 'started', tenant: 'big' });
    });

    it('drops an object of a tenant whose daily pages are used up, naming the limit', async () => {
      // Arrange
      const world = await aWorldWith([FREE_KEY]);
      await world.usage.reservePages(OTHER_TENANT, DAY, 25, 25, T0);
      // Act
      const [outcome] = await ingestObjects(world, created({ key: FREE_KEY }));
      // Assert
      expect(outcome).toEqual({
        status: 'dropped',
        reason:
          'the free plan of tenant "tenant-b" allows 25 pages per day and 25 are used today (UTC day 2025-03-04); write the object again after UTC midnight',
        key: FREE_KEY,
      });
      expect(world.workflow.inputs).toEqual([]);
    });
  });

  it('drops a key that is not valid URL encoding', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const outcomes = await ingestObjects(
      world,
      created({ key: `incoming/${TENANT}/%E0%A4%A.pdf` }),
    );
    // Assert
    expect(outcomes).toEqual([
      {
        status: 'dropped',
        reason: `the event's object key is not valid URL encoding: incoming/${TENANT}/%E0%A4%A.pdf`,
      },
    ]);
  });

  it('drops an object that no longer exists', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const outcomes = await ingestObjects(world, created({ key: KEY }));
    // Assert
    expect(outcomes).toEqual([
      { status: 'dropped', reason: 'the object no longer exists', key: KEY },
    ]);
    expect(world.workflow.inputs).toEqual([]);
  });

  it('drops an unsupported file type with the reason, creating no request', async () => {
    // Arrange
    const gif = new TextEncoder().encode('GIF89a\u0001\u0000\u0001\u0000');
    const world = await aWorldWith([KEY], gif);
    // Act
    const outcomes = await ingestObjects(world, created({ key: KEY }));
    // Assert
    expect(outcomes).toEqual([
      {
        status: 'dropped',
        reason: expect.stringMatching(
          /^unsupported file type: the content is GIF image/,
        ) as unknown,
        key: KEY,
      },
    ]);
    expect(world.workflow.inputs).toEqual([]);
    expect(world.objects.keys()).toEqual([KEY]);
  });

  it('drops an empty object', async () => {
    // Arrange
    const world = await aWorldWith([KEY], new Uint8Array(0));
    // Act
    const outcomes = await ingestObjects(world, created({ key: KEY, size: 0 }));
    // Assert
    expect(outcomes).toEqual([
      { status: 'dropped', reason: 'the uploaded file is empty (0 bytes)', key: KEY },
    ]);
  });

  it('drops an object the event says is above the upload limit, without reading it', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    const read = vi.spyOn(world.objects, 'get');
    const size = world.limits.maxUploadBytes + 1;
    // Act
    const outcomes = await ingestObjects(world, created({ key: KEY, size }));
    // Assert
    expect(outcomes).toEqual([
      {
        status: 'dropped',
        reason: `the object is ${size} bytes; the maximum upload size is ${world.limits.maxUploadBytes} bytes`,
        key: KEY,
      },
    ]);
    expect(read).not.toHaveBeenCalled();
  });

  it('ignores the test event S3 sends when the notification is set up', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const outcomes = await ingestObjects(world, anS3TestEvent());
    // Assert
    expect(outcomes).toEqual([
      { status: 'ignored', reason: 's3:TestEvent (sent when the notification is set up)' },
    ]);
  });

  it('ignores events other than object creation', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    // Act
    const outcomes = await ingestObjects(
      world,
      anS3Notification(anS3EventRecord({ key: KEY }, { eventName: 'ObjectRemoved:Delete' })),
    );
    // Assert
    expect(outcomes).toEqual([
      { status: 'ignored', reason: 'ObjectRemoved:Delete events start no parse' },
    ]);
    expect(world.workflow.inputs).toEqual([]);
  });

  it.each([
    ['a body that is not JSON', '{"Records": [', 'the message body is not JSON'],
    [
      'JSON that is not a notification',
      '{"hello":"world"}',
      'the message is not an S3 event notification',
    ],
    [
      'a record that is not an S3 object event',
      anS3Notification({ eventSource: 'aws:sqs', body: '{}' }),
      'an event record is not an S3 object event',
    ],
  ])('drops %s', async (_, body, reason) => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const outcomes = await ingestObjects(world, body);
    // Assert
    expect(outcomes).toEqual([{ status: 'dropped', reason }]);
  });

  it('throws a store failure, so the message is delivered again', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    vi.spyOn(world.objects, 'get').mockRejectedValueOnce(new Error('SlowDown'));
    // Act
    const outcome = ingestObjects(world, created({ key: KEY }));
    // Assert
    await expect(outcome).rejects.toThrow('SlowDown');
    expect(world.workflow.inputs).toEqual([]);
  });

  it('throws a failure to create the request that is not a duplicate', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    vi.spyOn(world.requests, 'create').mockRejectedValueOnce(
      new Error('ProvisionedThroughputExceeded'),
    );
    // Act
    const outcome = ingestObjects(world, created({ key: KEY }));
    // Assert
    await expect(outcome).rejects.toThrow('ProvisionedThroughputExceeded');
  });

  it('throws a conflict on create that finds no request, so the message is delivered again', async () => {
    // Arrange
    const world = await aWorldWith([KEY]);
    vi.spyOn(world.requests, 'create').mockRejectedValueOnce(new ConflictError('exists'));
    // Act
    const outcome = ingestObjects(world, created({ key: KEY }));
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ConflictError);
    expect(world.workflow.inputs).toEqual([]);
  });
});

describe('submitUpload with an explicit request id', () => {
  const upload = {
    tenant: TENANT,
    bytes: TINY_PDF,
    filename: 'a.pdf',
    options: DEFAULT_PARSE_OPTIONS,
  };

  it('creates the request under that id', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const record = await submitUpload(world, upload, { requestId: 'req_fixed1' });
    // Assert
    expect(record.id).toBe('req_fixed1');
    expect(record.document.key).toBe(workKeys.upload('req_fixed1'));
  });

  it('rejects an id that is not req_ and letters or digits', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const result = submitUpload(world, upload, { requestId: 'req_../x' });
    // Assert
    await expect(result).rejects.toThrow('not a request id: req_../x');
    expect(world.objects.keys()).toEqual([]);
  });
});

describe('DEFAULT_PARSE_OPTIONS', () => {
  it('are the defaults of the upload form and query', () => {
    // Act
    // The form's extraction_schema is not an option: it is stored apart, with the request; nor
    // is invalidate_cache, which only decides whether the result cache may answer.
    const {
      extraction_schema: schema,
      invalidate_cache: invalidateCache,
      ...form
    } = UploadForm.parse({});
    const defaults = { ...form, ...UploadQuery.parse({}) };
    // Assert
    expect(DEFAULT_PARSE_OPTIONS).toEqual(defaults);
    expect(schema).toBeNull();
    expect(invalidateCache).toBe(false);
  });
});

describe('isTenantId', () => {
  it.each(['tenant-a', 'Acme_Corp.eu', 'a', '0', 'a..b'])('accepts %s', (tenant) => {
    expect(isTenantId(tenant)).toBe(true);
  });

  it.each(['', '.', '..', 'ten ant', 'a/b', 'é', 'a:b'])('rejects %j', (tenant) => {
    expect(isTenantId(tenant)).toBe(false);
  });
});
