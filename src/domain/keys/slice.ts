/**
 * The bottom of the key engine: the types every other module of src/domain/keys/ shares, the
 * window bounds and the even spacing. It imports nothing, so the unit has no import circle
 * (slice.ts and nodes.ts ← relabel.ts ← src/domain/keys.ts).
 *
 * A *window* is the run of slice entries [from, to) that a placement rewrites; from <= gap <= to.
 * An empty window (from = to = gap) means the moved posts fit in the gap itself. The window's
 * *bounds* are the keys just outside it: entries[from - 1] and entries[to], or 0 and the ceiling
 * where the window reaches the bottom or the top of the grid.
 *
 * Invariants (what the functions here guarantee, and what the policies build on):
 *  - `boundsOf` reads only keys inside the slice and never invents one past a slice edge that is
 *    not the grid's edge (it answers undefined: the caller says `need_more`). Every key it reads
 *    is checked to lie in (0, ceiling) and lo <= hi; a violation is a caller bug (RangeError),
 *    never a wrong order.
 *  - `evenKeys` returns keys strictly increasing and strictly inside (lo, hi),
 *    or undefined when that many distinct integers do not fit; lo + step · i cannot overflow a
 *    signed 64-bit integer when lo and hi fit one.
 */

/** A grid entry and its effective key (override sort_key, else its post ID). */
export interface Keyed {
  readonly postId: bigint;
  readonly key: bigint;
}

export interface Slice {
  /**
   * Contiguous run of the grid, ascending by (key, postId), i.e. the reverse of display order;
   * pins and the moved posts excluded. Keys are non-decreasing (ties are allowed and a relabel
   * through them separates them) and lie in (0, ceiling).
   */
  readonly entries: readonly Keyed[];
  /** Insert between entries[gap - 1] and entries[gap] (0..entries.length). */
  readonly gap: number;
  /** entries[0] is the lowest entry of the grid (the bound below it is 0). */
  readonly reachesBottom: boolean;
  /** entries[length - 1] is the highest entry of the grid (the bound above it is the ceiling). */
  readonly reachesTop: boolean;
}

/** New keys for entries [from, to) with the moved posts inserted at the gap, ascending. */
export interface Relabel {
  readonly from: number;
  readonly to: number;
  readonly keys: readonly bigint[];
}

/** The answer depends on entries the slice does not hold: the caller must widen it. */
export const NEED_MORE = 'need_more';

export type RelabelResult = Relabel | typeof NEED_MORE;

/** A policy places `count` posts at `slice.gap`. It may throw key_space_exhausted. */
export type PlaceFn = (slice: Slice, count: number, ceiling: bigint) => RelabelResult;

export interface Bounds {
  readonly lo: bigint; // exclusive
  readonly hi: bigint; // exclusive
}

/**
 * Bounds of the window [from, to), or undefined when one of them lies outside the slice on a side
 * the slice does not reach to the end of the grid. Keys read here are checked against the
 * preconditions, so a caller bug surfaces as an error and never as a wrong order.
 */
export function boundsOf(
  slice: Slice,
  from: number,
  to: number,
  ceiling: bigint,
): Bounds | undefined {
  const { entries } = slice;
  let lo: bigint;
  if (from > 0) lo = checked(entries[from - 1]?.key, ceiling);
  else if (from === 0 && slice.reachesBottom) lo = 0n;
  else return undefined;
  let hi: bigint;
  if (to < entries.length) hi = checked(entries[to]?.key, ceiling);
  else if (to === entries.length && slice.reachesTop) hi = ceiling;
  else return undefined;
  if (hi < lo) throw new RangeError(`slice is not ascending around [${from}, ${to})`);
  return { lo, hi };
}

function checked(key: bigint | undefined, ceiling: bigint): bigint {
  if (key === undefined) throw new RangeError('window outside the slice');
  if (key <= 0n || key >= ceiling) {
    throw new RangeError(`key ${key} is outside (0, ceiling ${ceiling})`);
  }
  return key;
}

/**
 * `n` keys spaced evenly in (lo, hi): lo + step, lo + 2·step, …, step = ⌊(hi − lo)/(n + 1)⌋.
 * Undefined when step < 1, i.e. n distinct integers do not fit. For n = 1 this is the midpoint
 * lo + (hi − lo)/2, written so that it cannot overflow a signed 64-bit integer.
 */
export function evenKeys(lo: bigint, hi: bigint, n: number): bigint[] | undefined {
  const step = (hi - lo) / BigInt(n + 1);
  if (step < 1n) return undefined;
  const keys: bigint[] = [];
  for (let i = 1n; i <= BigInt(n); i++) keys.push(lo + step * i);
  return keys;
}
