/**
 * The grid: move one post, read a page.
 *   POST /v1/me/grid/moves                 {post_id, after} → {grid_version, move_id} + ETag
 *   GET  /v1/profiles/:profile_id/grid     ?limit&cursor&min_version
 *        → {items: [{id, caption, media_url, created_at}], next_cursor, grid_version, grid_changed,
 *           post_count?}   (strong ETag; If-None-Match → 304: conditional.ts)
 *
 * A page is read through one contract (service/read/rendered-read.ts) in two steps, each tier
 * once. The page front (`gridPageFront`) is mounted on the page's route ahead of the app's
 * middleware (app.ts): a first page held in the process-local tier is answered there, with the
 * response, request metrics and log line the route would give (observe.ts `recordRequest`).
 * Such an answer waits for nothing, so it cannot overrun a deadline, and what it skips is
 * per-request overhead only: the middleware chain, the deadline's timer and statement scope.
 * Anything else (HEAD, a cursor, input the route refuses, a local miss, a request drawn for a
 * sampled check) goes on down the chain to the route, which reads it under the deadline; the
 * front's sample draw goes with it as a context variable (`pageDraw`), so a request is drawn once.
 */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { ServerResponse } from 'node:http';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { formatEtag } from '../../domain/etag.js';
import type { Logger } from '../../obs/logger.js';
import type { GridService } from '../../service/grid-service.js';
import type { RenderedRead } from '../../service/read/rendered-read.js';
import type { IdempotencyService, StoredResponse } from '../../service/idempotency/idempotency.js';
import { renderedAnswer, sendRendered } from '../conditional.js';
import { headerOf, type AppEnv } from '../env.js';
import { idempotentWrite, requestScopedUuid } from '../idempotent.js';
import { recordRequest, requestIdOf } from '../observe.js';
import { readBody, readQuery } from '../request.js';
import { GridQuery, MoveBody, parseIdParam } from '../schemas.js';
import { renderGridPage, versionView } from '../views.js';
import type { Body, MovedJson } from '../api/responses.js';

/** The page's route, as mounted under /v1 (and as the request metrics label it). */
export const GRID_PAGE_ROUTE = '/v1/profiles/:profile_id/grid';

/** The page asked for, exactly as the route parses it (errors are the route's to answer). */
function pageQuery(c: Context<AppEnv>) {
  const profileId = parseIdParam(c.req.param('profile_id'), 'profile_id');
  const q = readQuery(c, GridQuery);
  return { profileId, limit: q.limit, cursor: q.cursor, minVersion: q.min_version };
}

/** The page front: a held first page answered ahead of the app's middleware (see the header). */
export function gridPageFront(pages: RenderedRead, logger: Logger): MiddlewareHandler<AppEnv> {
  return async function answerHeldPage(c, next) {
    if (c.req.method !== 'GET') return next(); // HEAD is routed as GET: the route answers it
    const started = performance.now();
    let got;
    try {
      got = await pages.held(pageQuery(c));
    } catch {
      return next(); // never the front's own answer: the route answers (and reports) it
    }
    if (!('body' in got)) {
      c.set('pageDraw', got.sampled);
      return next();
    }
    const requestId = requestIdOf(headerOf(c, 'x-request-id'));
    const reply = renderedAnswer(got, requestId, headerOf(c, 'if-none-match'));
    const { status } = reply;
    const path = c.req.path;
    // The pattern as matched: under a host's prefix when mounted (docs/embedding.md).
    const route = routePath(c);
    recordRequest(logger, {
      requestId,
      method: 'GET',
      route,
      path,
      status,
      started,
    });
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (status === 304 && outgoing) {
      // Sent here (the adapter's documented escape hatch): a body-less Response would make the
      // adapter build a fetch Response and copy its Headers back, per request.
      outgoing.writeHead(304, reply.headers).end();
      return RESPONSE_ALREADY_SENT;
    }
    return new Response(status === 304 ? null : got.body, reply);
  };
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
    return sendRendered(c, await service.pages.read(q, renderGridPage, c.get('pageDraw')));
  });

  return app;
}
