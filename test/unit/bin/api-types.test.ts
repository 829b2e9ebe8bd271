import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, generateApiTypes } from '../../../bin/api-types-generator.js';

describe('bin/api-types.ts', () => {
  it('is what openapi-typescript generates from the OpenAPI document the API serves', async () => {
    // Arrange
    const committed = await readFile(API_TYPES_FILE, 'utf8');
    // Act
    const generated = await generateApiTypes();
    // Assert
    expect(generated, 'stale: run `npm run generate:api-types` and commit the file').toBe(
      committed,
    );
  });
});
