/**
 * Liveness and readiness.
 *   GET /healthz → 200 while the process runs.
 *   GET /readyz  → 200 when Cassandra and Redis answer, else 503 with what is down.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env.js';

export type CheckState = 'ok' | 'degraded' | 'down';

export interface Readiness {
  readonly ready: boolean;
  readonly checks: Record<string, CheckState>;
}

export function healthRoutes(readiness: () => Promise<Readiness>) {
  const app = new Hono<AppEnv>();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const r = await readiness();
    return c.json(
      { status: r.ready ? 'ready' : 'unavailable', checks: r.checks },
      r.ready ? 200 : 503,
    );
  });
  return app;
}
