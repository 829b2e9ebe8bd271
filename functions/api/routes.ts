/** One API route: the single source for the local server and the CDK API construct. */
export interface Route {
  method: 'GET' | 'POST';
  /** Path with `{param}` placeholders, as API Gateway writes them. */
  path: string;
  /** Handler module under `functions/api/`, exporting `handler`. */
  entry: string;
  /** The handler needs response streaming (SSE, long synchronous uploads) on AWS. */
  streaming: boolean;
  /**
   * A streaming route that answers at once and streams only to send a large body (past the
   * 6 MB of a buffered Lambda response): it keeps the buffered routes' timeout and takes no
   * share of the reserved concurrency of the routes that hold a Lambda for minutes.
   */
  shortLived?: boolean;
}

export const routes: readonly Route[] = [
  { method: 'POST', path: '/v1/parse/upload', entry: 'parse-upload.handler.ts', streaming: true },
  { method: 'POST', path: '/v1/parse', entry: 'parse-url.handler.ts', streaming: true },
  { method: 'POST', path: '/v1/parse/stream', entry: 'parse-stream.handler.ts', streaming: true },
  { method: 'POST', path: '/v1/parse/estimate', entry: 'estimate.handler.ts', streaming: false },
  { method: 'POST', path: '/v1/compare', entry: 'compare.handler.ts', streaming: true },
  {
    method: 'POST',
    path: '/v1/parse/structured',
    entry: 'parse-structured.handler.ts',
    streaming: true,
  },
  { method: 'POST', path: '/v1/parse/batch', entry: 'parse-batch.handler.ts', streaming: false },
  { method: 'GET', path: '/v1/batch/{batch_id}', entry: 'get-batch.handler.ts', streaming: false },
  { method: 'POST', path: '/v1/uploads', entry: 'create-upload.handler.ts', streaming: false },
  {
    method: 'GET',
    path: '/v1/parse/{request_id}',
    entry: 'get-parse.handler.ts',
    // A finished result may pass the 6 MB of a buffered Lambda response.
    streaming: true,
    shortLived: true,
  },
  {
    method: 'POST',
    path: '/v1/parse/{request_id}/cancel',
    entry: 'cancel-parse.handler.ts',
    streaming: false,
  },
  {
    method: 'POST',
    path: '/v1/parse/{request_id}/resume',
    entry: 'resume-parse.handler.ts',
    streaming: true,
  },
  { method: 'GET', path: '/v1/providers', entry: 'list-providers.handler.ts', streaming: false },
  {
    method: 'GET',
    path: '/v1/webhooks/secret',
    entry: 'webhook-secret.handler.ts',
    streaming: false,
  },
  { method: 'GET', path: '/v1/live', entry: 'live.handler.ts', streaming: false },
  { method: 'GET', path: '/v1/health', entry: 'health.handler.ts', streaming: false },
  { method: 'GET', path: '/health', entry: 'health.handler.ts', streaming: false },
  { method: 'GET', path: '/v1/openapi.json', entry: 'openapi.handler.ts', streaming: false },
  { method: 'GET', path: '/docs', entry: 'docs.handler.ts', streaming: false },
  { method: 'GET', path: '/docs/{asset}', entry: 'docs.handler.ts', streaming: false },
];

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
