import { describe, expect, it } from 'vitest';
import { MAX_ID } from '../../../src/domain/ids.js';
import {
  ceilingAbove,
  entryAboveIn,
  placeCapped,
  placeMany,
  placeInSlice,
  SKEW_HEADROOM,
  sliceAround,
  type Slice,
} from '../../../src/domain/keys.js';
import { effectiveEntry } from '../../../src/domain/merge.js';

const e = (k: bigint) => ({ postId: k, key: k });
const slice = (keys: bigint[], gap: number, reachesBottom = true, reachesTop = true): Slice => ({
  entries: keys.map(e),
  gap,
  reachesBottom,
  reachesTop,
});

describe('sliceAround (the slice from the entries read on each side of the gap)', () => {
  // Display order 90 80 70 60, a post moved right after 80: below is read downward from 80,
  // above upward from 80 (inclusive).
  const below = [e(70n), e(60n)];
  const above = [e(80n), e(90n)];

  it('puts the gap between the two sides and marks the ends the reads reached', () => {
    expect(sliceAround(below, above, 2)).toEqual(slice([60n, 70n, 80n, 90n], 2));
    expect(sliceAround(below, above, 3)).toEqual(slice([60n, 70n, 80n, 90n], 2));
  });

  it('keeps `width` entries a side; the extra one read only says the end is further away', () => {
    expect(sliceAround(below, above, 1)).toEqual(slice([70n, 80n], 1, false, false));
  });

  it('a move to the top reads nothing above: the gap is at the top of the grid', () => {
    expect(sliceAround([e(90n), e(80n)], [], 2)).toEqual(slice([80n, 90n], 2));
  });
});

describe('ceilingAbove (the ceiling a placement uses)', () => {
  it('is the fresh ID while every key of the slice is below it', () => {
    expect(ceilingAbove(slice([10n, 20n], 2), 1000n)).toBe(1000n);
    expect(ceilingAbove(slice([], 0), 1000n)).toBe(1000n);
    expect(ceilingAbove(slice([998n], 1), 1000n)).toBe(1000n);
  });

  it('is just above the top key when a lagging clock would put the fresh ID at or below it', () => {
    expect(ceilingAbove(slice([999n], 1), 1000n)).toBe(999n + SKEW_HEADROOM);
    expect(ceilingAbove(slice([5000n], 1), 1000n)).toBe(5000n + SKEW_HEADROOM);
    expect(ceilingAbove(slice([MAX_ID - 1n], 1), 1000n)).toBe(MAX_ID);
  });
});

describe('placeInSlice', () => {
  it('is placeMany under ceilingAbove', () => {
    const s = slice([1n << 40n, 1n << 41n], 2);
    expect(placeInSlice(s, [7n], 1n << 50n)).toEqual(placeMany(s, [7n], 1n << 50n));
    const skewed = slice([1n << 40n, 1n << 50n], 2);
    const placed = placeInSlice(skewed, [7n], 1n << 45n);
    expect(placed).toEqual(placeMany(skewed, [7n], (1n << 50n) + SKEW_HEADROOM));
  });

  it('raises the ceiling under a row cap too (a move on a lagging clock)', () => {
    const skewed = slice([1n << 40n, 1n << 50n], 2);
    const placed = placeInSlice(skewed, [7n], 1n << 45n, 8);
    expect(placed).toEqual(placeCapped(skewed, [7n], (1n << 50n) + SKEW_HEADROOM, 8));
    expect(placed.kind).toBe('placed');
  });

  it('passes need_more through for a partial slice', () => {
    const partial = slice([10n, 11n], 1, false, false);
    expect(placeInSlice(partial, [7n], 1n << 50n)).toEqual({ kind: 'need_more' });
  });
});

describe('entryAboveIn on a run that holds `me` (the undo record beyond the slice)', () => {
  const me = e(50n);

  it('answers the next entry up, or null when the run ends at the top', () => {
    const run = { entries: [me, e(60n)], reachesBottom: false, reachesTop: false };
    expect(entryAboveIn(run, me)).toEqual(e(60n));
    expect(entryAboveIn({ entries: [me], reachesBottom: false, reachesTop: true }, me)).toBeNull();
  });
});

describe('effectiveEntry', () => {
  const overrides = [
    { postId: 3n, key: 900n },
    { postId: 8n, key: 400n },
  ];

  it('is the override key when there is one, else the post ID', () => {
    expect(effectiveEntry(overrides, 8n)).toEqual({ postId: 8n, key: 400n });
    expect(effectiveEntry(overrides, 5n)).toEqual({ postId: 5n, key: 5n });
    expect(effectiveEntry([], 3n)).toEqual({ postId: 3n, key: 3n });
  });
});
