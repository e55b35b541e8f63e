/**
 * The catch-up route (docs/http-api.md "Changes"; api/ops-changes.ts): what changed on a grid
 * since a version, from its change log (service/changes/changes.ts), readable by whoever may read
 * the grid; 410 history_gone when the log no longer reaches back that far. The grid's owner (its profile's token) and the platform's own services (a service token: the
 * stream's consumers repairing from here) read the records as the stream carries them; anyone
 * else reads their public form (domain/change-visibility.ts): one record per version all the
 * same, so paging, 410 and the versions are the same for everyone.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { publicChange } from '../../domain/change-visibility.js';
import { DomainError } from '../../domain/errors.js';
import type { GridService } from '../../service/grid-service.js';
import type { AppEnv } from '../env.js';
import { readChanges, type ChangesJson } from '../api/ops-changes.js';
import type { Body } from '../api/responses.js';
import { serve } from '../api/route.js';

export function changesRoutes(service: GridService) {
  const app = new OpenAPIHono<AppEnv>();

  serve(app, readChanges, async (c) => {
    const profileId = c.req.valid('param').profile_id;
    const q = c.req.valid('query');
    const { gridVersion, page } = await service.changes.after(profileId, q.after_version, q.limit);
    if (page.kind === 'gone') {
      throw new DomainError('history_gone', 'the change log no longer reaches back that far', {
        grid_version: gridVersion.toString(),
        ...(page.oldest !== undefined ? { oldest_version: page.oldest.toString() } : {}),
      });
    }
    const viewer = c.get('viewer');
    const full =
      viewer.kind === 'service' || (viewer.kind === 'profile' && viewer.profileId === profileId);
    const body: Body<typeof ChangesJson> = {
      changes: page.changes
        .map((record) => (full ? record : publicChange(record)))
        .map((r) => ({
          version: r.version.toString(),
          generation: r.generation.toString(),
          at: new Date(r.at).toISOString(),
          kind: r.kind,
          post_ids: r.postIds.map(String),
        })),
      grid_version: gridVersion.toString(),
      ...(page.next !== undefined ? { next_after_version: page.next.toString() } : {}),
    };
    return c.json(body);
  });

  return app;
}
