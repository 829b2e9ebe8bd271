import type { JsonSchemaObject } from '../../ports/structured-extractor.js';

/**
 * The shapes of an `extraction_schema`'s nodes as the offline extractor reads them: local `$ref`s
 * followed, `allOf` merged, nullable `anyOf`/`oneOf` folded into the node they make nullable, the
 * JSON types declared or implied. Also the count of the properties the extractor searches with a
 * schema, which request validation bounds ({@link countSearchedProperties}).
 */

/** A JSON object: a schema node or a map of its keywords. */
export type Json = Record<string, unknown>;

/** A schema node with `$ref`, `allOf` and nullable `anyOf`/`oneOf` folded in. */
export interface Shape {
  node: Json;
  /** Declared (or implied) JSON types, `null` excluded. */
  types: string[];
  nullable: boolean;
}

/** Deepest nesting of objects whose properties the extractor searches (and counts). */
export const MAX_OBJECT_DEPTH = 8;

/** The shape of a node of one root schema (see {@link shapeResolver}). */
export type ShapeResolver = (node: unknown) => Shape;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const MAX_REF_HOPS = 16;

/** Follows a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`) from the root schema. */
function followRef(ref: string, root: Json): Json | undefined {
  if (!ref.startsWith('#')) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  let node: unknown = root;
  for (const token of path.split('/').slice(1)) {
    if (!isObject(node)) return undefined;
    node = node[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return isObject(node) ? node : undefined;
}

/**
 * The shapes of the nodes of schema `root`, their local `$ref`s resolved against it.
 *
 * The resolver resolves each node once (it remembers the shape), so a schema whose `allOf` or
 * `anyOf` branches point to the same definitions again and again costs time linear in its size,
 * not exponential in its depth. A node met again while it is being resolved (a `$ref` cycle
 * through `allOf`/`anyOf`/`oneOf`) counts as empty there. Make one resolver per use of a schema
 * (a fill, a count): the shapes it remembers are those of the schema as it was then.
 *
 * @example
 * shapeResolver(schema)(schema.properties.total); // { node: { type: 'number' }, types: ['number'], nullable: false }
 */
export function shapeResolver(root: Json): ShapeResolver {
  const memo = new WeakMap<Json, Shape>();
  return (input) => resolveNode(input, root, memo, new Set());
}

function resolveNode(
  input: unknown,
  root: Json,
  memo: WeakMap<Json, Shape>,
  active: Set<Json>,
): Shape {
  if (!isObject(input)) return shapeOf({}, false);
  const known = memo.get(input);
  if (known) return known;
  if (active.has(input)) return { node: {}, types: [], nullable: false };
  active.add(input);
  let node: Json = input;
  for (let hop = 0; typeof node.$ref === 'string' && hop < MAX_REF_HOPS; hop++) {
    node = { ...(followRef(node.$ref, root) ?? {}), ...without(node, '$ref') };
  }
  let nullable = false;
  if (Array.isArray(node.allOf)) {
    const parts = node.allOf.map((part) => resolveNode(part, root, memo, active).node);
    node = parts.reduce<Json>(
      (merged, part) =>
        isObject(merged.properties) && isObject(part.properties)
          ? { ...merged, ...part, properties: { ...merged.properties, ...part.properties } }
          : { ...merged, ...part, properties: merged.properties ?? part.properties },
      without(node, 'allOf'),
    );
  }
  const branches = Array.isArray(node.anyOf) ? node.anyOf : node.oneOf;
  if (Array.isArray(branches)) {
    const shapes = branches.map((branch) => resolveNode(branch, root, memo, active));
    nullable = shapes.some((shape) => shape.nullable || isNullOnly(shape.node));
    const chosen = shapes.find((shape) => !isNullOnly(shape.node));
    if (chosen) {
      node = { ...chosen.node, ...without(node, 'anyOf', 'oneOf') };
      nullable ||= chosen.nullable;
    }
  }
  active.delete(input);
  const shape = shapeOf(node, nullable);
  memo.set(input, shape);
  return shape;
}

function shapeOf(node: Json, nullable: boolean): Shape {
  const declared = Array.isArray(node.type)
    ? node.type.filter((type): type is string => typeof type === 'string')
    : typeof node.type === 'string'
      ? [node.type]
      : impliedTypes(node);
  const isNullable =
    nullable || declared.includes('null') || (Array.isArray(node.enum) && node.enum.includes(null));
  return { node, types: declared.filter((type) => type !== 'null'), nullable: isNullable };
}

export const asJson = (value: unknown): Json => (isObject(value) ? value : {});

const without = (node: Json, ...keys: string[]): Json =>
  Object.fromEntries(Object.entries(node).filter(([key]) => !keys.includes(key)));

const isNullOnly = (node: Json): boolean =>
  node.type === 'null' || (Array.isArray(node.enum) && node.enum.every((v) => v === null));

function impliedTypes(node: Json): string[] {
  if (isObject(node.properties)) return ['object'];
  if (node.items !== undefined || node.prefixItems !== undefined) return ['array'];
  const sample =
    node.const !== undefined ? [node.const] : Array.isArray(node.enum) ? node.enum : [];
  const types = new Set(sample.filter((v) => v !== null).map((v) => typeof v));
  return types.size > 0 ? [...types] : ['string'];
}

/**
 * How many properties the offline extractor searches the document for with `schema`: each property
 * of each object, nested objects (to {@link MAX_OBJECT_DEPTH} levels) and objects inside arrays included,
 * counted once per place where a `$ref`, `allOf`, `anyOf` or `oneOf` brings it in. Counting stops
 * past `limit`, so the count itself is bounded. The extractor's work is this count times the size
 * of the document.
 *
 * @example
 * countSearchedProperties({ type: 'object', properties: { a: { type: 'string' } } }, 500); // 1
 */
export function countSearchedProperties(schema: JsonSchemaObject, limit: number): number {
  let count = 0;
  const resolve = shapeResolver(schema);
  const visit = (shape: Shape, depth: number): void => {
    for (const raw of Object.values(asJson(shape.node.properties))) {
      if (++count > limit) return;
      const property = resolve(raw);
      const [kind] = property.types;
      if (kind === 'object' && depth < MAX_OBJECT_DEPTH) visit(property, depth + 1);
      if (kind === 'array') {
        const items = resolve(property.node.items);
        if (items.types[0] === 'object') visit(items, MAX_OBJECT_DEPTH);
      }
      if (count > limit) return;
    }
  };
  visit(resolve(schema), 0);
  return count;
}
