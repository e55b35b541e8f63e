/**
 * The API's description, served by regrid itself (api/ops-ops.ts): /openapi.json, the OpenAPI
 * 3.1 document of the app (api/document.ts, built on the first request, when every route is
 * mounted), whose `servers` is the mount prefix (createRegrid); /docs, Swagger UI on it; and
 * /docs/:asset, Swagger UI's files from node_modules (no CDN), 404 for anything else.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.js';
import { DOCS_PAGE, readAsset } from '../api/docs-assets.js';
import { buildDocument, type Json } from '../api/document.js';
import { docs, docsAsset, openapi } from '../api/ops-ops.js';
import { serve } from '../api/route.js';
import { problemResponse } from '../problem.js';

/** `documented`: the app the document describes. `page: false`: /openapi.json only. */
export function docsRoutes(documented: OpenAPIHono<AppEnv>, { page = true } = {}) {
  const app = new OpenAPIHono<AppEnv>();
  let built: Json | undefined;
  // A host mounts the app once, under one prefix: a few texts at most (bounded all the same).
  const prefixed = new Map<string, string>();
  const documentAt = (prefix: string) => {
    built ??= buildDocument(documented);
    let text = prefixed.get(prefix);
    if (text === undefined) {
      text = JSON.stringify(prefix ? { ...built, servers: [{ url: prefix }] } : built);
      if (prefixed.size >= 8) prefixed.clear();
      prefixed.set(prefix, text);
    }
    return text;
  };

  serve(app, openapi, (c) =>
    c.body(documentAt(c.req.path.slice(0, -'/openapi.json'.length)), 200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-cache',
    }),
  );
  if (!page) return app;
  serve(app, docs, (c) => c.html(DOCS_PAGE));
  const notFound = { status: 404, code: 'not_found', detail: 'no such file' } as const;
  serve(
    app,
    docsAsset,
    async (c) => {
      const asset = readAsset(c.req.param('asset')!);
      if (!asset) return problemResponse(notFound);
      const headers = {
        'content-type': asset.contentType,
        'cache-control': 'public, max-age=3600',
      };
      return c.body(await asset.bytes, 200, headers);
    },
    { validate: false },
  );
  return app;
}
