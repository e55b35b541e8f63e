/**
 * GET /metrics: the Prometheus text exposition of the process's registry (obs/registry.ts).
 * Unauthenticated like /healthz; expose it on an internal network only (ADMIN_PORT moves it to
 * a listener of its own, src/server.ts).
 */
import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { AppEnv } from '../env.js';

export function metricsRoutes(registry: Registry) {
  const app = new Hono<AppEnv>();
  app.get('/metrics', async (c) =>
    c.body(await registry.metrics(), 200, {
      'content-type': registry.contentType,
      'cache-control': 'no-store',
    }),
  );
  return app;
}
