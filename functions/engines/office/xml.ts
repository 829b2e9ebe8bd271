import { DOMParser } from '@xmldom/xmldom';
import { UnsupportedDocumentError } from '../../core/domain/errors.js';

/**
 * Parses an XML part with xmldom, failing on errors rather than guessing. Parts carrying a DTD
 * never get here (`openPackage` refuses them).
 * @throws {UnsupportedDocumentError} when the part is not well-formed.
 */
export function parseXml(text: string, part: string): Document {
  const fail = (message: string) => {
    throw new UnsupportedDocumentError(`the part ${part} is not well-formed XML: ${message}`);
  };
  const parser = new DOMParser({
    errorHandler: { warning: () => undefined, error: fail, fatalError: fail },
  });
  const doc = parser.parseFromString(text, 'text/xml');
  if (!(doc.documentElement as Element | null)) fail('no root element');
  return doc;
}

/** The child elements of `element` (with the given local name, whatever their prefix). */
export function children(element: Element | null | undefined, localName?: string): Element[] {
  if (!element) return [];
  const out: Element[] = [];
  for (let node = element.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType !== 1) continue;
    const child = node as Element;
    if (localName === undefined || child.localName === localName) out.push(child);
  }
  return out;
}

/** The first child element with the local name, or undefined. */
export function child(element: Element | null | undefined, localName: string): Element | undefined {
  return children(element, localName)[0];
}

/** The element reached by following first children with the given local names. */
export function path(element: Element | null | undefined, ...names: string[]): Element | undefined {
  let current: Element | undefined = element ?? undefined;
  for (const name of names) current = child(current, name);
  return current;
}

/** Every descendant element with the local name, in document order. */
export function descendants(element: Element | null | undefined, localName: string): Element[] {
  if (!element) return [];
  const out: Element[] = [];
  const walk = (parent: Element) => {
    for (const c of children(parent)) {
      if (c.localName === localName) out.push(c);
      walk(c);
    }
  };
  walk(element);
  return out;
}

/** An attribute by its qualified name as written (`r:id`, `type`), or undefined. */
export function attr(element: Element | null | undefined, name: string): string | undefined {
  if (!element?.hasAttribute(name)) return undefined;
  return element.getAttribute(name) ?? undefined;
}

/** A numeric attribute, or `fallback` when absent or not a finite number. */
export function numAttr(element: Element | null | undefined, name: string, fallback = 0): number {
  const value = Number(attr(element, name));
  return Number.isFinite(value) ? value : fallback;
}

/** Relationship targets of a part by id, resolved against the part's folder. */
export function relationships(
  relsXml: string | undefined,
  partName: string,
): Map<string, { target: string; type: string; external: boolean }> {
  const map = new Map<string, { target: string; type: string; external: boolean }>();
  if (relsXml === undefined) return map;
  const doc = parseXml(relsXml, `${partName} relationships`);
  for (const rel of children(doc.documentElement, 'Relationship')) {
    const id = attr(rel, 'Id');
    const target = attr(rel, 'Target');
    if (id === undefined || target === undefined) continue;
    const external = attr(rel, 'TargetMode') === 'External';
    map.set(id, {
      target: external ? target : resolvePart(partName, target),
      type: attr(rel, 'Type') ?? '',
      external,
    });
  }
  return map;
}

/** The relationships part of a part: `ppt/slides/slide1.xml` → `ppt/slides/_rels/slide1.xml.rels`. */
export function relsPathOf(partName: string): string {
  const slash = partName.lastIndexOf('/');
  return `${partName.slice(0, slash + 1)}_rels/${partName.slice(slash + 1)}.rels`;
}

/** A relationship target resolved to a package part name (no leading slash, no `..`). */
export function resolvePart(fromPart: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = fromPart.split('/').slice(0, -1);
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}
