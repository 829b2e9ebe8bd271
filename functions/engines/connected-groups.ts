/**
 * The connected groups of `items` under `linked`: items linked directly, or through other
 * items, end up in one group (union-find with path compression). `linked` is asked once per
 * pair, `i < j`, and must be symmetric; O(n²) calls.
 *
 * @returns the groups, each listing its items in their order in `items`, ordered by their first
 *   item.
 * @example
 * connectedGroups([1, 2, 10, 11, 3], (a, b) => Math.abs(a - b) <= 1); // → [[1, 2, 3], [10, 11]]
 */
export function connectedGroups<T>(
  items: readonly T[],
  linked: (a: T, b: T, i: number, j: number) => boolean,
): T[][] {
  const parent = items.map((_, i) => i);
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root] ?? root;
    for (let k = i; parent[k] !== root;) {
      const next = parent[k] ?? root;
      parent[k] = root;
      k = next;
    }
    return root;
  };
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      if (linked(items[i] as T, items[j] as T, i, j)) parent[find(j)] = find(i);
    }
  }
  const groups = new Map<number, T[]>();
  items.forEach((item, i) => {
    const root = find(i);
    const group = groups.get(root);
    if (group) group.push(item);
    else groups.set(root, [item]);
  });
  return [...groups.values()];
}
