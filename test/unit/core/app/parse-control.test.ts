import { describe, expect, it } from 'vitest';
import { cancelParse, resumeParse } from '../../../../functions/core/app/parse-control.js';
import { parseUpload } from '../../../../functions/core/app/parse-upload.js';
import {
  NotFoundError,
  ProviderUnavailableError,
} from '../../../../functions/core/domain/errors.js';
import { ingest } from '../../../../functions/core/domain/pipeline/ingest.js';
import { DEFAULT_PARSE_OPTIONS } from '../../../../functions/core/domain/request.js';
import {
  FakeDocumentEngine,
  FakePageProvider,
  OTHER_TENANT,
  TENANT,
  TINY_PDF,
  aProviderResult,
  aStoredRequest,
  anAppWorld,
  progressTo,
  scannedPageFeatures,
  type AppWorld,
} from '../../../support/builders.js';

/**
 * An app world over a 6-page scan whose OCR provider fails on page 4 until `heal()`: the
 * first parse fails after checkpointing pages 1 to 3 (the state machine's Map runs one page at a
 * time here), as a parse interrupted midway would leave it.
 */
async function interruptedWorld() {
  let broken = true;
  const ocr = new FakePageProvider('ocr', (request) => {
    if (broken && request.pageNumber === 4) {
      throw new ProviderUnavailableError('the model server went away');
    }
    return aProviderResult({ markdown: `# Page ${request.pageNumber}` });
  });
  const world = await anAppWorld({
    engine: new FakeDocumentEngine({ pageCount: 6, features: scannedPageFeatures }),
    ocrProvider: ocr,
    pageConcurrency: 1,
  });
  return {
    world,
    ocr,
    heal: () => {
      broken = false;
    },
  };
}

async function submitAndFail(world: AppWorld): Promise<string> {
  const failed = await parseUpload(world, {
    tenant: TENANT,
    bytes: TINY_PDF,
    filename: 'six.pdf',
    options: { ...DEFAULT_PARSE_OPTIONS, enable_verification: false },
  }).catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(Error);
  const [record] = await Promise.all([world.requests.get('req_id0001')]);
  expect(record?.status).toBe('failed');
  return 'req_id0001';
}

describe('resumeParse', () => {
  it('re-runs only the pages without a checkpoint and returns the whole document', async () => {
    // Arrange
    const { world, ocr, heal } = await interruptedWorld();
    const id = await submitAndFail(world);
    const checkpointed = (await world.requests.listPages(id)).map((c) => c.pageNumber);
    heal();
    const callsBefore = ocr.calls.length;
    // Act
    const result = await resumeParse(world, TENANT, id, false);
    // Assert
    expect(checkpointed.length).toBeGreaterThan(0);
    const reparsed = ocr.calls.slice(callsBefore).map((c) => c.pageNumber);
    expect(reparsed.sort()).toEqual([1, 2, 3, 4, 5, 6].filter((n) => !checkpointed.includes(n)));
    expect(result.status).toBe('completed');
    expect(result.pages.map((p) => p.page_number)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await world.requests.get(id))?.status).toBe('completed');
  });

  it('gives 20 concurrent resumers one run and identical bodies', async () => {
    // Arrange
    const { world, ocr, heal } = await interruptedWorld();
    const id = await submitAndFail(world);
    heal();
    const callsBefore = ocr.calls.length;
    // Act
    const bodies = await Promise.all(
      Array.from({ length: 20 }, () => resumeParse(world, TENANT, id, false)),
    );
    // Assert
    const texts = new Set(bodies.map((b) => JSON.stringify(b)));
    expect(texts.size).toBe(1);
    const reparsed = ocr.calls.slice(callsBefore).map((c) => c.pageNumber);
    expect(new Set(reparsed).size).toBe(reparsed.length);
    expect((await world.requests.get(id))?.runs).toBe(1);
  });

  it('returns the stored result of a completed parse again, unchanged', async () => {
    // Arrange
    const world = await anAppWorld();
    const first = await parseUpload(world, {
      tenant: TENANT,
      bytes: TINY_PDF,
      filename: 'one.pdf',
      options: DEFAULT_PARSE_OPTIONS,
    });
    // Act
    const resumed = await resumeParse(world, TENANT, first.id, false);
    // Assert
    expect(resumed).toEqual(first);
  });

  it.each([
    ['an unknown id', TENANT, 'req_unknown'],
    ["another tenant's id", OTHER_TENANT, 'req_id0001'],
  ])('answers 404 for %s', async (_, tenant, id) => {
    // Arrange
    const { world } = await interruptedWorld();
    await submitAndFail(world);
    // Act
    const resuming = resumeParse(world, tenant, id, false);
    // Assert
    await expect(resuming).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers 404 for a parse without any checkpoint', async () => {
    // Arrange: every page fails, so none is checkpointed.
    const world = await anAppWorld({
      ocrProvider: new FakePageProvider('ocr', () => {
        throw new ProviderUnavailableError('down');
      }),
      engine: new FakeDocumentEngine({ pageCount: 2, features: scannedPageFeatures }),
    });
    const id = await submitAndFail(world);
    // Act
    const resuming = resumeParse(world, TENANT, id, false);
    // Assert
    await expect(resuming).rejects.toThrow(/no checkpoint/);
  });
});

