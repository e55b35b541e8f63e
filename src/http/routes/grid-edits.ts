/**
 * Grid-wide writes on the caller's own grid (api/ops-grid.ts): pins, reset, undo, and the order
 * resource. Every write accepts Idempotency-Key. The order resource returns nothing but the
 * order, which is why the grid version can be its entity tag (design §5.3).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { formatEtag, ifNoneMatchMatches } from '../../domain/etag.js';
import type { GridService } from '../../service/grid-service.js';
import type { IdempotencyService, StoredResponse } from '../../service/idempotency/idempotency.js';
import { headerOf, type AppEnv } from '../env.js';
import { OrderPatchBody, PinsBody } from '../edit-schemas.js';
import { readBody } from '../request.js';
import { versionView } from '../views.js';
import { getOrder, patchOrder, resetGrid, setPins, undoMove } from '../api/ops-grid.js';
import { serve } from '../api/route.js';
import { gridWrite } from './grid-write.js';
import type {
  Body,
  OrderJson,
  OrderPatchedJson,
  PinsJson,
  ResetJson,
  UndoneJson,
} from '../api/responses.js';

export function gridFeatureRoutes(features: GridService, idem?: IdempotencyService) {
  const app = new OpenAPIHono<AppEnv>();

  serve(app, setPins, async (c) => {
    const profileId = c.get('profileId');
    const body = await readBody(c, PinsBody);
    const render = (r: unknown, v: bigint): StoredResponse => ({
      status: 200,
      body: {
        grid_version: versionView(v),
        pins: ((r as { pins: readonly bigint[] }).pins ?? []).map(String),
      } satisfies Body<typeof PinsJson>,
    });
    return gridWrite(c, idem, render, (opts) => features.setPins(profileId, body.post_ids, opts));
  });

  serve(app, resetGrid, async (c) => {
    const profileId = c.get('profileId');
    const render = (r: unknown, v: bigint): StoredResponse => ({
      status: 200,
      body: {
        grid_version: versionView(v),
        overrides_dropped: (r as { overridesDropped: number }).overridesDropped,
      } satisfies Body<typeof ResetJson>,
    });
    return gridWrite(c, idem, render, (opts) => features.reset(profileId, opts));
  });

  serve(app, undoMove, async (c) => {
    const profileId = c.get('profileId');
    const moveId = c.req.valid('param').move_id;
    const render = (r: unknown, v: bigint): StoredResponse => ({
      status: 200,
      body: {
        grid_version: versionView(v),
        restored: (r as { exact: boolean }).exact ? 'exact' : 'anchor',
      } satisfies Body<typeof UndoneJson>,
    });
    return gridWrite(c, idem, render, (opts) => features.undoMove(profileId, moveId, opts));
  });

  serve(app, getOrder, async (c) => {
    const order = await features.readOrder(c.get('profileId'));
    const inm = headerOf(c, 'if-none-match');
    if (inm && ifNoneMatchMatches(inm, order)) {
      return c.body(null, 304, { ETag: order.etag });
    }
    const view = {
      post_ids: order.postIds.map(String),
      pinned: order.pinned.map(String),
    } satisfies Body<typeof OrderJson>;
    return c.json(view, 200, {
      ETag: order.etag,
      'Cache-Control': 'private, no-cache',
    });
  });

  serve(app, patchOrder, async (c) => {
    const profileId = c.get('profileId');
    const ifMatch = headerOf(c, 'if-match');
    const body = await readBody(c, OrderPatchBody);
    const render = (r: unknown, v: bigint, g: bigint): StoredResponse => ({
      status: 200,
      body: {
        grid_version: versionView(v),
        rows_written: (r as { rowsWritten: number }).rowsWritten,
      } satisfies Body<typeof OrderPatchedJson>,
      etag: formatEtag({ version: v, generation: g }),
    });
    const request = {
      postIds: body.post_ids,
      ...(body.above !== undefined ? { above: body.above } : {}),
      ...(body.below !== undefined ? { below: body.below } : {}),
    };
    return gridWrite(c, idem, render, (opts) =>
      features.patchOrder(profileId, ifMatch, request, opts),
    );
  });

  return app;
}
