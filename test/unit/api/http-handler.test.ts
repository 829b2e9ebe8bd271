import { describe, expect, expectTypeOf, it } from 'vitest';
import { httpHandler, notFound } from '../../../functions/api/http-handler.js';
import type { ApiHandler } from '../../../functions/api/streaming.js';
import type { ApiKeyRecord } from '../../../functions/core/ports/api-key-store.js';
import { invokeBuffered } from '../../support/invoke-buffered.js';
import { TENANT, aGetEvent, fakeDeps, lambdaContext } from '../../support/builders.js';
import {
  formBoolean,
  formNullableBoolean,
  formNullableInt,
} from '../../../functions/api/request-schemas.js';

describe('form value parsers', () => {
  it.each([
    ['true', true],
    ['FALSE', false],
    [' 1 ', true],
    ['0', false],
    ['yes', true],
    ['off', false],
  ])('reads the boolean %j as %s', (raw, expected) => {
    // Act
    const value = formBoolean.parse(raw);
    // Assert
    expect(value).toBe(expected);
  });

  it('fails on a boolean it does not know', () => {
    // Act
    const result = formBoolean.safeParse('maybe');
    // Assert
    expect(result.success).toBe(false);
  });

  it.each([
    ['', null],
    ['null', null],
    ['auto', null],
    ['true', true],
    ['no', false],
  ])('reads the nullable boolean %j as %s', (raw, expected) => {
    // Act
    const value = formNullableBoolean.parse(raw);
    // Assert
    expect(value).toBe(expected);
  });

  it('fails on a nullable boolean it does not know', () => {
    // Act
    const result = formNullableBoolean.safeParse('sometimes');
    // Assert
    expect(result.success).toBe(false);
  });

  it.each([
    ['', null],
    ['NULL', null],
    ['72', 72],
    ['+600', 600],
  ])('reads the nullable integer %j as %s', (raw, expected) => {
    // Act
    const value = formNullableInt(36, 600).parse(raw);
    // Assert
    expect(value).toBe(expected);
  });

  it.each(['abc', '1.5', '1e3', '35', '601'])('fails on the integer %j', (raw) => {
    // Act
    const result = formNullableInt(36, 600).safeParse(raw);
    // Assert
    expect(result.success).toBe(false);
  });
});

describe('notFound', () => {
  it('answers 404 with a detail body', () => {
    // Act
    const response = notFound('no route');
    // Assert
    expect(response).toEqual({
      statusCode: 404,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ detail: 'no route' }),
    });
  });
});

describe('httpHandler callers', () => {
  it('gives the handler of an authenticated endpoint its caller, typed as always set', async () => {
    // Arrange
    const deps = await fakeDeps();
    const seen: string[] = [];
    const handler = httpHandler(
      () => Promise.resolve(deps),
      { auth: true, streaming: false },
      ({ caller }) => {
        expectTypeOf(caller).toEqualTypeOf<ApiKeyRecord>();
        seen.push(caller.tenant);
        return Promise.resolve({ statusCode: 200, body: {} });
      },
    );
    // Act
    const result = await invokeBuffered(
      handler as ApiHandler,
      aGetEvent('/v1/anything'),
      lambdaContext('caller'),
    );
    // Assert
    expect(result.statusCode).toBe(200);
    expect(seen).toEqual([TENANT]);
  });

  it('gives the handler of a public endpoint no caller, even with an API key', async () => {
    // Arrange
    const deps = await fakeDeps();
    const seen: unknown[] = [];
    const handler = httpHandler(
      () => Promise.resolve(deps),
      { auth: false, streaming: false },
      ({ caller }) => {
        expectTypeOf(caller).toEqualTypeOf<undefined>();
        seen.push(caller);
        return Promise.resolve({ statusCode: 200, body: {} });
      },
    );
    // Act
    await invokeBuffered(handler as ApiHandler, aGetEvent('/v1/anything'), lambdaContext('public'));
    // Assert
    expect(seen).toEqual([undefined]);
  });
});
