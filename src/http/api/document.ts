/**
 * The OpenAPI 3.1 document, built by @hono/zod-openapi from the route definitions (grid.ts,
 * posts.ts, changes.ts, service.ts, operations.ts) with the request schemas the routes parse with,
 * plus a HEAD beside every GET (Hono answers HEAD with the GET route, without the body).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { version } from '../../obs/build-info.js';
import { components } from './document-parts.js';
import * as changes from './ops-changes.js';
import * as grid from './ops-grid.js';
import * as operations from './ops-ops.js';
import * as posts from './ops-posts.js';
import * as service from './ops-service.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every route definition by operationId, in the document's order. */
export const routes = {
  ...pick(posts),
  ...pick(grid),
  ...pick(changes),
  ...pick(service),
  ...pick(operations),
};

/**
 * A module's route definitions by name. Sorted: a module namespace lists its exports sorted under
 * Node but in source order under vitest's transform, and the document (so the client) must not
 * depend on which.
 */
function pick<M extends Record<string, unknown>>(m: M) {
  type Routes = { [K in keyof M as M[K] extends { responses: object } ? K : never]: M[K] };
  const defined = Object.entries(m).filter(
    ([, v]) => typeof v === 'object' && v && 'responses' in v,
  );
  return Object.fromEntries(defined.sort(([a], [b]) => (a < b ? -1 : 1))) as Routes;
}

/** `devTokens`: the server mounts POST /dev/token (development only), so the document lists it. */
export function buildDocument({ devTokens = false }: { readonly devTokens?: boolean } = {}): Json {
  const app = new OpenAPIHono();
  for (const [operationId, route] of Object.entries(routes))
    if (operationId !== 'devToken' || devTokens)
      app.openAPIRegistry.registerPath({ ...route, operationId });
  for (const [kind, entries] of Object.entries(components))
    for (const [name, c] of Object.entries(entries))
      app.openAPIRegistry.registerComponent(kind as 'headers', name, c as never);
  const doc: Json = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'regrid',
      version,
      description:
        'User-defined order for profile grids. IDs and versions are decimal strings; errors are application/problem+json with a stable `type`; every write accepts `Idempotency-Key`.',
    },
    servers: [{ url: '/' }],
    tags: ['posts', 'grid', 'order', 'profile', 'admin', 'service', 'operations'].map((name) => ({
      name,
    })),
  });
  for (const ops of Object.values(doc['paths'] as Json)) {
    if (!ops.get) continue;
    const responses: Json = {};
    for (const [status, { content: _c, ...rest }] of Object.entries(ops.get.responses as Json))
      responses[status] = rest;
    const { operationId, summary } = ops.get;
    const head = `${summary} (HEAD: the headers only)`;
    ops.head = { ...ops.get, operationId: `${operationId}Head`, summary: head, responses };
  }
  return doc;
}
