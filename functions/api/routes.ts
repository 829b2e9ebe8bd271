import { endpointList, type Endpoint } from './endpoints.js';

/**
 * One API route: an endpoint record of `endpoints.ts` (method, path, handler module, streaming,
 * auth, operation and access), read by the local server and the CDK API construct alike.
 */
export type Route = Endpoint;

/** The route table: every endpoint of `endpoints.ts`, in its order. */
export const routes: readonly Route[] = endpointList;

/** Each route with its path as a regular expression and the names of its parameters. */
let compiled: { route: Route; pattern: RegExp; names: string[] }[] | undefined;

/** The routes' patterns, built on the first match (the route table never changes). */
function compiledRoutes(): { route: Route; pattern: RegExp; names: string[] }[] {
  compiled ??= routes.map((route) => {
    const names: string[] = [];
    const pattern = new RegExp(
      '^' +
        route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
          names.push(name);
          return '([^/]+)';
        }) +
        '/?$',
    );
    return { route, pattern, names };
  });
  return compiled;
}

/**
 * Matches a method and path against the table.
 * @returns the route and its path parameters, `'method'` when the path exists with another
 * method, or undefined.
 */
export function matchRoute(
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | 'method' | undefined {
  let pathMatched = false;
  for (const { route, pattern, names } of compiledRoutes()) {
    const m = pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (route.method !== method) continue;
    const params: Record<string, string> = {};
    try {
      names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1] ?? '')));
    } catch {
      // Malformed percent-encoding names no resource.
      return undefined;
    }
    return { route, params };
  }
  return pathMatched ? 'method' : undefined;
}
