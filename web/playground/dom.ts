/** A child of {@link h}: a node, text, or nothing (`null`, `undefined` and `false` are skipped). */
export type Child = Node | string | null | undefined | false;

/** Attribute values of {@link h}: `true` sets an empty attribute, `false`/`undefined` none. */
export type Attributes = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * Creates an element with attributes and children. `class` sets the class list; text children
 * become text nodes (never parsed as HTML). Inline `style` attributes are not used anywhere: the
 * page's Content-Security-Policy blocks them, positions are set through `element.style`.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children as {@link h} does. */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/**
 * The element with `id`, checked to be an instance of `type`.
 * @throws {Error} when it is missing or of another type (the page and the script disagree).
 */
export function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`#${id} is missing from the page`);
  return element;
}
