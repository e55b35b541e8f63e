/**
 * The API's description, served by regrid itself:
 *   GET /openapi.json   → the OpenAPI 3.1 document (built once from the zod schemas, api/document.ts);
 *                         mounted under a prefix (createRegrid), its `servers` is that prefix
 *   GET /docs           → Swagger UI on that document
 *   GET /docs/:asset    → Swagger UI's files from node_modules (no CDN), 404 for anything else
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { DOCS_PAGE, readAsset } from '../api/docs-assets.js';
import { buildDocument } from '../api/document.js';
import { problemResponse } from '../problem.js';

/**
 * `page: false` (the public listener beside an admin one): /openapi.json only. `devTokens`: the
 * app mounts POST /dev/token, so its document lists it (a development server's only).
 */
export function docsRoutes({
  page = true,
  devTokens = false,
}: { readonly page?: boolean; readonly devTokens?: boolean } = {}) {
  const app = new Hono<AppEnv>();
  const built = buildDocument({ devTokens });
  const document = JSON.stringify(built);
  // A host mounts the app once, under one prefix: a few texts at most (bounded all the same).
  const prefixed = new Map<string, string>();
  const documentAt = (prefix: string) => {
    if (!prefix) return document;
    let text = prefixed.get(prefix);
    if (text === undefined) {
      text = JSON.stringify({ ...built, servers: [{ url: prefix }] });
      if (prefixed.size >= 8) prefixed.clear();
      prefixed.set(prefix, text);
    }
    return text;
  };

  app.get('/openapi.json', (c) =>
    c.body(documentAt(c.req.path.slice(0, -'/openapi.json'.length)), 200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-cache',
    }),
  );
  if (!page) return app;
  app.get('/docs', (c) => c.html(DOCS_PAGE));
  app.get('/docs/:asset', async (c) => {
    const asset = readAsset(c.req.param('asset'));
    if (!asset) return problemResponse({ status: 404, code: 'not_found', detail: 'no such file' });
    return c.body(await asset.bytes, 200, {
      'content-type': asset.contentType,
      'cache-control': 'public, max-age=3600',
    });
  });
  return app;
}
