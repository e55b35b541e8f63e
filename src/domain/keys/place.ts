/**
 * Placement, the key engine's core call: sort keys for user-ordered grids, 64-bit integers
 * seeded by post IDs (design article §4.3). It validates the call and hands it to the relabel
 * policy (relabel-bounded.ts; the benchmarks hand others, bench/keys/policies.ts); the types and
 * bounds are in slice.ts.
 *
 * The engine sees a grid as an ascending list of (postId, key), bottom of the grid first (the
 * display reverses it). A post never moved has key = its post ID; a move gives it a key between
 * its new neighbours. The engine answers one question: which rows to write so that one post
 * (placeOne) or several (placeMany, for batch reorders) land in a given gap. It is pure: the
 * service reads a slice of the grid around the gap (src/service/operations/placement.ts, through
 * gap.ts; batch reorders pass the whole grid, domain/batch-order.ts) and writes the answer.
 *
 * Preconditions, checked where read: keys are non-decreasing along the slice (ties are allowed
 * and get healed by a relabel), every key lies in (0, ceiling), and the ceiling is a freshly issued
 * post ID (<= 2^63 − 1). The moved posts are not in the slice.
 *
 * Invariants of every 'placed' answer:
 *  1. `writes` is the new content of one contiguous window of the resulting order: the relabelled
 *     entries below the gap, the moved posts in the order given, the relabelled entries above it.
 *     Their keys strictly increase and lie strictly between the keys just outside the window
 *     (0 and the ceiling at the ends), so every key stays in (0, ceiling) and fits a signed 64-bit
 *     integer; the midpoint is lo + (hi − lo)/2, which cannot overflow.
 *  2. Entries outside the window keep their keys, so the order becomes exactly the slice with the
 *     moved posts inserted at the gap (ties outside the window stay ties). When no such keys exist
 *     even for the whole grid the call throws DomainError('key_space_exhausted'): an error, never
 *     a wrong order. Only slice entries are considered: a written key may equal the effective key
 *     of a post left out of the slice (a pin), which is why unpinning re-checks (restore-key.ts).
 *  3. The answer depends only on entries near the gap. A slice that holds the window and its
 *     bounds gives the same answer as the whole grid; a shorter one gives 'need_more'.
 *
 * The worked example of the engine is in src/domain/keys.ts.
 */
import { placeBounded } from './relabel-bounded.js';
import { NEED_MORE, type Keyed, type PlaceFn, type RelabelResult, type Slice } from './slice.js';

export type Placement =
  { kind: 'placed'; writes: Keyed[]; relabelled: number } | { kind: 'need_more' };

const MAX_CEILING = (1n << 63n) - 1n;

/** Rows to write so that `postId` sits at `slice.gap`. */
export function placeOne(
  slice: Slice,
  postId: bigint,
  ceiling: bigint,
  place: PlaceFn = placeBounded,
): Placement {
  return placeMany(slice, [postId], ceiling, place);
}

/**
 * Rows to write so that `postIds` (ascending: the first one lowest) sit at `slice.gap`, in that
 * order, dividing the gap evenly between them; relabels a window around the gap when they do not
 * fit. `relabelled` counts the other rows rewritten.
 */
export function placeMany(
  slice: Slice,
  postIds: readonly bigint[],
  ceiling: bigint,
  place: PlaceFn = placeBounded,
): Placement {
  const plan = planOf(slice, postIds, ceiling, place);
  if (plan === NEED_MORE) return { kind: 'need_more' };
  const { from, to, keys } = plan;
  const postsInOrder = [
    ...slice.entries.slice(from, slice.gap).map((e) => e.postId),
    ...postIds,
    ...slice.entries.slice(slice.gap, to).map((e) => e.postId),
  ];
  const writes = postsInOrder.map((id, i) => ({ postId: id, key: keys[i] as bigint }));
  return { kind: 'placed', writes, relabelled: to - from };
}

/** The policy's window and new keys, after validating the call. `place` is the policy. */
export function planOf(
  slice: Slice,
  postIds: readonly bigint[],
  ceiling: bigint,
  place: PlaceFn,
): RelabelResult {
  validate(slice, postIds, ceiling);
  return place(slice, postIds.length, ceiling);
}

function validate(slice: Slice, postIds: readonly bigint[], ceiling: bigint): void {
  const { gap, entries } = slice;
  if (!Number.isInteger(gap) || gap < 0 || gap > entries.length) {
    throw new RangeError(`gap ${gap} is outside 0..${entries.length}`);
  }
  if (ceiling < 2n || ceiling > MAX_CEILING) {
    throw new RangeError(`ceiling ${ceiling} is outside 2..2^63-1`);
  }
  if (postIds.length === 0 || new Set(postIds).size !== postIds.length) {
    throw new RangeError('postIds must be non-empty and distinct');
  }
}
