import { describe, expect, it } from 'vitest';
import { notFound } from '../../../functions/api/http-handler.js';
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
