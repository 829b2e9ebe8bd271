import { describe, expect, it } from 'vitest';
import { recordFailure } from '../../../../functions/core/domain/pipeline/record-failure.js';
import { aPipeline, aStoredRequest } from '../../../support/builders.js';

describe('recordFailure after a stage timeout', () => {
  it('records a local States.Timeout as unavailable with a detail saying what ran out', async () => {
    // Arrange: aws-local-stepfunctions gives the timeout its own name as the cause.
    const world = aPipeline();
    const record = await aStoredRequest(world);
    // Act
    await recordFailure(
      { requestId: record.id, failure: { Error: 'States.Timeout', Cause: 'States.Timeout' } },
      world,
    );
    // Assert
    const error = (await world.requests.get(record.id))?.error;
    expect(error?.kind).toBe('unavailable');
    expect(error?.message).toMatch(/took longer than a pipeline stage may take/);
  });
});
