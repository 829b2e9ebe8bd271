import { describe, expect, it } from 'vitest';
import { routes } from '../../../functions/api/routes.js';
import {
  QUEUE_CONSUMERS,
  ROUTE_HANDLERS,
  STAGE_HANDLERS,
} from '../../../functions/local-runtime.js';
import { stages } from '../../../functions/pipeline/stages.js';

/** The `createHandler` export of a handler module named by its entry file under `dir`. */
async function factoryOf(dir: 'api' | 'pipeline', entry: string): Promise<unknown> {
  const module = (await import(`../../../functions/${dir}/${entry.replace(/\.ts$/, '.js')}`)) as {
    createHandler: unknown;
  };
  return module.createHandler;
}

describe('the local runtime tables', () => {
  it('bind each Task state of stages.ts to the factory of the module the CDK deploys for it', async () => {
    // Arrange
    const expected = Object.fromEntries(
      await Promise.all(
        stages.map(async ({ state, entry }): Promise<[string, unknown]> => [
          state,
          await factoryOf('pipeline', entry),
        ]),
      ),
    );
    // Act
    const bound = { ...STAGE_HANDLERS };
    // Assert
    expect(bound).toEqual(expected);
  });

  it('bind each route entry of routes.ts to the factory of its handler module', async () => {
    // Arrange
    const entries = [...new Set(routes.map((route) => route.entry))];
    const expected = Object.fromEntries(
      await Promise.all(
        entries.map(async (entry): Promise<[string, unknown]> => [
          entry,
          await factoryOf('api', entry),
        ]),
      ),
    );
    // Act
    const bound = { ...ROUTE_HANDLERS };
    // Assert
    expect(bound).toEqual(expected);
  });

  it('consume the webhook and batch queues with their consumers’ factories', async () => {
    // Arrange
    const expected = [
      ['webhooks', await factoryOf('pipeline', 'webhook-delivery.handler.ts')],
      ['batchItems', await factoryOf('pipeline', 'batch-item.handler.ts')],
    ];
    // Act
    const bound = QUEUE_CONSUMERS.map((c) => [c.queue, c.createHandler]);
    // Assert
    expect(bound).toEqual(expected);
  });
});
