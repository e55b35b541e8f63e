/**
 * The local window, tier A of the relabel policy (relabel-bounded.ts): the article's scheme
 * (its window doubling, bench/keys/relabel-doubling.ts) with three changes aimed at what window
 * doubling does badly when one gap takes insert after insert. Alone, with windows up to 128
 * entries, it was regrid's policy before 'bounded' (bench/keys/relabel-adaptive.ts, a comparator).
 *
 * 1. Smallest window, most room. When the gap is used up, try windows of w = 1, 2, 3, … entries
 *    around it, every split between the two sides, and stop at the first size at which some
 *    window can hold its entries and the moved posts at least MIN_GAP apart; of those, take the
 *    one with the widest key range. Repeated inserts into one gap leave a dense run on one side
 *    and untouched spacing on the other, so this rewrites one or two neighbours on the sparse
 *    side, where doubling (centred on the gap) rewrites the dense run again and again.
 * 2. A bounded hot gap. The gaps touching the moved posts get range/2^HOT_SHIFT (but at least
 *    MIN_GAP); the other gaps of the window share the rest evenly. A relabel thus takes only a
 *    small bite of the room it draws on, and the next relabel can draw on the same room again;
 *    a hot gap of range/1024 still holds log2(range) − 10 midpoints (23 between posts one second
 *    apart). Spreading the window evenly instead would hand the moved post a third of the room
 *    and leave the next relabel a third as much.
 * 3. Strides at the bottom. The bound below the lowest post is 0 and never grows, so a move to the
 *    bottom takes room/2^HOT_SHIFT below the lowest post rather than half the room (see inGap).
 *
 * Invariants of an answer { from, to, keys }: from <= gap <= to, all inside the slice, so only
 * slice entries are relabelled; `keys` (window entries and moved posts, ascending) strictly
 * increase strictly between the window's bounds (slice.ts). A window that reaches past a slice
 * edge which is not the grid's edge, or whose choice could change with entries beyond it, gives
 * NEED_MORE instead, so any slice holding the window gives the whole grid's answer. Outside the
 * whole-grid fallback, every gap the relabel leaves is at least MIN_GAP.
 *
 * Bounds. Guaranteed: keys stay ordered and in (0, ceiling) (place.ts), and a relabel rewrites at
 * most `maxWindow` neighbours unless no window of that size has room at MIN_GAP; then the whole
 * grid is spread over (0, ceiling), and key_space_exhausted is thrown only when even that cannot
 * keep the keys distinct. Measured, not proven: rows per move (docs/key-engine.md). Like the
 * article's scheme this has no amortized bound; the O(log n) algorithms of Bender et al. (2002)
 * relabel ranges aligned in key space, which can rewrite a large part of the grid at once.
 */
import { DomainError } from '../errors.js';
import {
  boundsOf,
  evenKeys,
  NEED_MORE,
  type Bounds,
  type Relabel,
  type RelabelResult,
  type Slice,
} from './slice.js';

/** Spacing a relabel must leave between any two neighbours. */
const MIN_GAP = 1n << 16n;
/** Gaps next to the moved posts get 1/2^HOT_SHIFT of the window's range (1/1024). */
const HOT_SHIFT = 10n;
/**
 * Rules 1-3 above with windows of at most `maxWindow` entries: the placement, NEED_MORE, or
 * undefined when no such window has room at MIN_GAP. `accept` may veto a window (its answer is
 * then the next widest of that size, or a larger size); relabel-bounded.ts uses this as tier A.
 */
