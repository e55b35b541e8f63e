/** The registry's grid routes: moves, undo, pages, pins, reset, the order resource (routes/grid*). */
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
import type { OperationSpec } from './operation.js';

const A = '4212987700266891264';
const B = '4212987700602435584';
const C = '4212987700686321664';

export const gridOperations = {
  move: {
    method: 'post',
    path: '/v1/me/grid/moves',
    tag: 'grid',
    summary: 'Move one post',
    description:
      '`after` is the post that should come right before it; `null` (or a pinned post) = the top, after the pins. 409 `anchor_not_on_grid` (with the current `grid_version`) when `after` left the grid; unpin a pinned post before moving it.',
    auth: 'user',
    body: MoveBody,
    requestExample: { post_id: A, after: null },
    idempotent: true,
    ok: {
      status: 200,
      description:
        'the new grid version and the undo handle; `ETag: "<generation>.<version>"` names the state the move committed',
      schema: MovedJson,
      example: { grid_version: '4', move_id: '0f7d3c1e-5b0a-4d3e-9a55-2f1c9e8b7a61' },
      etag: true,
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
  },
  undoMove: {
    method: 'post',
    path: '/v1/me/grid/moves/:move_id/undo',
    tag: 'grid',
    summary: 'Undo a move',
    description:
      "`exact` restores the previous key when nothing else changed; `anchor` moves the post back after the post that was above it (with the move's 409s).",
    auth: 'user',
    params: { move_id: MoveIdParam },
    idempotent: true,
    ok: {
      status: 200,
      description: 'how the move was undone',
      schema: UndoneJson,
      example: { grid_version: '5', restored: 'exact' },
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
  },
  readGrid: {
    method: 'get',
    path: '/v1/profiles/:profile_id/grid',
    tag: 'grid',
    summary: 'Read a page of the grid in display order',
    description:
      'Pins first (first page only, in addition to `limit`), then the main order. Pass `next_cursor` as `cursor` for the next page; `grid_changed` says the grid changed since the cursor was issued. `min_version` (a version or `generation.version`) = read-your-writes. Every page has a strong `ETag` of its body; `If-None-Match` with it answers 304 while the page is unchanged.',
    auth: 'none',
    params: { profile_id: IdString },
    query: GridQuery,
    conditionalGet: true,
    ok: {
      status: 200,
      description: 'a page',
      schema: GridPageJson,
      etag: 'body',
      example: {
        items: [{ id: C, caption: null, media_url: null, created_at: '2026-11-30T19:34:30.684Z' }],
        next_cursor: null,
        grid_version: '9',
        grid_changed: false,
        post_count: '1',
      },
    },
    problems: ['bad_cursor', 'contention'],
  },
  setPins: {
    method: 'put',
    path: '/v1/me/grid/pins',
    tag: 'grid',
    summary: 'Set the pins (0-3 posts, in pin order)',
    auth: 'user',
    body: PinsBody,
    requestExample: { post_ids: [C] },
    idempotent: true,
    ok: {
      status: 200,
      description: 'the pins',
      schema: PinsJson,
      example: { grid_version: '5', pins: [C] },
    },
    problems: ['post_not_on_grid', 'key_space_exhausted', 'contention'],
  },
  resetGrid: {
    method: 'post',
    path: '/v1/me/grid/reset',
    tag: 'grid',
    summary: 'Back to chronological order (pins stay)',
    auth: 'user',
    idempotent: true,
    ok: {
      status: 200,
      description: 'how many overrides were dropped',
      schema: ResetJson,
      example: { grid_version: '9', overrides_dropped: 2 },
    },
    problems: ['contention', 'feature_disabled'],
  },
  getOrder: {
    method: 'get',
    path: '/v1/me/grid/order',
    tag: 'order',
    summary: 'The order resource (post IDs only)',
    description:
      'Carries `ETag: "<generation>.<version>"`: send it as `If-Match` with PATCH; `If-None-Match` with the current tag gives 304.',
    auth: 'user',
    conditionalGet: true,
    ok: {
      status: 200,
      description: 'the main order (pins excluded) and the pins',
      schema: OrderJson,
      example: { post_ids: [A, B], pinned: [C] },
      etag: true,
    },
    problems: ['feature_disabled'],
  },
  patchOrder: {
    method: 'patch',
    path: '/v1/me/grid/order',
    tag: 'order',
    summary: 'Batch reorder with If-Match',
    description:
      'The whole main order `{post_ids}` or a contiguous range `{post_ids, above, below}` named by its outside neighbours (null = the top / the bottom). Only posts off a longest increasing subsequence get new keys. 428 without `If-Match`, 412 when the grid changed since: reload, replay the recorded moves, send again (design §5.3).',
    auth: 'user',
    body: OrderPatchBody,
    requestExample: { post_ids: [B, A] },
    idempotent: true,
    ifMatch: true,
    ok: {
      status: 200,
      description: 'rows written (n - LIS, more only if a gap was relabelled)',
      schema: OrderPatchedJson,
      example: { grid_version: '6', rows_written: 1 },
      etag: true,
    },
    problems: [
      'post_not_on_grid',
      'precondition_failed',
      'precondition_required',
      'key_space_exhausted',
      'contention',
      'feature_disabled',
    ],
  },
} as const satisfies Record<string, OperationSpec>;
