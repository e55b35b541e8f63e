/**
 * Sort keys for user-ordered grids: 64-bit integers seeded by post IDs (design article §4.3).
 *
 * The engine sees a grid as an ascending list of (postId, key), bottom of the grid first (the
 * display reverses it). A post never moved has key = its post ID; a move gives it a key between
 * its new neighbours. The engine answers one question: which rows to write so that one post
 * (placeOne) or several (placeMany, for batch reorders) land in a given gap. It is pure: the
 * store reads a slice of the grid around the gap, calls it, and writes the answer.
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
 *     moved posts inserted at the gap. When no such keys exist even for the whole grid the call
 *     throws DomainError('key_space_exhausted'): an error, never a wrong order.
 *  3. The answer depends only on entries near the gap. A slice that holds the window and its
 *     bounds gives the same answer as the whole grid; a shorter one gives 'need_more'.
 *
 * Worked example (adaptive policy; test/unit/domain/keys.test.ts runs it). Posts O, P, Q about a
 * second apart (a second is 1000 · 2^23 ≈ 2^33 ID units) with keys o, p = o + 2^33, p + 2^33:
 *   placeOne({ entries: [O, P, Q], gap: 2, reachesBottom: true, reachesTop: true }, M1, ceiling)
 *     → { kind: 'placed', writes: [{ postId: M1, key: p + 2^32 }], relabelled: 0 }
 * Putting M2, M3, … each directly above P halves the gap above P every time: M33 gets p + 1, and
 * M34 finds no integer between p and p + 1. The smallest window with room is P alone, whose gap
 * down to O is 2^33 wide: P moves down to p + 1 − 2^24 and M34 goes 2^23 above it (2 rows), which
 * leaves 2^23 on either side of M34 for the next 23 moves into that gap.
 */
import { placeAdaptive } from './relabel-adaptive.js';
import { placeDoubling } from './relabel-doubling.js';
import { NEED_MORE, type PlaceFn } from './relabel.js';

/** A grid entry and its effective key (override sort_key, else its post ID). */
export interface Keyed {
  readonly postId: bigint;
  readonly key: bigint;
}

/** 'adaptive' (default) is regrid's policy; 'doubling' is the article's baseline. */
export type RelabelPolicy = 'adaptive' | 'doubling';

export interface Slice {
  /** Contiguous run of the grid, ascending by (key, postId); pins and moved posts excluded. */
  readonly entries: readonly Keyed[];
  /** Insert between entries[gap - 1] and entries[gap] (0..entries.length). */
  readonly gap: number;
  /** entries[0] is the lowest entry of the grid (the bound below it is 0). */
  readonly reachesBottom: boolean;
  /** entries[length - 1] is the highest entry of the grid (the bound above it is the ceiling). */
  readonly reachesTop: boolean;
}

export type Placement =
  { kind: 'placed'; writes: Keyed[]; relabelled: number } | { kind: 'need_more' };

const MAX_CEILING = (1n << 63n) - 1n;
const POLICIES: Record<RelabelPolicy, PlaceFn> = {
  adaptive: placeAdaptive,
  doubling: placeDoubling,
};

/** An integer strictly between lo and hi (their midpoint), or undefined when none exists. */
export function keyBetween(lo: bigint, hi: bigint): bigint | undefined {
  return hi - lo < 2n ? undefined : lo + (hi - lo) / 2n;
}

/** Rows to write so that `postId` sits at `slice.gap`. */
export function placeOne(
  slice: Slice,
  postId: bigint,
  ceiling: bigint,
  policy: RelabelPolicy = 'adaptive',
): Placement {
  return placeMany(slice, [postId], ceiling, policy);
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
  policy: RelabelPolicy = 'adaptive',
): Placement {
  validate(slice, postIds, ceiling);
  const plan = POLICIES[policy](slice, postIds.length, ceiling);
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
