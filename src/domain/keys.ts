/**
 * The key engine (docs/key-engine.md): sort keys for user-ordered grids, 64-bit integers seeded by
 * post IDs (design article §4.3). This file is its face: validation, the rows to write, the row
 * cap, and the slice around a gap; the policy is keys/relabel.ts on the hierarchy of
 * keys/nodes.ts, the shared types keys/slice.ts. All of it is pure: no I/O, no clock, no
 * randomness. The reads that feed it are src/service/operations/placement.ts; batch reorders pass
 * the whole grid (domain/batch-order.ts). The policies the benchmarks compare are in bench/keys/.
 *
 * The engine sees a grid as an ascending list of (postId, key), bottom first (the display reverses
 * it). A post never moved has key = its post ID; a move gives it a key between its new neighbours.
 * Preconditions, checked where read: keys are non-decreasing along the slice (ties are healed by a
 * relabel), every key lies in (0, ceiling), the ceiling is a freshly issued post ID (<= 2^63 − 1),
 * and the moved posts are not in the slice.
 *
 * Invariants of every 'placed' answer:
 *  1. `writes` is the new content of one contiguous window of the resulting order: the relabelled
 *     entries below the gap, the moved posts in the order given, the relabelled entries above it,
 *     keys strictly increasing strictly between the keys just outside (0 and the ceiling at the
 *     ends); the midpoint is lo + (hi − lo)/2, which cannot overflow.
 *  2. Entries outside the window keep their keys. When no such keys exist even for the whole grid
 *     the call throws DomainError('key_space_exhausted'), never a wrong order. Only slice entries
 *     are considered: a written key may equal the effective key of a post left out of the slice
 *     (a pin), which is why unpinning re-checks (restore-key.ts).
 *  3. A slice that holds the window and its bounds gives the whole grid's answer; a shorter one
 *     gives 'need_more'.
 *
 * Worked example (test/unit/domain/keys.test.ts runs it). Posts O, P, Q about a
 * second apart (a second is 1000 · 2^23 ≈ 2^33 ID units) with keys o, p = o + 2^33, p + 2^33:
 *   placeOne({ entries: [O, P, Q], gap: 2, reachesBottom: true, reachesTop: true }, M1, ceiling)
 *     → { kind: 'placed', writes: [{ postId: M1, key: p + 2^32 }], relabelled: 0 }
 * Putting M2, M3, … each directly above P halves the gap above P every time: M33 gets p + 1, and
 * M34 finds no integer between p and p + 1. The smallest window with room is P alone, whose gap
 * down to O is 2^33 wide: P moves down to p + 1 − 2^24 and M34 goes 2^23 above it (2 rows), which
 * leaves 2^23 on either side of M34 for the next 23 moves into that gap.
 */
import { DomainError } from './errors.js';
import { MAX_ID } from './ids.js';
import { compareDisplay, type GridEntry } from './merge.js';
import { placeBounded } from './keys/relabel.js';
import { NEED_MORE, type Keyed, type PlaceFn, type Slice } from './keys/slice.js';

export type { Keyed, Slice } from './keys/slice.js';
export { amortizedBound, potential } from './keys/nodes.js';

/** 'placed': the rows to write; `relabelled` counts the other rows whose key changes. */
export type Placement =
  { kind: 'placed'; writes: Keyed[]; relabelled: number } | { kind: 'need_more' };
/** Under a row cap also one step of a relabel, without the moved posts: write it, plan again. */
export type CappedPlacement = Placement | { kind: 'relabel_step'; writes: Keyed[] };

const MAX_CEILING = (1n << 63n) - 1n;

/** Rows to write so that `postId` sits at `slice.gap`. `place`: the policy (benchmarks only). */
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
  validate(slice, postIds, ceiling);
  const plan = place(slice, postIds.length, ceiling);
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

export const DEFAULT_ROW_CAP = 256;

/**
 * A hard cap on the rows one write may carry (MOVE_ROW_CAP): the placement when its changed rows
 * fit `cap`, else one step of its relabel, which the caller writes in its own compare-and-set
 * before planning the move again. Nothing is recorded between steps: the next plan starts from
 * the keys the step left, finds the same node and targets, and needs no row for entries already
 * there. Every intermediate state is a valid order: entries whose target is below their key are
 * written lowest first, those whose target is above highest first, and any such prefix keeps keys
 * strictly increasing (docs/key-engine.md, "The cap").
 */
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
  const plan = placeMany(slice, postIds, ceiling, place);
  if (plan.kind === 'need_more') return plan;
  // The writes are the window [from, to) with the moved posts at index `at` (placeMany).
  const n = postIds.length;
  const at = plan.writes.findIndex((w) => w.postId === postIds[0]);
  const from = slice.gap - at;
  const down: Keyed[] = [];
  const up: Keyed[] = [];
  const writes = plan.writes.filter((w, i) => {
    if (i >= at && i < at + n) return true;
    const key = slice.entries[i < at ? from + i : from + i - n]!.key;
    if (w.key < key) down.push(w);
    else if (w.key > key) up.push(w);
    return w.key !== key;
  });
  const changed = down.length + up.length;
  if (changed + n <= cap) return { kind: 'placed', writes, relabelled: changed };
  // Down entries lowest first, up entries highest first, alternately, up to the cap.
  const step: Keyed[] = [];
  for (let d = 0, u = up.length - 1; step.length < cap && (d < down.length || u >= 0);) {
    if (d < down.length) step.push(down[d++]!);
    if (step.length < cap && u >= 0) step.push(up[u--]!);
  }
  return { kind: 'relabel_step', writes: step };
}