describe('cancelParse', () => {
  it('gives the reserved pages back to the daily quota itself, whoever calls it', async () => {
    // Arrange: Ingest has reserved the 4 pages of a free-plan request; no page was parsed.
    const world = await anAppWorld({ engine: new FakeDocumentEngine({ pageCount: 4 }) });
    const record = await aStoredRequest(world, { plan: 'free' });
    await ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
    const day = (await world.requests.get(record.id))?.reservedPages?.day ?? '';
    expect(await world.usage.pagesUsed(TENANT, day)).toBe(4);
    // Act
    await cancelParse(world, TENANT, record.id);
    // Assert
    expect(await world.usage.pagesUsed(TENANT, day)).toBe(0);
    expect((await world.requests.get(record.id))?.reservedPages).toBeUndefined();
  });

  it('cancels a queued parse, deletes its checkpoints, and later resume and cancel answer 404', async () => {
    // Arrange
    const world = await anAppWorld();
    const { submitUpload } = await import('../../../../functions/core/app/parse-upload.js');
    const record = await submitUpload(world, {
      tenant: TENANT,
      bytes: TINY_PDF,
      filename: 'x.pdf',
      options: DEFAULT_PARSE_OPTIONS,
    });
    await world.requests.putPage(record.id, { pageNumber: 1 });
    // Act
    const receipt = await cancelParse(world, TENANT, record.id);
    // Assert
    expect(receipt).toEqual({
      request_id: record.id,
      status: 'cancelled',
      detail: expect.any(String) as unknown,
    });
    expect(Object.values(receipt).every((v) => typeof v === 'string')).toBe(true);
    expect((await world.requests.get(record.id))?.status).toBe('cancelled');
    expect(await world.requests.listPages(record.id)).toEqual([]);
    await expect(resumeParse(world, TENANT, record.id, false)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(cancelParse(world, TENANT, record.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers 404 for a completed parse, an unknown id and another tenant, changing nothing', async () => {
    // Arrange
    const world = await anAppWorld();
    const done = await parseUpload(world, {
      tenant: TENANT,
      bytes: TINY_PDF,
      filename: 'one.pdf',
      options: DEFAULT_PARSE_OPTIONS,
    });
    // Act
    const outcomes = await Promise.allSettled([
      cancelParse(world, TENANT, done.id),
      cancelParse(world, TENANT, 'req_nothing'),
      cancelParse(world, OTHER_TENANT, done.id),
    ]);
    // Assert
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(NotFoundError);
    }
    expect((await world.requests.get(done.id))?.status).toBe('completed');
  });

  it('stops the run: a cancel during page parsing leaves no further provider call and no result', async () => {
    // Arrange: the provider cancels the parse while parsing page 2 of 5.
    const holder: { world?: AppWorld } = {};
    const ocr = new FakePageProvider('ocr', async (request) => {
      if (request.pageNumber === 2 && holder.world) {
        await cancelParse(holder.world, TENANT, 'req_id0001');
      }
      return aProviderResult({ markdown: `page ${request.pageNumber}` });
    });
    const world = await anAppWorld({
      engine: new FakeDocumentEngine({ pageCount: 5, features: scannedPageFeatures }),
      ocrProvider: ocr,
      pageConcurrency: 1,
    });
    holder.world = world;
    // Act
    const parsing = await parseUpload(world, {
      tenant: TENANT,
      bytes: TINY_PDF,
      filename: 'five.pdf',
      options: { ...DEFAULT_PARSE_OPTIONS, enable_verification: false },
    }).catch((error: unknown) => error);
    // Assert
    expect(parsing).toMatchObject({ name: 'ParseCancelledError' });
    expect(ocr.calls.map((c) => c.pageNumber)).toEqual([1, 2]);
    const record = await world.requests.get('req_id0001');
    expect(record?.status).toBe('cancelled');
    expect(record?.resultKey).toBeUndefined();
    expect(await world.requests.listPages('req_id0001')).toEqual([]);
  });
});
