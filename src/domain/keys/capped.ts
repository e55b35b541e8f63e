/**
 * A hard cap on the rows one write may carry (MOVE_ROW_CAP, default 256): `placeCapped` answers a
 * move with either its placement, when the policy's relabel fits the cap, or one step of that
 * relabel, which the caller writes in its own compare-and-set before planning the move again.
 *
 * Nothing is recorded between steps: the next plan is computed from the keys the step left,
 * which is what the override partition holds. Under 'bounded' it finds the same node and the
 * same target keys (the node's entries, their order and the count are unchanged), so the entries
 * already at their targets need no row and the relabel resumes where it stopped; if the step
 * opened enough room for a smaller placement, the plan takes that instead (fewer rows).
 *
 * Every intermediate state is a valid order. Of the window's entries, those whose target is below
 * their key ("down") are written lowest first and those whose target is above ("up") highest
 * first; any such prefix of each keeps keys strictly increasing: a down entry's target lies above
 * its lower neighbour's target (already written, or below its current key as the neighbour is not
 * a down entry still to move) and below its own current key, hence below its upper neighbour's;
 * symmetrically for up entries. The moved posts are written only by the last step, with every
 * remaining entry, when the whole target order is reached at once.
 */
import { planOf } from './place.js';
import { placeBounded } from './relabel-bounded.js';
import { NEED_MORE, type Keyed, type PlaceFn, type Slice } from './slice.js';

export type CappedPlacement =
  /** The move's last write: the moved posts and every entry whose key changes (`relabelled`). */
  | { kind: 'placed'; writes: Keyed[]; relabelled: number }
  /** Part of a relabel, without the moved posts: write it, then plan the move again. */
  | { kind: 'relabel_step'; writes: Keyed[] }
  | { kind: 'need_more' };

export const DEFAULT_ROW_CAP = 256;

export function placeCapped(
  slice: Slice,
  postIds: readonly bigint[],
  ceiling: bigint,
  cap: number,
  place: PlaceFn = placeBounded,
): CappedPlacement {
  if (!Number.isInteger(cap) || cap < postIds.length + 1) {
    throw new RangeError(`row cap ${cap} must be an integer above the posts placed`);
  }
  const plan = planOf(slice, postIds, ceiling, place);
  if (plan === NEED_MORE) return { kind: 'need_more' };
  const { from, to, keys } = plan;
  const gap = slice.gap;
  const down: Keyed[] = [];
  const up: Keyed[] = [];
  const placed: Keyed[] = [];
  for (let i = from; i < to; i++) {
    const e = slice.entries[i]!;
    const key = keys[i < gap ? i - from : i - from + postIds.length]!;
    if (key < e.key) down.push({ postId: e.postId, key });
    else if (key > e.key) up.push({ postId: e.postId, key });
  }
  const changed = down.length + up.length;
  if (changed + postIds.length <= cap) {
    const moved = postIds.map((postId, j) => ({ postId, key: keys[gap - from + j]! }));
    placed.push(...down, ...up, ...moved);
    placed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { kind: 'placed', writes: placed, relabelled: changed };
  }
  // Down entries lowest first, up entries highest first, alternately, up to the cap.
  const step: Keyed[] = [];
  for (let d = 0, u = up.length - 1; step.length < cap && (d < down.length || u >= 0);) {
    if (d < down.length) step.push(down[d++]!);
    if (step.length < cap && u >= 0) step.push(up[u--]!);
  }
  return { kind: 'relabel_step', writes: step };
}
