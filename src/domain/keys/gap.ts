/**
 * The pure half of placing posts into a gap of the merged order: turning the entries read on
 * either side of the gap into a `Slice`, the ceiling a placement may use, the placement call, and
 * finding the entry above a post in a slice. The reads themselves are src/service/operations/placement.ts.
 *
 * Display order is descending, so "right after anchor A" (just below A on screen) is, in
 * ascending terms, the gap just before A: `below` is the merged order read downward from A (the
 * same stream a page read uses), `above` the entries from A upward, ascending.
 *
 * Example (keys small): display order 90 80 70 60, move X after 80 → below = [70, 60] (read
 * downward), above = [80, 90] (read upward), ascending slice [60, 70, 80, 90] with gap 2.
 *
 * Invariants: the slice is exactly the entries handed in (at most `width` on each side), so a
 * placement can only relabel entries that were read; the gap is the number of entries below it;
 * an edge flag is set only when fewer entries than asked for came back on that side, i.e. the
 * read reached the end of the grid. The ceiling handed to the engine is the fresh ID, or, when
 * the slice's top key is not below it, that key + SKEW_HEADROOM (never more than MAX_ID).
 */
import { DomainError } from '../errors.js';
import { MAX_ID } from '../ids.js';
import { compareDisplay, type GridEntry } from '../merge.js';
import { placeMany, type Placement } from './place.js';
import type { Keyed, Slice } from './slice.js';

/**
 * The slice around a gap. `below`: entries below the gap in display order (nearest first), as
 * read with a limit of `width + 1`; `above`: entries above it, ascending (nearest first), same
 * limit. The extra entry on each side only tells whether that side reached the grid's end.
 */
export function sliceAround(
  below: readonly GridEntry[],
  above: readonly GridEntry[],
  width: number,
): Slice {
  const lower = below.slice(0, width).reverse();
  const upper = above.slice(0, width);
  return {
    entries: [...lower, ...upper].map(toKeyed),
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
 * freshly issued ID `fresh`. `need_more` means: read a wider slice and call again. When the slice
 * already is the whole grid the engine has nothing wider to ask for, so that answer becomes
 * key_space_exhausted (a caller widening in a loop never loops forever).
 */
export function placeInSlice(slice: Slice, postIds: readonly bigint[], fresh: bigint): Placement {
  const placement = placeMany(slice, postIds, ceilingAbove(slice, fresh));
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

const toKeyed = (e: GridEntry): Keyed => ({ postId: e.postId, key: e.key });
