/**
 * Service route (api/ops-service.ts `setHomeRegion`): a platform sets the region that serializes
 * a profile's grid writes (docs/regions.md "Home regions"; service tokens only,
 * http/service-auth.ts). Idempotent by its meaning (setting the same home twice is one change), so no Idempotency-Key.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { GridService } from '../../service/grid-service.js';
import { setHomeRegion } from '../../service/operations/home-region.js';
import type { AppEnv } from '../env.js';
import { readBody } from '../request.js';
import { HomeRegionBody } from '../service-schemas.js';
import { versionView } from '../views.js';
import type { Body, HomeRegionJson } from '../api/responses.js';
import { serve } from '../api/route.js';
import * as ops from '../api/ops-service.js';

export function homeRegionRoutes(service: Pick<GridService, 'writer'>) {
  const app = new OpenAPIHono<AppEnv>();
  serve(app, ops.setHomeRegion, async (c) => {
    const profileId = c.req.valid('param').profile_id;
    const { region } = await readBody(c, HomeRegionBody);
    const out = await setHomeRegion(service.writer, profileId, region, c.get('scope'));
    const json = {
      profile_id: profileId.toString(),
      home_region: out.result.to,
      previous_home_region: out.result.from ?? null,
      changed: out.committed,
      grid_version: versionView(out.version),
    };
    return c.json(json satisfies Body<typeof HomeRegionJson>);
  });
  return app;
}
