/**
 * The grid: move one post (api/ops-grid.ts `move`), read a page (`readGrid`; strong ETag,
 * If-None-Match → 304: conditional.ts).
 *
 * A page is read through one contract (service/read/rendered-read.ts): a cached first page, a
 * 304 and a page read all answer here, through the app's middleware and Hono's response.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { formatEtag } from '../../domain/etag.js';
import type { GridService } from '../../service/grid-service.js';
import type { IdempotencyService, StoredResponse } from '../../service/idempotency/idempotency.js';
import type { ReachStore } from '../../service/read/rendered-read.js';
import { sendRendered } from '../conditional.js';
import type { StoreDeadline } from '../deadline.js';
import type { AppEnv } from '../env.js';
import { idempotentWrite, requestScopedUuid } from '../idempotent.js';
import { readBody } from '../request.js';
import { MoveBody } from '../schemas.js';
import { renderGridPage, versionView } from '../views.js';
import { move, readGrid } from '../api/ops-grid.js';
import type { Body, MovedJson } from '../api/responses.js';
import { serve } from '../api/route.js';

/**
 * `underDeadline`: the request deadline (deadline.ts `storeDeadline`), which the page read arms
 * only when it reaches Cassandra (app.ts mounts none on this route); unset = no deadline.
 */
export function gridRoutes(
  service: GridService,
  idempotency?: IdempotencyService,
  underDeadline?: StoreDeadline,
) {
  const app = new OpenAPIHono<AppEnv>();

  serve(app, move, async (c) => {
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

  serve(app, readGrid, async (c) => {
    const { profile_id: profileId } = c.req.valid('param');
    const { limit, cursor, min_version: minVersion } = c.req.valid('query');
    const q = { profileId, limit, cursor, minVersion };
    const reach: ReachStore | undefined = underDeadline && ((work) => underDeadline(c, work));
    return sendRendered(c, await service.pages.read(q, renderGridPage, reach));
  });

  return app;
}
