/**
 * GET /metrics: the Prometheus text exposition of the process's registry (obs/registry.ts).
 * Unauthenticated like /healthz; expose it on an internal network only (ADMIN_PORT moves it to
 * a listener of its own, src/server.ts).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Registry } from 'prom-client';
import type { AppEnv } from '../env.js';
import { metrics } from '../api/ops-ops.js';
import { serve } from '../api/route.js';

export function metricsRoutes(registry: Registry) {
  const app = new OpenAPIHono<AppEnv>();
  serve(app, metrics, async (c) =>
    c.body(await registry.metrics(), 200, {
      'content-type': registry.contentType,
      'cache-control': 'no-store',
    }),
  );
  return app;
}
