/**
 * A drain's `/readyz` 503s are the process doing what it was asked (SIGTERM), not a failure:
 * they are logged at info, while any other 5xx, a `/readyz` that is down included, stays at
 * error (docs/operating.md "Logs").
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../../src/http/env.js';
import { observe } from '../../../src/http/observe.js';
import { healthRoutes } from '../../../src/http/routes/health.js';
import { createLogger } from '../../../src/obs/logger.js';
import type { Readiness } from '../../../src/service/readiness.js';

async function logLineOf(readiness: Readiness): Promise<{ level: number; status: number }> {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (l) => void lines.push(l) } });
  const app = new Hono<AppEnv>();
  app.use('*', observe(logger));
  app.route(
    '/',
    healthRoutes(async () => readiness),
  );
  const res = await app.request('/readyz');
  expect(res.status).toBe(503);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

describe('the request log level of /readyz', () => {
  it('is info for a 503 while draining', async () => {
    const line = await logLineOf({ ready: false, draining: true, checks: { shutdown: 'down' } });
    expect(line).toMatchObject({ status: 503, level: 30 });
  });
  it('stays error for a 503 when Cassandra is down', async () => {
    const line = await logLineOf({ ready: false, checks: { cassandra: 'down', redis: 'ok' } });
    expect(line).toMatchObject({ status: 503, level: 50 });
  });
});
