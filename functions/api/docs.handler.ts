import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { NotFoundError } from '../core/domain/errors.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';

/**
 * The files of the reference page: Swagger UI's bundle and style sheet from the `swagger-ui-dist`
 * package (installed from npm, shipped beside the Lambda bundle; no CDN at run time), and the
 * page's own start-up script.
 */
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

/** Starts Swagger UI on the document named by the page's `data-spec` attribute. */
const START_SCRIPT = `(() => {
  const spec = document.body.dataset.spec;
  window.ui = SwaggerUIBundle({
    url: spec,
    dom_id: '#reference',
    deepLinking: true,
    persistAuthorization: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
})();
`;

/** `text` safe inside an HTML attribute or element. */
const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);

const page = (rawBaseUrl: string) => {
  const baseUrl = escapeHtml(rawBaseUrl);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>docparse API reference</title>
<link rel="stylesheet" href="${baseUrl}/docs/swagger-ui.css">
<style>body{margin:0;font-family:system-ui,sans-serif}header{padding:12px 24px;background:#1f2937;color:#fff;display:flex;gap:24px;align-items:baseline}header a{color:#93c5fd}</style>
</head>
<body data-spec="${baseUrl}/v1/openapi.json">
<header><strong>docparse API</strong><a href="${baseUrl}/v1/openapi.json">openapi.json</a><a href="${baseUrl}/">playground</a></header>
<div id="reference"></div>
<script src="${baseUrl}/docs/swagger-ui-bundle.js"></script>
<script src="${baseUrl}/docs/start.js"></script>
</body>
</html>
`;
};

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'public, max-age=300',
};

let packageDir: string | undefined;

/** A file of `swagger-ui-dist`, read once. */
const packageFiles = new Map<string, Promise<string>>();
function packageFile(name: string): Promise<string> {
  let file = packageFiles.get(name);
  if (!file) {
    packageDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    file = readFile(join(packageDir, name), 'utf8');
    packageFiles.set(name, file);
  }
  return file;
}

/**
 * GET /docs: the interactive API reference (Swagger UI rendering GET /v1/openapi.json, with "try
 * it out" and the API key kept in the browser); GET /docs/{asset}: its scripts and style sheet.
 * No API key needed. 404 for any other asset name.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.getDocsAsset, async ({ params, baseUrl }) => {
    const asset = params.asset;
    if (asset === undefined) {
      return {
        statusCode: 200,
        body: page(baseUrl),
        // The page names the base URL the caller reached: not for shared caches.
        headers: {
          ...SECURITY_HEADERS,
          'cache-control': 'no-cache',
          'content-type': 'text/html; charset=utf-8',
        },
      };
    }
    if (asset === 'start.js') {
      return {
        statusCode: 200,
        body: START_SCRIPT,
        headers: { ...SECURITY_HEADERS, 'content-type': 'text/javascript; charset=utf-8' },
      };
    }
    // Own names only: `__proto__`, `constructor` and the like are no files either.
    const contentType = Object.hasOwn(PACKAGE_FILES, asset) ? PACKAGE_FILES[asset] : undefined;
    if (contentType === undefined) throw new NotFoundError(`no file ${asset} in /docs`);
    return {
      statusCode: 200,
      body: await packageFile(asset),
      headers: { ...SECURITY_HEADERS, 'content-type': contentType },
    };
  });

export const handler = createHandler(deps);
