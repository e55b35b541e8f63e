/**
 * Small measurements the design article quotes for the peer schemes (§4.2, §4.4), repeated with
 * the same libraries: how many midpoints doubles hold, and how long fractional-indexing keys get.
 */
import { generateKeyBetween } from 'fractional-indexing';

export interface Probe {
  readonly name: string;
  readonly what: string;
  readonly article: number;
  readonly measured: number;
}

/** New values from repeatedly taking the midpoint of `lo` and the previous value, from `hi`. */
function midpoints(lo: number, hi: number): number {
  let n = 0;
  for (let prev = hi; ; n++) {
    const mid = lo + (prev - lo) / 2;
    if (mid <= lo || mid >= prev) return n;
    prev = mid;
  }
}

/** Key length after `n` keys, each put between `lo` and the previous one (from `hi`). */
function sameGapLength(n: number): number {
  const lo = generateKeyBetween(null, null);
  let prev = generateKeyBetween(lo, null);
  for (let i = 0; i < n; i++) prev = generateKeyBetween(lo, prev);
  return prev.length;
}

/** Key length after `n` appends (each key after the previous one). */
function appendLength(n: number): number {
  let k = generateKeyBetween(null, null);
  for (let i = 0; i < n; i++) k = generateKeyBetween(k, null);
  return k.length;
}

/** Date.now() in 2026 is about 1.79e12 (the article's example). */
const MS_2026 = Date.UTC(2026, 8, 21);

export function probes(): Probe[] {
  return [
    {
      name: 'float_1_2',
      what: 'doubles: midpoints between 1 and 2',
      article: 52,
      measured: midpoints(1, 2),
    },
    {
      name: 'float_ms_1s',
      what: 'doubles: midpoints between ms timestamps 1 s apart',
      article: 22,
      measured: midpoints(MS_2026, MS_2026 + 1000),
    },
    {
      name: 'fractional_same_gap_1000',
      what: 'fractional-indexing: key chars after 1,000 same-gap inserts',
      article: 169,
      measured: sameGapLength(1000),
    },
    {
      name: 'fractional_append_10000',
      what: 'fractional-indexing: key chars after 10,000 appends',
      article: 4,
      measured: appendLength(10_000),
    },
  ];
}
