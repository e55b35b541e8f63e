import { describe, expect, it } from 'vitest';
import { MAX_ID } from '../../../src/domain/ids.js';
import { placeOne, type Keyed } from '../../../src/domain/keys.js';
import { evenKeys } from '../../../src/domain/keys/slice.js';
import { apply, whole } from './keys-model.js';

describe('the midpoint (evenKeys for one key)', () => {
  const keyBetween = (lo: bigint, hi: bigint) => evenKeys(lo, hi, 1)?.[0];
  it.each([
    [0n, 2n, 1n],
    [10n, 20n, 15n],
    [10n, 13n, 11n], // rounds down
    [0n, 1n, undefined],
    [5n, 5n, undefined],
    [9n, 3n, undefined],
    [MAX_ID - 2n, MAX_ID, MAX_ID - 1n],
    [1n << 62n, MAX_ID, (1n << 62n) + ((1n << 62n) - 1n) / 2n],
  ])('between %s and %s is %s', (lo, hi, want) => {
    expect(keyBetween(lo, hi)).toBe(want);
  });

  it('never leaves the signed 64-bit range, where (lo + hi) / 2 would', () => {
    const lo = (1n << 62n) + 5n;
    const hi = MAX_ID;
    expect(BigInt.asIntN(64, lo + hi) < 0n).toBe(true); // the overflow a naive midpoint hits
    const k = keyBetween(lo, hi)!;
    expect(k > lo && k < hi && BigInt.asIntN(64, k) === k).toBe(true);
  });
});

describe('the worked example in keys.ts (the default policy)', () => {
  it('relabels only P, leaving 2^23 on both sides of the new post', () => {
    const o = 1n << 50n;
    const p = o + (1n << 33n);
    let entries: Keyed[] = [
      { postId: 1n, key: o },
      { postId: 2n, key: p },
      { postId: 3n, key: p + (1n << 33n) },
    ];
    const ceiling = 1n << 60n;
    const first = placeOne(whole(entries, 2), 101n, ceiling);
    expect(first).toEqual({
      kind: 'placed',
      writes: [{ postId: 101n, key: p + (1n << 32n) }],
      relabelled: 0,
    });
    entries = apply(entries, 2, [101n], first);
    for (let m = 102n; m <= 133n; m++) {
      const placed = placeOne(whole(entries, 2), m, ceiling);
      expect(placed.kind === 'placed' && placed.relabelled).toBe(0);
      entries = apply(entries, 2, [m], placed);
    }
    expect(entries[2]).toEqual({ postId: 133n, key: p + 1n });
    const m34 = placeOne(whole(entries, 2), 134n, ceiling);
    expect(m34).toEqual({
      kind: 'placed',
      writes: [
        { postId: 2n, key: p + 1n - (1n << 24n) },
        { postId: 134n, key: p + 1n - (1n << 23n) },
      ],
      relabelled: 1,
    });
  });
});
