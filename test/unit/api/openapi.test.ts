import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../functions/api/openapi.js';

/**
 * The document GET /v1/openapi.json serves, built by the handler's own function, checked by
 * Redocly's `recommended` ruleset (the rules a client generator or portal expects to hold).
 */

/** A base URL as the handler computes it on AWS (the handler always passes one). */
const DEPLOYED_URL = 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod';

/** Every problem `recommended` reports, errors and warnings alike. */
async function lint(document: unknown): Promise<NormalizedProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  return lintFromString({
    source: JSON.stringify(document),
    absoluteRef: 'openapi.json',
    config,
  });
}

/** One line per problem: severity, rule id, JSON pointer and message. */
const describeProblems = (problems: NormalizedProblem[]): string =>
  problems
    .map(
      (p) =>
        `${p.severity} ${p.ruleId} ${p.location.map((l) => l.pointer ?? '?').join(', ')}: ${p.message}`,
    )
    .join('\n');

describe("GET /v1/openapi.json under Redocly's recommended lint rules", () => {
  it('has no lint problems, served with the base URL of a deployment', async () => {
    // Act
    const problems = await lint(openApiDocument(DEPLOYED_URL));
    // Assert
    expect(problems, describeProblems(problems)).toEqual([]);
  });

  it('warns only of the localhost server URL, served by a local server', async () => {
    // Act
    const problems = await lint(openApiDocument('http://localhost:8080'));
    // Assert
    expect(
      problems.map((p) => p.ruleId),
      describeProblems(problems),
    ).toEqual(['no-server-example.com']);
  });
});

describe('openApiDocument (GET /v1/openapi.json)', () => {
  it('declares the open operations as needing no credentials, and the others the API key', () => {
    // Act
    const { paths } = openApiDocument();
    // Assert
    const security = (path: string, method: string) =>
      (paths[path]?.[method] as { security?: unknown }).security;
    for (const path of ['/v1/live', '/v1/health', '/health', '/v1/openapi.json', '/docs']) {
      expect(security(path, 'get'), path).toEqual([]);
    }
    expect(security('/docs/{asset}', 'get')).toEqual([]);
    expect(security('/v1/parse/upload', 'post')).toEqual([{ ApiKeyAuth: [] }]);
  });

  it('documents a 429 for every operation: the throttles of a deployment where no key is needed', () => {
    // Act
    const { paths } = openApiDocument();
    // Assert
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const { security, responses } = operation as {
          security: unknown[];
          responses: Record<string, { content: Record<string, { schema: unknown }> }>;
        };
        const schema = responses['429']?.content['application/json']?.schema;
        expect(schema, `${method} ${path}`).toEqual({
          $ref:
            security.length === 0
              ? '#/components/schemas/ThrottledBody'
              : '#/components/schemas/ErrorBody',
        });
      }
    }
  });

  it('names the Apache-2.0 license', () => {
    // Act
    const { info } = openApiDocument();
    // Assert
    expect(info.license).toEqual({ name: 'Apache License 2.0', identifier: 'Apache-2.0' });
  });

  it('documents each tier of pages_by_tier as a property', () => {
    // Act
    const { components } = openApiDocument();
    // Assert
    const usage = (components.schemas.ParseResponse as { properties: Record<string, unknown> })
      .properties.usage as { properties: Record<string, Record<string, unknown>> };
    const pagesByTier = usage.properties.pages_by_tier;
    expect(pagesByTier).toMatchObject({
      required: ['fast', 'pro', 'premium'],
      properties: {
        fast: { type: 'integer', minimum: 0 },
        pro: { type: 'integer', minimum: 0 },
        premium: { type: 'integer', minimum: 0 },
      },
    });
  });
});
