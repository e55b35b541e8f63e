/**
 * The grid: move one post, read a page.
 *   POST /v1/me/grid/moves                 {post_id, after} → {grid_version, move_id} + ETag
 *   GET  /v1/profiles/:profile_id/grid     ?limit&cursor&min_version
 *        → {items: [{id, caption, media_url, created_at}], next_cursor, grid_version, grid_changed,
 *           post_count?}   (strong ETag; If-None-Match → 304: conditional.ts)
 *
 * A page is read through one contract (service/read/rendered-read.ts): a cached first page, a
 * 304 and a page read all answer here, through the app's middleware and Hono's response.
 */
import { Hono, type Context } from 'hono';
import { formatEtag } from '../../domain/etag.js';
import type { GridService } from '../../service/grid-service.js';
import type { IdempotencyService, StoredResponse } from '../../service/idempotency/idempotency.js';
import { sendRendered } from '../conditional.js';
import type { AppEnv } from '../env.js';
import { idempotentWrite, requestScopedUuid } from '../idempotent.js';
import { readBody, readQuery } from '../request.js';
import { GridQuery, MoveBody, parseIdParam } from '../schemas.js';
import { renderGridPage, versionView } from '../views.js';
import type { Body, MovedJson } from '../api/responses.js';

/** The page asked for. */
function pageQuery(c: Context<AppEnv>) {
  const profileId = parseIdParam(c.req.param('profile_id'), 'profile_id');
  const q = readQuery(c, GridQuery);
  return { profileId, limit: q.limit, cursor: q.cursor, minVersion: q.min_version };
}

export function gridRoutes(service: GridService, idempotency?: IdempotencyService) {
  const app = new Hono<AppEnv>();

  app.post('/me/grid/moves', async (c) => {
    const profileId = c.get('profileId');
    const body = await readBody(c, MoveBody);
    // Every move can be undone: its move_id comes from the request (so a replay repeats it).
    const moveId = requestScopedUuid(c, profileId, 'move');
    // The ETag names the state the move committed, `"<generation>.<version>"`: a version number
    // alone is not a name once a grid moved to a new generation (docs/architecture.md).
    const render = (_r: unknown, v: bigint, g: bigint): StoredResponse => ({
      status: 200,
      body: { grid_version: versionView(v), move_id: moveId } satisfies Body<typeof MovedJson>,
      etag: formatEtag({ version: v, generation: g }),
    });
    const spec = { scope: profileId, gridProfileId: profileId, render };
    return idempotentWrite(c, idempotency, spec, async (opts) => {
      const out = await service.move(profileId, body.post_id, body.after, { ...opts(), moveId });
      return render(null, out.version, out.generation);
    });
  });

  app.get('/profiles/:profile_id/grid', async (c) => {
    const q = pageQuery(c);
    return sendRendered(c, await service.pages.read(q, renderGridPage));
  });

  return app;
}
