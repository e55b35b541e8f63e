/**
 * Liveness and readiness (api/ops-ops.ts `healthz`, `readyz`). Both are `Cache-Control: no-store`: a probe's answer is about this instant, and a cached 503
 * would keep an instance out of rotation after it recovered.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.js';
import type { Readiness } from '../../service/readiness.js';
import { healthz, readyz } from '../api/ops-ops.js';
import { serve } from '../api/route.js';

export function healthRoutes(readiness: () => Promise<Readiness>) {
  const app = new OpenAPIHono<AppEnv>();
  const noStore = { 'cache-control': 'no-store' };
  serve(app, healthz, (c) => c.json({ status: 'ok' }, 200, noStore));
  serve(app, readyz, async (c) => {
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
