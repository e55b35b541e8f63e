import { describe, expect, it } from 'vitest';
import type { FirstOrder } from '../../../src/cache/codec.js';
import { sliceCachedOrder as sliceFirstOrder } from '../../../src/domain/cached-order.js';

// Display order: keys descending. Entry i has key 100 - i (postId = key, chronological).
const order = (n: number, complete: boolean): FirstOrder => ({
  generation: 1n,
  version: 7n,
  pins: [],
  entries: Array.from({ length: n }, (_, i) => ({ postId: BigInt(100 - i), key: BigInt(100 - i) })),
  complete,
});
const at = (k: number) => ({ key: BigInt(k), postId: BigInt(k) });
const same = { generation: 1n, version: 7n };
const keys = (xs: { key: bigint }[] | undefined) => xs?.map((x) => Number(x.key));

describe('sliceFirstOrder (which pages the cached first 48 can serve)', () => {
  it('serves the first page when the cache holds limit + 1 entries or the whole grid', () => {
    expect(keys(sliceFirstOrder(order(48, false), undefined, undefined, 25))).toHaveLength(25);
    expect(sliceFirstOrder(order(48, false), undefined, undefined, 49)).toBeUndefined();
    expect(keys(sliceFirstOrder(order(10, true), undefined, undefined, 25))).toHaveLength(10);
  });

  it('serves a cursor page of the same state from inside the cached prefix', () => {
    expect(keys(sliceFirstOrder(order(48, false), same, at(77), 3))).toEqual([76, 75, 74]);
    // Not enough cached rows after the cursor: the page must come from Cassandra.
    expect(sliceFirstOrder(order(48, false), same, at(60), 25)).toBeUndefined();
    // Whole grid cached: the tail is exact, even when short or empty.
    expect(keys(sliceFirstOrder(order(30, true), same, at(75), 25))).toEqual([74, 73, 72, 71]);
    expect(keys(sliceFirstOrder(order(30, true), same, at(10), 25))).toEqual([]);
  });

  it('never serves a cursor issued at another state (its position may need a re-lookup)', () => {
    const older = { generation: 1n, version: 6n };
    const otherGeneration = { generation: 2n, version: 7n };
    expect(sliceFirstOrder(order(48, true), older, at(90), 3)).toBeUndefined();
    expect(sliceFirstOrder(order(48, true), otherGeneration, at(90), 3)).toBeUndefined();
    expect(sliceFirstOrder(order(48, true), undefined, at(90), 3)).toBeUndefined();
  });

  it('falls back when the cursor lies below the cached prefix of an incomplete grid', () => {
    expect(sliceFirstOrder(order(48, false), same, at(20), 3)).toBeUndefined();
  });
});
