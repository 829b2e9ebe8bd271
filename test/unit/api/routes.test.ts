import { describe, expect, it } from 'vitest';
import { matchRoute, routes } from '../../../functions/api/routes.js';
import { existsSync } from 'node:fs';

describe('matchRoute', () => {
  it('matches a static route', () => {
    // Act
    const match = matchRoute('POST', '/v1/parse/upload');
    // Assert
    expect(match).toMatchObject({ route: { entry: 'parse-upload.handler.ts' }, params: {} });
  });

  it('routes upload slot creation, but not the form upload that S3 (or the local server) takes', () => {
    // Act
    const create = matchRoute('POST', '/v1/uploads');
    const formUpload = matchRoute('POST', '/v1/uploads/upl_abcdefghijklmnopqrstuvwx');
    // Assert
    expect(create).toMatchObject({
      route: { entry: 'create-upload.handler.ts', streaming: false },
    });
    expect(formUpload).toBeUndefined();
  });

  it('extracts and decodes path parameters', () => {
    // Act
    const match = matchRoute('GET', '/v1/parse/req%5Fabc');
    // Assert
    expect(match).toMatchObject({
      route: { entry: 'get-parse.handler.ts' },
      params: { request_id: 'req_abc' },
    });
  });

  it('accepts a trailing slash', () => {
    // Act
    const match = matchRoute('GET', '/v1/live/');
    // Assert
    expect(match).toMatchObject({ route: { entry: 'live.handler.ts' } });
  });

  it('serves both health paths with the same handler', () => {
    // Act
    const v1 = matchRoute('GET', '/v1/health');
    const alias = matchRoute('GET', '/health');
    // Assert
    expect(v1).toMatchObject({ route: { entry: 'health.handler.ts' } });
    expect(alias).toMatchObject({ route: { entry: 'health.handler.ts' } });
  });

  it("returns 'method' for a known path with another method", () => {
    // Act
    const match = matchRoute('DELETE', '/v1/live');
    // Assert
    expect(match).toBe('method');
  });

  it('returns undefined for an unknown path', () => {
    // Act
    const match = matchRoute('GET', '/v2/live');
    // Assert
    expect(match).toBeUndefined();
  });

  it('does not match a parameter across path segments', () => {
    // Act
    const match = matchRoute('GET', '/v1/parse/a/b');
    // Assert
    expect(match).toBeUndefined();
  });

  it('names an existing handler module for every route', () => {
    // Assert
    for (const route of routes) {
      expect(existsSync(new URL(`../../../functions/api/${route.entry}`, import.meta.url))).toBe(
        true,
      );
    }
  });
});
