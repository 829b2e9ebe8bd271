import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProvidersFile } from '../../../functions/providers/provider-config.js';

/** docs/providers.md shows the configurations of config/ and the file's schema: both stay true. */

const read = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8');

const DOC = read('docs/providers.md');

/** Each ```json block of the doc with the `config/…` file named on the line before it. */
function shownFiles(): { file: string; json: unknown }[] {
  const blocks = [...DOC.matchAll(/`(config\/[\w.-]+\.json)`:\n\n```json\n([\s\S]*?)\n```/g)];
  return blocks.map(([, file, json]) => ({
    file: file ?? '',
    json: JSON.parse(json ?? '') as unknown,
  }));
}

/** Every property name of a JSON Schema, at any depth. */
function propertyNames(schema: unknown, names = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema as unknown[]) propertyNames(item, names);
  } else if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
      if (key === 'properties' && typeof value === 'object' && value !== null) {
        for (const name of Object.keys(value)) names.add(name);
      }
      propertyNames(value, names);
    }
  }
  return names;
}

describe('docs/providers.md', () => {
  it('shows the three example configurations exactly as config/ holds them', () => {
    // Act
    const shown = shownFiles();
    // Assert
    expect(shown.map((s) => s.file)).toEqual([
      'config/providers.openai-compatible.json',
      'config/providers.anthropic.json',
      'config/providers.example.json',
    ]);
    for (const { file, json } of shown) expect(json).toEqual(JSON.parse(read(file)));
  });

  it('names every field of the provider configuration schema in its outline of the file', () => {
    // Arrange
    const outline = /## The file\n[\s\S]*?```ts\n([\s\S]*?)\n```/.exec(DOC)?.[1] ?? '';
    const schema = z.toJSONSchema(ProvidersFile, { io: 'input', unrepresentable: 'any' });
    // Act
    const missing = [...propertyNames(schema)].filter(
      (name) => !new RegExp(`(?<![\\w$])${name.replace('$', '\\$')}\\??(?=[:,\\s}])`).test(outline),
    );
    // Assert
    expect(outline).not.toBe('');
    expect(missing).toEqual([]);
  });

  it('lists every provider kind', () => {
    // Arrange
    const kinds = ProvidersFile.shape.providers.valueType.options.flatMap(
      (option) => option.shape.kind.options,
    );
    // Assert
    for (const kind of kinds) expect(DOC).toContain(`\`${kind}\``);
  });
});
