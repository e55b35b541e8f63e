/** The grid routes: moves, undo, pages, pins, reset, the order resource (routes/grid*). */
import { z } from '@hono/zod-openapi';
import { MoveIdParam, OrderPatchBody, PinsBody } from '../edit-schemas.js';
import { GridQuery, IdString, MoveBody } from '../schemas.js';
import {
  GridPageJson,
  MovedJson,
  OrderJson,
  OrderPatchedJson,
  PinsJson,
  ResetJson,
  UndoneJson,
} from './responses.js';
import {
  etag,
  idempotencyKey,
  ifMatch,
  ifNoneMatch,
  json,
  notModified,
  ok,
  pageEtag,
  route,
  user,
} from './route.js';

const A = '4212987700266891264';
const B = '4212987700602435584';
const C = '4212987700686321664';

export const move = route('move', {
  method: 'post',
  path: '/v1/me/grid/moves',
  tags: ['grid'],
  summary: 'Move one post',
  description:
    '`after` is the post that should come right before it; `null` (or a pinned post) = the top, after the pins. 409 `anchor_not_on_grid` (with the current `grid_version`) when `after` left the grid; unpin a pinned post before moving it.',
  security: user,
  parameters: [idempotencyKey],
  request: { body: json(MoveBody, { post_id: A, after: null }) },
  responses: {
    200: ok(
      'the new grid version and the undo handle; `ETag: "<generation>.<version>"` names the state the move committed',
      MovedJson,
      { grid_version: '4', move_id: '0f7d3c1e-5b0a-4d3e-9a55-2f1c9e8b7a61' },
      etag,
    ),
  },
  problems: [
    'post_not_on_grid',
    'post_pinned',
    'anchor_not_on_grid',
    'key_space_exhausted',
    'rate_limited',
    'contention',
    'feature_disabled',
  ],
});

export const undoMove = route('undoMove', {
  method: 'post',
  path: '/v1/me/grid/moves/{move_id}/undo',
  tags: ['grid'],
  summary: 'Undo a move',
  description:
    "`exact` restores the previous key when nothing else changed; `anchor` moves the post back after the post that was above it (with the move's 409s).",
  security: user,
  parameters: [idempotencyKey],
  request: { params: z.object({ move_id: MoveIdParam }) },
  responses: {
    200: ok('how the move was undone', UndoneJson, { grid_version: '5', restored: 'exact' }),
  },
  problems: [
    'post_not_found',
    'post_not_on_grid',
    'post_pinned',
    'anchor_not_on_grid',
    'key_space_exhausted',
    'contention',
    'feature_disabled',
  ],
});

export const readGrid = route('readGrid', {
  method: 'get',
  path: '/v1/profiles/{profile_id}/grid',
  tags: ['grid'],
  summary: 'Read a page of the grid in display order',
  description:
    'Pins first (first page only, in addition to `limit`), then the main order. Pass `next_cursor` as `cursor` for the next page; `grid_changed` says the grid changed since the cursor was issued. `min_version` (a version or `generation.version`) = read-your-writes. Every page has a strong `ETag` of its body; `If-None-Match` with it answers 304 while the page is unchanged.',
  security: [],
  parameters: [ifNoneMatch],
  request: { params: z.object({ profile_id: IdString }), query: GridQuery },
  responses: {
    200: ok(
      'a page',
      GridPageJson,
      {
        items: [{ id: C, caption: null, media_url: null, created_at: '2026-11-30T19:34:30.684Z' }],
        next_cursor: null,
        grid_version: '9',
        grid_changed: false,
        post_count: '1',
      },
      pageEtag,
    ),
    ...notModified(pageEtag),
  },
  problems: ['bad_cursor', 'contention'],
});

export const setPins = route('setPins', {
  method: 'put',
  path: '/v1/me/grid/pins',
  tags: ['grid'],
  summary: 'Set the pins (0-3 posts, in pin order)',
  security: user,
  parameters: [idempotencyKey],
  request: { body: json(PinsBody, { post_ids: [C] }) },
  responses: { 200: ok('the pins', PinsJson, { grid_version: '5', pins: [C] }) },
  problems: ['post_not_on_grid', 'key_space_exhausted', 'contention'],
});

export const resetGrid = route('resetGrid', {
  method: 'post',
  path: '/v1/me/grid/reset',
  tags: ['grid'],
  summary: 'Back to chronological order (pins stay)',
  security: user,
  parameters: [idempotencyKey],
  responses: {
    200: ok('how many overrides were dropped', ResetJson, {
      grid_version: '9',
      overrides_dropped: 2,
    }),
  },
  problems: ['contention', 'feature_disabled'],
});

export const getOrder = route('getOrder', {
  method: 'get',
  path: '/v1/me/grid/order',
  tags: ['order'],
  summary: 'The order resource (post IDs only)',
  description:
    'Carries `ETag: "<generation>.<version>"`: send it as `If-Match` with PATCH; `If-None-Match` with the current tag gives 304.',
  security: user,
  parameters: [ifNoneMatch],
  responses: {
    200: ok(
      'the main order (pins excluded) and the pins',
      OrderJson,
      { post_ids: [A, B], pinned: [C] },
      etag,
    ),
    ...notModified(etag),
  },
  problems: ['feature_disabled'],
});

export const patchOrder = route('patchOrder', {
  method: 'patch',
  path: '/v1/me/grid/order',
  tags: ['order'],
  summary: 'Batch reorder with If-Match',
  description:
    'The whole main order `{post_ids}` or a contiguous range `{post_ids, above, below}` named by its outside neighbours (null = the top / the bottom). Only posts off a longest increasing subsequence get new keys. 428 without `If-Match`, 412 when the grid changed since: reload, replay the recorded moves, send again (design §5.3).',
  security: user,
  parameters: [idempotencyKey, ifMatch],
  request: { body: json(OrderPatchBody, { post_ids: [B, A] }) },
  responses: {
    200: ok(
      'rows written (n - LIS, more only if a gap was relabelled)',
      OrderPatchedJson,
      { grid_version: '6', rows_written: 1 },
      etag,
    ),
  },
  problems: [
    'post_not_on_grid',
    'precondition_failed',
    'precondition_required',
    'key_space_exhausted',
    'contention',
    'feature_disabled',
  ],
});
