import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entryAboveIn, type Slice } from '../../../src/domain/keys.js';

// A grid (without `me`) as distinct keys, ascending; postId = key.
const grid = fc
  .uniqueArray(fc.integer({ min: 1, max: 400 }), { maxLength: 30 })
  .map((ks) => ks.sort((a, b) => a - b).map((k) => ({ postId: BigInt(k), key: BigInt(k) })));

describe('entryAboveIn (the undo record reads the previous anchor out of the move slice)', () => {
  it('finds the same entry as a scan of the whole grid, or says the slice does not cover it', () => {
    fc.assert(
      fc.property(
        grid,
        fc.integer({ min: 0, max: 401 }),
        fc.nat(),
        fc.nat(),
        (all, meKey, a, b) => {
          // `me` sits between keys (x.5), so it never ties with an entry.
          const me = { postId: BigInt(meKey) * 2n + 1n, key: BigInt(meKey) };
          const above = (e: { key: bigint }) => e.key > me.key;
          const lo = all.length === 0 ? 0 : a % (all.length + 1);
          const hi = lo + (all.length === 0 ? 0 : b % (all.length - lo + 1));
          const slice: Slice = {
            entries: all.slice(lo, hi),
            gap: 0,
            reachesBottom: lo === 0,
            reachesTop: hi === all.length,
          };
          const truth = all.find(above) ?? null;
          const got = entryAboveIn(slice, me);
          if (got !== undefined) expect(got).toEqual(truth);
          // Covered: an entry of the slice on each side of me, or the slice runs to that end.
          const covered =
            (slice.reachesBottom || slice.entries.some((e) => !above(e))) &&
            (slice.reachesTop || slice.entries.some(above));
          expect(got === undefined).toBe(!covered);
        },
      ),
    );
  });

  it('answers null at the top and undefined past the ends of a partial slice', () => {
    const e = (k: bigint) => ({ postId: k, key: k });
    const mid: Slice = {
      entries: [e(10n), e(20n)],
      gap: 0,
      reachesBottom: false,
      reachesTop: false,
    };
    expect(entryAboveIn(mid, e(15n))).toEqual(e(20n));
    expect(entryAboveIn(mid, e(5n))).toBeUndefined();
    expect(entryAboveIn(mid, e(25n))).toBeUndefined();
    expect(entryAboveIn({ ...mid, reachesTop: true }, e(25n))).toBeNull();
    expect(entryAboveIn({ ...mid, reachesBottom: true }, e(5n))).toEqual(e(10n));
  });
});
