/**
 * The design article's relabel (§4.3), kept as the selectable baseline policy 'doubling'.
 *
 * Take the midpoint of the gap when one exists. Otherwise widen a window centred on the gap,
 * doubling its size in entries (2, 4, 8, …) until its keys can be spread evenly at least MIN_GAP
 * apart, and spread them evenly. The whole grid is the last window tried; it is spread evenly
 * whatever the spacing, and only a step below 1 is an error (key_space_exhausted).
 *
 * The window grows by element count, so it carries no amortized bound (the article says so); it
 * stops at the first window that meets MIN_GAP, which leaves the neighbourhood of a hot gap barely
 * above MIN_GAP and brings the next relabel close. relabel-adaptive.ts improves on both points.
 *
 * Invariants of an answer { from, to, keys }: from <= gap <= to, all inside the slice, so only
 * slice entries are relabelled; `keys` strictly increase strictly between the window's bounds.
 * A window clipped by a slice edge that is not the grid's edge gives NEED_MORE, so any slice
 * holding the window gives the whole grid's answer.
 */
import { DomainError } from '../../src/domain/errors.js';
import {
  boundsOf,
  evenKeys,
  NEED_MORE,
  type RelabelResult,
  type Slice,
} from '../../src/domain/keys/slice.js';

/** Spacing a relabel must leave between neighbours (the article's minGap). */
const MIN_GAP = 1n << 16n;

export function placeDoubling(slice: Slice, count: number, ceiling: bigint): RelabelResult {
  const g = slice.gap;
  const len = slice.entries.length;
  const gap = boundsOf(slice, g, g, ceiling);
  if (gap === undefined) return NEED_MORE;
  const direct = evenKeys(gap.lo, gap.hi, count);
  if (direct !== undefined) return { from: g, to: g, keys: direct };

  for (let size = 2; ; size *= 2) {
    // A window clipped at the slice's edge is only right if that edge is the grid's edge;
    // otherwise the same call on the full grid could see a different window.
    if (g - size / 2 <= 0 && !slice.reachesBottom) return NEED_MORE;
    if (g + size / 2 >= len && !slice.reachesTop) return NEED_MORE;
    const from = Math.max(g - size / 2, 0);
    const to = Math.min(g + size / 2, len);
    const bounds = boundsOf(slice, from, to, ceiling);
    if (bounds === undefined) return NEED_MORE; // unreachable after the two checks above
    const n = to - from + count; // entries in the window plus the moved posts
    const step = (bounds.hi - bounds.lo) / BigInt(n + 1);
    const whole = from === 0 && to === len;
    if (step < MIN_GAP && !whole) continue;
    const keys = evenKeys(bounds.lo, bounds.hi, n);
    if (keys === undefined) {
      throw new DomainError(
        'key_space_exhausted',
        'no room for the grid between 0 and the ceiling',
        {
          entries: len + count,
          ceiling: ceiling.toString(),
        },
      );
    }
    return { from, to, keys };
  }
}
