/**
 * Liveness and readiness.
 *   GET /healthz → 200 while the process runs.
 *   GET /readyz  → 200 when Cassandra answers with the replicas its consistency levels need
 *                  (Redis `ok` or `degraded`); 503 while draining or when not (what is down).
 * Both are `Cache-Control: no-store`: a probe's answer is about this instant, and a cached 503
 * would keep an instance out of rotation after it recovered.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import type { Readiness } from '../../service/readiness.js';

export function healthRoutes(readiness: () => Promise<Readiness>) {
  const app = new Hono<AppEnv>();
  const noStore = { 'cache-control': 'no-store' };
  app.get('/healthz', (c) => c.json({ status: 'ok' }, 200, noStore));
  app.get('/readyz', async (c) => {
    const r = await readiness();
    const status = r.ready ? 'ready' : r.draining ? 'draining' : 'unavailable';
    // A drain answers 503 to every probe by design (SIGTERM): not an error to page anyone about.
    if (r.draining) c.set('expectedFailure', true);
    return c.json(
      { status, checks: r.checks, ...(r.detail ? { detail: r.detail } : {}) },
      r.ready ? 200 : 503,
      { ...noStore, ...(r.ready ? {} : { 'retry-after': '1' }) },
    );
  });
  return app;
}
