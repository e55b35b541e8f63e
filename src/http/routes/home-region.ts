/**
 * Service route: a platform sets the region that serializes a profile's grid writes
 * (docs/regions.md "Home regions"; service tokens only, http/service-auth.ts).
 *   PUT /v1/profiles/:profile_id/home-region  {region} → 200 {home_region, previous_home_region,
 *       changed, grid_version}; the same region again writes nothing (changed: false)
 * Idempotent by its meaning (setting the same home twice is one change), so no Idempotency-Key.
 */
import { Hono } from 'hono';
import type { GridService } from '../../service/grid-service.js';
import { setHomeRegion } from '../../service/operations/home-region.js';
import type { AppEnv } from '../env.js';
import { readBody } from '../request.js';
import { parseIdParam } from '../schemas.js';
import { HomeRegionBody } from '../service-schemas.js';
import { versionView } from '../views.js';
import type { Body, HomeRegionJson } from '../api/responses.js';

export function homeRegionRoutes(service: Pick<GridService, 'writer'>) {
  const app = new Hono<AppEnv>();
  app.put('/profiles/:profile_id/home-region', async (c) => {
    const profileId = parseIdParam(c.req.param('profile_id'), 'profile_id');
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
