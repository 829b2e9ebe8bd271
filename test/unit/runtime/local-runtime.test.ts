import { describe, expect, it } from 'vitest';
import { routes } from '../../../functions/api/routes.js';
import { handlerFactory, QUEUE_CONSUMERS } from '../../../functions/local-runtime.js';
import { stages } from '../../../functions/pipeline/stages.js';

describe('the local runtime', () => {
  it('finds the handler factory of every Task state of stages.ts in the module the CDK deploys', async () => {
    // Arrange
    const { createHandler } = await import('../../../functions/pipeline/parse-page.handler.js');
    // Act
    const factories = await Promise.all(
      stages.map(({ entry }) => handlerFactory('pipeline', entry)),
    );
    // Assert
    expect(factories.every((f) => typeof f === 'function')).toBe(true);
    expect(factories[stages.findIndex((s) => s.state === 'ParsePage')]).toBe(createHandler);
  });

  it('finds the handler factory of every route entry in its handler module', async () => {
    // Arrange
    const { createHandler } = await import('../../../functions/api/get-parse.handler.js');
    const entries = [...new Set(routes.map((route) => route.entry))];
    // Act
    const factories = await Promise.all(entries.map((entry) => handlerFactory('api', entry)));
    // Assert
    expect(factories.every((f) => typeof f === 'function')).toBe(true);
    expect(factories[entries.indexOf('get-parse.handler.ts')]).toBe(createHandler);
  });

  it('consumes the webhook and batch queues with their consumers’ modules', async () => {
    // Arrange
    const webhooks = await import('../../../functions/pipeline/webhook-delivery.handler.js');
    const batchItems = await import('../../../functions/pipeline/batch-item.handler.js');
    // Act
    const bound = await Promise.all(
      QUEUE_CONSUMERS.map(async (c) => [c.queue, await handlerFactory('pipeline', c.entry)]),
    );
    // Assert
    expect(bound).toEqual([
      ['webhooks', webhooks.createHandler],
      ['batchItems', batchItems.createHandler],
    ]);
  });

  it('names the module when a record points at one without a handler factory', async () => {
    // Act / Assert
    await expect(handlerFactory('pipeline', 'stages.ts')).rejects.toThrow(
      /pipeline\/stages\.ts exports no createHandler/,
    );
  });
});
