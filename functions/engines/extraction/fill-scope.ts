import type { ShapeResolver } from '../../core/domain/extraction/schema-shape.js';
import type { DocLine, ParsedDocument, Section } from './document-model.js';

/**
 * What a fill carries as it searches the document for a schema's properties: the document, the
 * schema's shapes, how deep in nested objects it is, and the part of the document searched.
 */

/** How many labelled values (or lines) a property's search goes through between two steps. */
export const FACTS_PER_STEP = 256;

/** Work in steps: a generator that pauses (yields) between pieces of work and returns a `T`. */
export type Steps<T> = Generator<void, T, void>;

/** One fill of a schema from a document. */
export interface FillContext {
  /** The shapes of the schema's nodes (one resolver per fill). */
  resolve: ShapeResolver;
  doc: ParsedDocument;
  /** How many objects deep the properties searched are. */
  depth: number;
  /** The label tokens of each line's first words, computed once per line (see `prefixTokens`). */
  prefixes: WeakMap<DocLine, string[][]>;
}

/** The lines searched for a value: a section of the document or all of it. */
export interface Scope {
  start: number;
  end: number;
  /** The section the scope was narrowed to, if any. */
  section: Section | null;
  /** Tokens of the enclosing object's name, when its fields are searched outside a section. */
  prefix: string[];
}

/** Whether `line` is within the scope. */
export const within = (scope: Scope, line: number) => line >= scope.start && line < scope.end;

/** The innermost section holding `line`. */
export const sectionAt = (doc: ParsedDocument, line: number) => doc.sectionOf[line];