export function placeLocal(
  slice: Slice,
  count: number,
  ceiling: bigint,
  maxWindow: number,
  accept?: (plan: Relabel) => boolean,
): RelabelResult | undefined {
  const g = slice.gap;
  const len = slice.entries.length;
  const gap = boundsOf(slice, g, g, ceiling);
  if (gap === undefined) return NEED_MORE;
  const direct = inGap(slice, gap, count);
  if (direct !== undefined) return { from: g, to: g, keys: direct };

  for (let w = 1; w <= Math.min(maxWindow, len); w++) {
    const roomy: { from: number; to: number; bounds: Bounds }[] = [];
    for (let below = w; below >= 0; below--) {
      const from = g - below;
      const to = from + w;
      if (from < 0 || to > len) {
        // Past the end of the grid there is no such window; past the end of the slice there
        // might be, and skipping it could pick a different window than the full grid would.
        if ((from < 0 && !slice.reachesBottom) || (to > len && !slice.reachesTop)) return NEED_MORE;
        continue;
      }
      const bounds = boundsOf(slice, from, to, ceiling);
      if (bounds === undefined) return NEED_MORE;
      if (bounds.hi - bounds.lo >= BigInt(w + count + 1) * MIN_GAP)
        roomy.push({ from, to, bounds });
    }
    // Widest range first; among equals the one with most entries below the gap (stable sort).
    roomy.sort((a, b) => {
      const d = b.bounds.hi - b.bounds.lo - (a.bounds.hi - a.bounds.lo);
      return d > 0n ? 1 : d < 0n ? -1 : 0;
    });
    for (const best of roomy) {
      const keys = spread(best.bounds, g - best.from, count, best.to - g, MIN_GAP);
      const plan = { from: best.from, to: best.to, keys };
      if (accept === undefined || accept(plan)) return plan;
    }
  }
  return undefined;
}

/** Last resort: the whole grid over (0, ceiling), as far apart as it goes up to MIN_GAP. */
export function wholeGrid(slice: Slice, count: number, ceiling: bigint): RelabelResult {
  const g = slice.gap;
  const len = slice.entries.length;
  if (!slice.reachesBottom || !slice.reachesTop) return NEED_MORE;
  const whole = { lo: 0n, hi: ceiling };
  const even = ceiling / BigInt(len + count + 1);
  if (even < 1n) {
    throw new DomainError('key_space_exhausted', 'no room for the grid between 0 and the ceiling', {
      entries: len + count,
      ceiling: ceiling.toString(),
    });
  }
  const need = even < MIN_GAP ? even : MIN_GAP;
  return { from: 0, to: len, keys: spread(whole, g, count, len - g, need) };
}

/**
 * Keys for `count` posts inside the gap itself, or undefined when they do not fit: the gap divided
 * evenly (the midpoint for one post), except at the bottom of the grid. The bound there is 0 and
 * never moves, so repeated moves to the bottom would halve the room below the lowest post each
 * time and run out after ~62; instead the posts go room/2^HOT_SHIFT apart below it, using that
 * room up by 1/1024 at a time. (The top's bound is a freshly issued ID, which grows with the
 * clock, so halving the room up to it is harmless.)
 */
function inGap(slice: Slice, { lo, hi }: Bounds, count: number) {
  const stride = (hi - lo) >> HOT_SHIFT;
  const atBottom = slice.gap === 0 && slice.entries.length > 0;
  if (!atBottom || stride * BigInt(count + 1) > hi - lo || stride < MIN_GAP) {
    return evenKeys(lo, hi, count);
  }
  return Array.from({ length: count }, (_, i) => hi - stride * BigInt(count - i));
}

/**
 * Keys for `below` entries, `count` moved posts and `above` entries in (lo, hi). The count + 1
 * gaps touching the moved posts are hot: each gets range/2^HOT_SHIFT, but at least `need` and at
 * most what leaves `need` for every other gap (all of the range when there is no other gap).
 * The other gaps share the rest evenly, the remainder going one unit each to the lowest.
 * Precondition: hi − lo >= (below + count + above + 1) · need, need >= 1.
 */
function spread({ lo, hi }: Bounds, below: number, count: number, above: number, need: bigint) {
  const range = hi - lo;
  const others = BigInt(below + above);
  const hotGaps = BigInt(count + 1);
  let hot = range >> HOT_SHIFT;
  if (hot < need) hot = need;
  const most = (range - others * need) / hotGaps;
  if (others === 0n || hot > most) hot = most;
  const rest = range - hot * hotGaps;
  const step = others === 0n ? 0n : rest / others;
  let spare = others === 0n ? 0n : rest % others; // handed out one by one, lowest gaps first
  const keys: bigint[] = [];
  let key = lo;
  const push = (gap: bigint) => {
    key += gap;
    keys.push(key);
  };
  const normal = () => step + (spare > 0n ? (spare--, 1n) : 0n);
  for (let i = 0; i < below; i++) push(normal());
  for (let i = 0; i < count; i++) push(hot);
  for (let i = 0; i < above; i++) push(i === 0 ? hot : normal());
  return keys;
}
