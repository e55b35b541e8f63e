/**
 * Operational flags (service/flags.ts; api/ops-ops.ts), mounted under the admin routes
 * (ADMIN_TOKEN). An unknown name is 404 flag_not_found (problem+json, listing the known ones). A PUT is an
 * idempotent overwrite, so it needs no Idempotency-Key. The process answering follows the new
 * value at once; every other process within refresh_bound_ms (docs/ops/rollout.md).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { flagName } from '../../service/flags.js';
import type { GridService } from '../../service/grid-service.js';
import type { AppEnv } from '../env.js';
import { readBody } from '../request.js';
import { FlagBody, listFlags, setFlag } from '../api/ops-ops.js';
import type { Body, FlagsJson } from '../api/responses.js';
import { serve } from '../api/route.js';

export function flagRoutes(service: GridService) {
  const app = new OpenAPIHono<AppEnv>();

  serve(app, listFlags, async (c) =>
    c.json({
      flags: await service.flags.list(),
      refresh_bound_ms: service.flags.boundMs,
    } satisfies Body<typeof FlagsJson>),
  );

  serve(
    app,
    setFlag,
    async (c) => {
      const name = flagName(c.req.param('name')!);
      const body = await readBody(c, FlagBody);
      return c.json(await service.flags.set(name, body.enabled, c.get('scope')));
    },
    { validate: false },
  );

  return app;
}