// --- a gap of the merged order -----------------------------------------------------------------

/**
 * The slice around a gap. Display order is descending, so "right after anchor A" (just below A on
 * screen) is, ascending, the gap just before A: `below` is the merged order read downward from A
 * (nearest first, the stream a page read uses), `above` the entries from A upward (ascending,
 * nearest first), each read with a limit of `width + 1`. The extra entry on each side only tells
 * whether that side reached the grid's end. Example (keys small): display order 90 80 70 60, move
 * X after 80 → below = [70, 60], above = [80, 90], slice [60, 70, 80, 90] with gap 2.
 */
export function sliceAround(
  below: readonly GridEntry[],
  above: readonly GridEntry[],
  width: number,
): Slice {
  const lower = below.slice(0, width).reverse();
  const upper = above.slice(0, width);
  return {
    entries: [...lower, ...upper].map((e) => ({ postId: e.postId, key: e.key })),
    gap: lower.length,
    reachesBottom: below.length <= width,
    reachesTop: above.length <= width,
  };
}

/**
 * Keys must stay below the ceiling, and every key already in the slice must be below it too. A
 * fresh ID normally is (§4.3), but not on a process whose clock lags the one that wrote the top
 * key (or created the newest post). Then the best available ceiling is just above the highest
 * key: the excess over real IDs stays within `SKEW_HEADROOM`, so posts created on a correct
 * clock a few milliseconds later still land on top without an override.
 */
export const SKEW_HEADROOM = 1n << 26n; // ~8 ms of ID space

export function ceilingAbove(slice: Slice, fresh: bigint): bigint {
  const top = slice.entries[slice.entries.length - 1];
  if (!top || top.key < fresh - 1n) return fresh;
  const raised = top.key + SKEW_HEADROOM;
  return raised > MAX_ID ? MAX_ID : raised;
}

/**
 * Places `postIds` (ascending: lowest first) at `slice.gap` under a ceiling derived from the
 * freshly issued ID `fresh`, under the row cap `cap` when given (a move: placeCapped). `need_more`
 * means: read a wider slice and call again. When the slice already is the whole grid the engine
 * has nothing wider to ask for, so that answer becomes key_space_exhausted (a caller widening in
 * a loop never loops forever).
 */
export function placeInSlice(slice: Slice, postIds: readonly bigint[], fresh: bigint): Placement;
export function placeInSlice(
  slice: Slice,
  postIds: readonly bigint[],
  fresh: bigint,
  cap: number | undefined,
): CappedPlacement;
export function placeInSlice(
  slice: Slice,
  postIds: readonly bigint[],
  fresh: bigint,
  cap?: number,
): CappedPlacement {
  const ceiling = ceilingAbove(slice, fresh);
  const placement =
    cap === undefined
      ? placeMany(slice, postIds, ceiling)
      : placeCapped(slice, postIds, ceiling, cap);
  if (placement.kind === 'need_more' && slice.reachesBottom && slice.reachesTop) {
    throw new DomainError('key_space_exhausted', 'no room for a key even across the whole grid');
  }
  return placement;
}

/**
 * The entry right above `me` in display order, found in a contiguous ascending run of the order
 * (a slice; `me` may be in it or left out): null when nothing is above it, undefined when the run
 * does not cover `me`'s position (the answer lies beyond what was read). Runs are contiguous, so
 * the first entry above `me` is the closest one in the whole grid when some entry of the run is
 * not above `me` or the run reaches the bottom.
 */
export function entryAboveIn(
  run: Pick<Slice, 'entries' | 'reachesBottom' | 'reachesTop'>,
  me: GridEntry,
): GridEntry | null | undefined {
  const i = run.entries.findIndex((e) => compareDisplay(e, me) > 0);
  if (i === -1) {
    const wholeTop = run.reachesTop && (run.entries.length > 0 || run.reachesBottom);
    return wholeTop ? null : undefined;
  }
  if (i === 0 && !run.reachesBottom) return undefined;
  const e = run.entries[i]!;
  return { postId: e.postId, key: e.key };
}
