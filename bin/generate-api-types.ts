import { writeFile } from 'node:fs/promises';
import { API_TYPES_FILE, generateApiTypes } from './api-types-generator.js';

/** `npm run generate:api-types`: writes bin/api-types.ts from the API's OpenAPI document. */

await writeFile(API_TYPES_FILE, await generateApiTypes());
process.stdout.write(`wrote ${API_TYPES_FILE}\n`);
