import { describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '../../../functions/core/domain/errors.js';
import { HttpVisionProvider } from '../../../functions/providers/remote-provider.js';
import { fakeRasterizer } from '../../support/fake-api-server.js';

/** A vision adapter whose SDK call is `send`: what {@link HttpVisionProvider.call} makes of it. */
class Adapter extends HttpVisionProvider {
  run<T>(send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.call(send);
  }
}

const adapter = (timeoutMs: number) =>
  new Adapter(
    {
      id: 'vendor',
      model: 'm',
      baseUrl: 'http://127.0.0.1:9',
      timeoutMs,
      maxRetries: 0,
      maxOutputTokens: 100,
      defaultDpi: 144,
    },
    fakeRasterizer(),
  );

describe('the whole-call deadline of a vision adapter', () => {
  it('fails the call at the deadline even when the SDK call does not heed the signal', async () => {
    // Arrange: an answer after 1 s from a call that never looks at the signal (as a fetch whose
    // Request lost its link to the deadline).
    const late = () =>
      new Promise<string>((resolve) => {
        setTimeout(() => {
          resolve('late');
        }, 1_000);
      });
    const started = performance.now();
    // Act
    const outcome = adapter(100).run(late);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/no answer within 100 ms/);
    expect(performance.now() - started).toBeLessThan(900);
  });

  it('returns what the SDK call answers before the deadline', async () => {
    // Act
    const answer = await adapter(1_000).run(() => Promise.resolve('in time'));
    // Assert
    expect(answer).toBe('in time');
  });
});
