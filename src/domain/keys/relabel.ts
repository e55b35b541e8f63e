/**
 * The relabel policy regrid runs, 'bounded' (docs/key-engine.md has the rules and the proof of
 * its amortized bound): where `count` posts go at `slice.gap`, as the window [from, to) of slice
 * entries to rewrite and the new keys, in the first of
 *  1. the gap has room: keys in the gap itself (`inGap`);
 *  2. tier A, the local window (`placeLocal`): the smallest window of at most TIER_A_WINDOW
 *     neighbours with room at MIN_GAP spacing, the widest key range of that size, among windows
 *     whose moves add at most TIER_A_BUDGET to the potential (nodes.ts `moveCharge`). Repeated
 *     inserts into one gap leave a dense run on one side, so this usually rewrites one or two
 *     neighbours on the sparse side, where a window centred on the gap would rewrite the run;
 *  3. tier B: of the nodes holding the gap (nodes.ts), leaf level upward, the first whose entries
 *     plus the moved posts fit its capacity, spread over it (`spreadIn`);
 *  4. no node fits (more entries than the root holds, ~10^8): the whole grid (`wholeGrid`).
 * The gaps next to the moved posts get range/2^HOT_SHIFT (`spread`), so a relabel takes a small
 * bite of the room it draws on and the next one can draw on the same room again.
 *
 * Invariants of an answer: from <= gap <= to inside the slice, so only slice entries are
 * relabelled; the keys (window entries and moved posts, ascending) lie strictly between the
 * window's bounds (slice.ts). A window reaching past a slice edge that is not the grid's edge, or
 * whose choice could change with entries beyond it, gives NEED_MORE instead, so any slice holding
 * the window gives the whole grid's answer. The benchmarks' 'adaptive' comparator is tier A with
 * windows up to 128 entries and no veto, then the whole grid (bench/keys/relabel-adaptive.ts).
 */
import { DomainError } from '../errors.js';
import {
  CAPACITY,
  LEAF_LEVEL,
  moveCharge,
  nodeAt,
  rootLevel,
  spreadIn,
  TIER_A_BUDGET,
  TIER_A_WINDOW,
} from './nodes.js';
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

export function placeBounded(slice: Slice, count: number, ceiling: bigint): RelabelResult {
  const local = placeLocal(slice, count, ceiling, TIER_A_WINDOW, ({ from, to, keys }) => {
    const window = slice.entries.slice(from, to);
    const moved = window.map((_, j) => keys[from + j < slice.gap ? j : j + count]!);
    const lo = from > 0 ? slice.entries[from - 1]!.key : 0n;
    const hi = to < slice.entries.length ? slice.entries[to]!.key : ceiling;
    const before = window.map((e) => e.key);
    return moveCharge(before, moved, lo, hi, ceiling) <= TIER_A_BUDGET;
  });
  if (local !== undefined) return local;
  const { entries, gap } = slice;
  const anchor = gap > 0 ? entries[gap - 1]!.key : 1n;
  const top = rootLevel(ceiling);
  for (let t = LEAF_LEVEL; t <= top; t++) {
    const node = nodeAt(anchor, t, ceiling);
    const from = lowerBound(entries, node.start);
    const to = lowerBound(entries, node.end);
    if ((from === 0 && !slice.reachesBottom) || (to === entries.length && !slice.reachesTop)) {
      return NEED_MORE; // the node may hold entries the slice does not
    }
    const held = to - from + count;
    if (held > CAPACITY[t]! || BigInt(held) >= node.end - node.start) continue;
    // The gap lies inside [from, to]: the anchor's node holds the entry below it.
    return { from, to, keys: spreadIn(node, held, ceiling) };
  }
  return wholeGrid(slice, count, ceiling);
}

/**
 * Steps 1 and 2 with windows of at most `maxWindow` entries: the placement, NEED_MORE, or
 * undefined when no such window has room at MIN_GAP. `accept` may veto a window (the answer is
 * then the next widest of that size, or a larger size).
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
  const even = ceiling / BigInt(len + count + 1);
  if (even < 1n) {
    throw new DomainError('key_space_exhausted', 'no room for the grid between 0 and the ceiling', {
      entries: len + count,
      ceiling: ceiling.toString(),
    });
  }
  const need = even < MIN_GAP ? even : MIN_GAP;
  return { from: 0, to: len, keys: spread({ lo: 0n, hi: ceiling }, g, count, len - g, need) };
}

/** First index whose key is >= key (entries ascend). */
function lowerBound(entries: Slice['entries'], key: bigint): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid]!.key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
