/**
 * The grid's exact post count (static `post_count`, issue 4), kept inside the grid's own
 * compare-and-set by every planner that changes membership.
 *
 * Membership writes put or remove the `grid_posts` row BEFORE the bump (posts-service.ts), so at
 * planning time the rows already show this write. Two ways to get the new count:
 * - `delta`: the snapshot's count + the change. The compare-and-set on the version serializes it
 *   exactly like the version itself; costs nothing extra.
 * - `recount`: COUNT(*) over the grid's `grid_posts` partition (rows already include this write,
 *   so no delta is added). Used when the delta cannot be trusted: the cell is absent (a grid that
 *   predates the column), an earlier attempt of this write timed out (it may have committed,
 *   and applying the delta twice would drift), or the caller finishes a job an earlier request
 *   began (it cannot tell whether that request's change was counted).
 * Moves, pins, reset and batch order do not change membership and never call this: the cell is
 * left unset in their batches (no write, and never a null).
 */
import type { GridMutation } from '../store/grid-mutation.js';
import type { GridStore } from '../store/grid-store.js';
import type { PlanContext } from './grid-writer.js';

/** +1 / -1 for a change this call made itself; 'recount' when it cannot know. */
export type CountChange = bigint | 'recount';

export async function nextPostCount(
  store: Pick<GridStore, 'countGridRows'>,
  ctx: Pick<PlanContext, 'profileId' | 'snapshot' | 'outcomeUnknown'>,
  change: CountChange,
): Promise<bigint> {
  const known = ctx.snapshot.head.postCount;
  if (change !== 'recount' && known !== undefined && !ctx.outcomeUnknown) {
    const next = known + change;
    // Never store a negative count: a negative result means the cell had drifted, so count.
    if (next >= 0n) return next;
  }
  return store.countGridRows(ctx.profileId);
}

/** The mutation with the new count added to its static writes. */
export async function withPostCount(
  store: Pick<GridStore, 'countGridRows'>,
  ctx: Pick<PlanContext, 'profileId' | 'snapshot' | 'outcomeUnknown'>,
  change: CountChange,
  mutation: GridMutation,
): Promise<GridMutation> {
  const postCount = await nextPostCount(store, ctx, change);
  return { ...mutation, statics: { ...mutation.statics, postCount } };
}
