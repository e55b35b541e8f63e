/**
 * Operational flags (service/flags.ts), mounted under the admin routes (ADMIN_TOKEN):
 *   GET /v1/admin/flags               → {flags: [{name, enabled, stored}], refresh_bound_ms}
 *   PUT /v1/admin/flags/:name {"enabled": bool} → {name, enabled, stored: true}
 * An unknown name is 404 flag_not_found (problem+json, listing the known ones). A PUT is an
 * idempotent overwrite, so it needs no Idempotency-Key. The process answering follows the new
 * value at once; every other process within refresh_bound_ms (docs/ops/rollout.md).
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { flagName } from '../../service/flags.js';
import type { GridService } from '../../service/grid-service.js';
import type { AppEnv } from '../env.js';
import { readBody } from '../request.js';
import type { Body, FlagsJson } from '../api/responses.js';

export const FlagBody = z.strictObject({ enabled: z.boolean() });

export function flagRoutes(service: GridService) {
  const app = new Hono<AppEnv>();

  app.get('/admin/flags', async (c) =>
    c.json({
      flags: await service.flags.list(),
      refresh_bound_ms: service.flags.boundMs,
    } satisfies Body<typeof FlagsJson>),
  );

  app.put('/admin/flags/:name', async (c) => {
    const name = flagName(c.req.param('name'));
    const body = await readBody(c, FlagBody);
    return c.json(await service.flags.set(name, body.enabled, c.get('scope')));
  });

  return app;
}
