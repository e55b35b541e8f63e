/**
 * The grid: move one post, read a page.
 *   POST /v1/me/grid/moves                 {post_id, after} → {grid_version}
 *   GET  /v1/profiles/:profile_id/grid     ?limit&cursor&min_version
 *        → {items: [{id, caption, media_url, created_at}], next_cursor, grid_version, grid_changed}
 */
import { Hono } from 'hono';
import type { GridService } from '../../service/grid-service.js';
import type { AppEnv } from '../env.js';
import { readBody, readQuery } from '../request.js';
import { GridQuery, MoveBody, parseIdParam } from '../schemas.js';
import { gridItemView, versionView } from '../views.js';

export function gridRoutes(service: GridService) {
  const app = new Hono<AppEnv>();

  app.post('/me/grid/moves', async (c) => {
    const body = await readBody(c, MoveBody);
    const out = await service.move(c.get('profileId'), body.post_id, body.after);
    return c.json({ grid_version: versionView(out.version) });
  });

  app.get('/profiles/:profile_id/grid', async (c) => {
    const profileId = parseIdParam(c.req.param('profile_id'), 'profile_id');
    const q = readQuery(c, GridQuery);
    const page = await service.readPage({
      profileId,
      limit: q.limit,
      cursor: q.cursor,
      minVersion: q.min_version,
    });
    return c.json({
      items: page.items.map(gridItemView),
      next_cursor: page.nextCursor,
      grid_version: versionView(page.version),
      grid_changed: page.gridChanged,
    });
  });

  return app;
}
