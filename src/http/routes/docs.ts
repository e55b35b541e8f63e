/**
 * The API's description, served by regrid itself:
 *   GET /openapi.json   → the OpenAPI 3.1 document (built once from the zod schemas, api/document.ts)
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
  const document = JSON.stringify(buildDocument({ devTokens }));

  app.get('/openapi.json', (c) =>
    c.body(document, 200, {
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
