import { describe, expect, it } from 'vitest';
import { recordFailure } from '../../../../functions/core/domain/pipeline/record-failure.js';
import { T0, aPipeline, aStoredRequest } from '../../../support/builders.js';

describe('recordFailure', () => {
  it.each([
    ['DocumentRejectedError', 'unprocessable'],
    ['UnsupportedDocumentError', 'invalid'],
    ['BadRequestError', 'invalid'],
    ['PayloadTooLargeError', 'too_large'],
    ['NotFoundError', 'not_found'],
    ['ProviderUnavailableError', 'unavailable'],
    ['States.TaskFailed', 'internal'],
    ['TypeError', 'internal'],
  ])('records %s as kind %s', async (name, kind) => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world);
    // Act
    await recordFailure({ requestId: record.id, failure: { Error: name, Cause: 'why' } }, world);
    // Assert
    expect((await world.requests.get(record.id))?.error).toEqual({ name, kind, message: 'why' });
  });

  it.each(['DocumentRejectedError', 'UnsupportedDocumentError', 'PayloadTooLargeError'])(
    'deletes the stored original of a document refused with %s',
    async (name) => {
      // Arrange
      const world = aPipeline();
      const record = await aStoredRequest(world);
      // Act
      await recordFailure({ requestId: record.id, failure: { Error: name, Cause: 'no' } }, world);
      // Assert
      expect(await world.objects.exists(record.document.key)).toBe(false);
    },
  );

  it('keeps the original of a document refused after a page finished, for a resume', async () => {
    // Arrange: page 1 has its checkpoint; page 2 ran past the per-page budget.
    const world = aPipeline();
    const record = await aStoredRequest(world);
    await world.requests.putPage(record.id, { pageNumber: 1 });
    // Act
    await recordFailure(
      {
        requestId: record.id,
        failure: { Error: 'DocumentRejectedError', Cause: 'page 2 took longer' },
      },
      world,
    );
    // Assert
    expect(await world.objects.exists(record.document.key)).toBe(true);
  });

  it.each(['ProviderUnavailableError', 'States.Timeout', 'ParseInterruptedError'])(
    'keeps the original after %s, so that the parse can be resumed',
    async (name) => {
      // Arrange
      const world = aPipeline();
      const record = await aStoredRequest(world);
      // Act
      await recordFailure(
        { requestId: record.id, failure: { Error: name, Cause: 'later' } },
        world,
      );
      // Assert
      expect(await world.objects.exists(record.document.key)).toBe(true);
    },
  );

  it('marks the request failed and returns the error for the Fail state', async () => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world);
    world.clock.advance(2000);
    // Act
    const output = await recordFailure(
      { requestId: record.id, failure: { Error: 'DocumentRejectedError', Cause: 'no pages' } },
      world,
    );
    // Assert
    expect(output).toEqual({
      requestId: record.id,
      error: 'DocumentRejectedError',
      cause: 'no pages',
    });
    const stored = await world.requests.get(record.id);
    expect(stored?.status).toBe('failed');
    expect(stored?.updatedAt).toBe(new Date(T0.getTime() + 2000).toISOString());
  });

  it('reads the message out of a Lambda error cause', async () => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world);
    const cause = JSON.stringify({
      errorType: 'DocumentRejectedError',
      errorMessage: 'too many pages',
    });
    // Act
    const output = await recordFailure(
      { requestId: record.id, failure: { Error: 'DocumentRejectedError', Cause: cause } },
      world,
    );
    // Assert
    expect(output.cause).toBe('too many pages');
  });

  it('keeps a JSON cause without an error message as it is', async () => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world);
    // Act
    const output = await recordFailure(
      { requestId: record.id, failure: { Error: 'States.Runtime', Cause: '{"x":1}' } },
      world,
    );
    // Assert
    expect(output.cause).toBe('{"x":1}');
  });

  it('says the pipeline failed when there is no cause', async () => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world);
    // Act
    const output = await recordFailure(
      { requestId: record.id, failure: { Error: 'States.Timeout' } },
      world,
    );
    // Assert
    expect(output.cause).toBe('the pipeline failed');
  });
});
