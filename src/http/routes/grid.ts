/**
 * The grid: move one post, read a page.
 *   POST /v1/me/grid/moves                 {post_id, after} → {grid_version, move_id}
 *   GET  /v1/profiles/:profile_id/grid     ?limit&cursor&min_version
 *        → {items: [{id, caption, media_url, created_at}], next_cursor, grid_version, grid_changed,
 *           post_count?}   (strong ETag; If-None-Match → 304: conditional.ts)
 */
import { Hono } from 'hono';
import type { GridService } from '../../service/grid-service.js';
import type { IdempotencyService, StoredResponse } from '../../service/idempotency/idempotency.js';
import type { AppEnv } from '../env.js';
import { idempotentWrite, requestScopedUuid } from '../idempotent.js';
import { readBody, readQuery } from '../request.js';
import { GridQuery, MoveBody, parseIdParam } from '../schemas.js';
import { sendRendered } from '../conditional.js';
import { frontDrawOf } from '../page-front.js';
import { renderGridPage, versionView } from '../views.js';
import type { Body, MovedJson } from '../api/responses.js';

export function gridRoutes(service: GridService, idempotency?: IdempotencyService) {
  const app = new Hono<AppEnv>();

  app.post('/me/grid/moves', async (c) => {
    const profileId = c.get('profileId');
    const body = await readBody(c, MoveBody);
    // Every move can be undone: its move_id comes from the request (so a replay repeats it).
    const moveId = requestScopedUuid(c, profileId, 'move');
    const render = (_r: unknown, v: bigint): StoredResponse => ({
      status: 200,
      body: { grid_version: versionView(v), move_id: moveId } satisfies Body<typeof MovedJson>,
    });
    const spec = { scope: profileId, gridProfileId: profileId, render };
    return idempotentWrite(c, idempotency, spec, async (opts) => {
      const out = await service.move(profileId, body.post_id, body.after, { ...opts(), moveId });
      return render(null, out.version);
    });
  });

  app.get('/profiles/:profile_id/grid', async (c) => {
    const profileId = parseIdParam(c.req.param('profile_id'), 'profile_id');
    const q = readQuery(c, GridQuery);
    const query = {
      profileId,
      limit: q.limit,
      cursor: q.cursor,
      minVersion: q.min_version,
    };
    const drawn = frontDrawOf(c.req.raw);
    return sendRendered(c, await service.readRenderedPage(query, renderGridPage, drawn));
  });

  return app;
}
