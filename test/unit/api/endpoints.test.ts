import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { endpointList, type Endpoint } from '../../../functions/api/endpoints.js';
import type { ApiHandler } from '../../../functions/api/streaming.js';
import type { Deps } from '../../../functions/container.js';
import { OBJECT_PREFIXES } from '../../../functions/core/domain/object-keys.js';
import { invokeBuffered } from '../../support/invoke-buffered.js';
import { anApiEvent, fakeDeps, lambdaContext } from '../../support/builders.js';

/** The fields every endpoint served by one handler module (one Lambda function) shares. */
const sharedByModule = (endpoint: Endpoint) => ({
  auth: endpoint.auth,
  streaming: endpoint.streaming,
  shortLived: endpoint.shortLived ?? false,
  access: endpoint.access,
});

/** The endpoint's path with each `{param}` filled in, and its path parameters. */
function concretePath(endpoint: Endpoint): { path: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const path = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    params[name] = 'unknown';
    return 'unknown';
  });
  return { path, params };
}

describe('the endpoint records', () => {
  it('agree on auth, streaming and access wherever two endpoints share a handler module', () => {
    // Arrange
    const byEntry = Map.groupBy(endpointList, (endpoint) => endpoint.entry);
    // Act
    const shared = [...byEntry.values()].filter((group) => group.length > 1);
    // Assert: /health and /v1/health, /docs and /docs/{asset} at least.
    expect(shared.map((group) => group.map((e) => e.path))).toEqual(
      expect.arrayContaining([
        ['/v1/health', '/health'],
        ['/docs', '/docs/{asset}'],
      ]),
    );
    for (const [first, ...others] of shared) {
      for (const other of others) {
        expect(sharedByModule(other), `${other.path} vs ${String(first?.path)}`).toEqual(
          sharedByModule(first as Endpoint),
        );
      }
    }
  });

  it('let only the probes and the API reference answer without an API key (spec §5)', () => {
    // Act
    const open = endpointList.filter((endpoint) => !endpoint.auth).map((e) => e.path);
    // Assert
    expect(open).toEqual([
      '/v1/live',
      '/v1/health',
      '/health',
      '/v1/openapi.json',
      '/docs',
      '/docs/{asset}',
    ]);
  });

  it('grant object access only under prefixes of the key layout', () => {
    // Arrange
    const layout = new Set<string>(Object.values(OBJECT_PREFIXES));
    // Act
    const granted = endpointList.flatMap((endpoint) => [
      ...(endpoint.access.objects?.read ?? []),
      ...(endpoint.access.objects?.write ?? []),
    ]);
    // Assert
    expect(granted.length).toBeGreaterThan(0);
    for (const prefix of granted) expect(layout).toContain(prefix);
  });
});

describe.each(endpointList.map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint]))(
  'the handler of %s',
  (_, endpoint) => {
    it('answers 401 without an API key exactly when its record requires one', async () => {
      // Arrange
      const deps = await fakeDeps();
      const file = join(import.meta.dirname, '../../../functions/api', endpoint.entry);
      const module = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as {
        createHandler: (getDeps: () => Promise<Deps>) => unknown;
      };
      const handler = module.createHandler(() => Promise.resolve(deps)) as ApiHandler;
      const { path, params } = concretePath(endpoint);
      // Act
      const result = await invokeBuffered(
        handler,
        anApiEvent({ httpMethod: endpoint.method, path, pathParameters: params, headers: {} }),
        lambdaContext(endpoint.operationId),
      );
      // Assert
      if (endpoint.auth) expect(result.statusCode).toBe(401);
      else expect(result.statusCode).not.toBe(401);
    });
  },
);
