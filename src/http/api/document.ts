/**
 * The OpenAPI 3.1 document of an app, built by @hono/zod-openapi from the definitions its routes
 * were registered with (api/route.ts `serve`): the routes it mounts and no others, plus a HEAD
 * beside every GET (Hono answers HEAD with the GET route, without the body).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { version } from '../../obs/build-info.js';
import type { AppEnv } from '../env.js';
import { components } from './document-parts.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Call once per app: it adds the shared components to the app's registry. */
export function buildDocument(app: OpenAPIHono<AppEnv>): Json {
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
