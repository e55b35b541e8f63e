/**
 * The comparator policies of the key benchmarks (bench/keys/policies.ts: 'adaptive' and the
 * article's 'doubling'), checked as the default policy is (test/unit/domain/keys.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../../src/domain/errors.js';
import { composeId } from '../../../../src/domain/ids.js';
import { placeMany, placeOne, type Keyed } from '../../../../src/domain/keys.js';
import { POLICIES as PLACE, type RelabelPolicy } from '../../../../bench/keys/policies.js';
import { apply, expectValidKeys, grid, whole } from '../../domain/keys-model.js';

const POLICIES: readonly RelabelPolicy[] = ['adaptive', 'doubling'];
const CEILING = 1n << 62n;
const SECOND = 1000;
const idAt = (ms: number) => composeId({ ms, worker: 1, sequence: 0 });

describe.each(POLICIES)('placeOne (%s)', (policy) => {
  const keys = [1000n << 20n, 2000n << 20n, 3000n << 20n];

  it('takes the midpoint of an interior gap and writes one row', () => {
    const p = placeOne(whole(grid(keys), 1), 7n, CEILING, PLACE[policy]);
    expect(p).toEqual({
      kind: 'placed',
      writes: [{ postId: 7n, key: 1500n << 20n }],
      relabelled: 0,
    });
  });

  it('uses the ceiling as the bound above the top', () => {
    const p = placeOne(whole(grid(keys), 3), 7n, 5000n << 20n, PLACE[policy]);
    expect(p).toEqual({
      kind: 'placed',
      writes: [{ postId: 7n, key: 4000n << 20n }],
      relabelled: 0,
    });
  });

  it('places below the lowest post, above 0', () => {
    const p = placeOne(whole(grid(keys), 0), 7n, CEILING, PLACE[policy]);
    if (p.kind !== 'placed') throw new Error('placed expected');
    const k = p.writes[0]!.key;
    expect(k > 0n && k < keys[0]!).toBe(true);
    // The baseline halves the room; adaptive steps room/1024 below the lowest post.
    expect(k).toBe(policy === 'doubling' ? 500n << 20n : keys[0]! - (keys[0]! >> 10n));
  });

  it('places into an empty grid below the ceiling', () => {
    expect(placeOne(whole([], 0), 7n, 100n, PLACE[policy])).toEqual({
      kind: 'placed',
      writes: [{ postId: 7n, key: 50n }],
      relabelled: 0,
    });
  });

  it.each([
    ['the gap is at the bottom of a slice that does not reach the bottom', 0, false, true],
    ['the gap is at the top of a slice that does not reach the top', 3, true, false],
  ])('asks for more when %s', (_, gap, reachesBottom, reachesTop) => {
    const slice = { entries: grid(keys), gap, reachesBottom, reachesTop };
    expect(placeOne(slice, 7n, CEILING, PLACE[policy])).toEqual({ kind: 'need_more' });
  });

  it('asks for more when a relabel window would cross the slice edge', () => {
    const tight = grid([100n, 101n, 102n]); // no room anywhere in the slice
    const slice = { entries: tight, gap: 1, reachesBottom: false, reachesTop: false };
    expect(placeOne(slice, 7n, CEILING, PLACE[policy])).toEqual({ kind: 'need_more' });
    const placed = placeOne(whole(tight, 1), 7n, CEILING, PLACE[policy]);
    expect(placed.kind).toBe('placed');
    expectValidKeys(apply(tight, 1, [7n], placed), CEILING);
  });

  it('relabels when the gap is used up, keeping the order', () => {
    const dense = grid([1n << 40n, (1n << 40n) + 1n, 1n << 41n]);
    const p = placeOne(whole(dense, 1), 7n, CEILING, PLACE[policy]);
    if (p.kind !== 'placed') throw new Error('placed expected');
    expect(p.relabelled).toBeGreaterThan(0);
    const after = apply(dense, 1, [7n], p);
    expect(after.map((e) => e.postId)).toEqual([1001n, 7n, 1002n, 1003n]);
    expectValidKeys(after, CEILING);
  });

  it('heals equal keys (ties) by relabelling', () => {
    const tied = grid([5n << 30n, 5n << 30n, 6n << 30n]);
    const p = placeOne(whole(tied, 1), 7n, CEILING, PLACE[policy]);
    const after = apply(tied, 1, [7n], p);
    expect(after.map((e) => e.postId)).toEqual([1001n, 7n, 1002n, 1003n]);
    expectValidKeys(after, CEILING);
  });

  it('throws key_space_exhausted when (0, ceiling) cannot hold the grid', () => {
    const full = grid([1n, 2n, 3n]);
    for (const gap of [0, 1, 2, 3]) {
      expect(() => placeOne(whole(full, gap), 7n, 4n, PLACE[policy])).toThrow(DomainError);
      try {
        placeOne(whole(full, gap), 7n, 4n, PLACE[policy]);
      } catch (e) {
        expect((e as DomainError).code).toBe('key_space_exhausted');
      }
    }
    // One more integer of room is enough: the whole grid is relabelled to 1, 2, 3, 4.
    const after = apply(full, 0, [7n], placeOne(whole(full, 0), 7n, 5n, PLACE[policy]));
    expect(after.map((e) => e.key)).toEqual([1n, 2n, 3n, 4n]);
  });

  it.each([
    ['a gap outside the slice', { entries: grid(keys), gap: 4 }, [7n], CEILING],
    ['a key at the ceiling', { entries: grid(keys), gap: 3 }, [7n], 3000n << 20n],
    ['keys out of order', { entries: grid([5n, 3n]), gap: 1 }, [7n], CEILING],
    ['a ceiling past 2^63 - 1', { entries: grid(keys), gap: 1 }, [7n], 1n << 63n],
    ['repeated post IDs', { entries: grid(keys), gap: 1 }, [7n, 7n], CEILING],
    ['no post IDs', { entries: grid(keys), gap: 1 }, [], CEILING],
  ])('rejects %s', (_, s, ids, ceiling) => {
    const slice = { ...s, reachesBottom: true, reachesTop: true };
    expect(() => placeMany(slice, ids, ceiling, PLACE[policy])).toThrow(RangeError);
  });

  it('finds 32 midpoints between posts made one second apart, then relabels (article §4.3)', () => {
    const t = Date.UTC(2026, 0, 1);
    let entries: Keyed[] = [0, 1, 2].map((i) => ({
      postId: idAt(t + i * SECOND),
      key: idAt(t + i * SECOND),
    }));
    const ceiling = idAt(t + 10 * SECOND);
    let first = 0;
    for (let n = 1; n <= 40 && first === 0; n++) {
      const postId = BigInt(n); // each one directly above the middle post
      const p = placeOne(whole(entries, 2), postId, ceiling, PLACE[policy]);
      if (p.kind === 'placed' && p.relabelled > 0) first = n;
      entries = apply(entries, 2, [postId], p);
    }
    expect(first).toBe(33);
  });
});

describe.each(POLICIES)('placeMany (%s)', (policy) => {
  it('divides one gap evenly', () => {
    const p = placeMany(whole(grid([1000n, 2000n]), 1), [7n, 8n, 9n], CEILING, PLACE[policy]);
    expect(p).toEqual({
      kind: 'placed',
      writes: [
        { postId: 7n, key: 1250n },
        { postId: 8n, key: 1500n },
        { postId: 9n, key: 1750n },
      ],
      relabelled: 0,
    });
  });

  it('relabels a window when the gap is too small for the batch', () => {
    const entries = grid([1n << 40n, (1n << 40n) + 2n, 1n << 41n]);
    const ids = [7n, 8n, 9n, 10n];
    const p = placeMany(whole(entries, 1), ids, CEILING, PLACE[policy]);
    if (p.kind !== 'placed') throw new Error('placed expected');
    expect(p.relabelled).toBeGreaterThan(0);
    const after = apply(entries, 1, ids, p);
    expect(after.map((e) => e.postId)).toEqual([1001n, 7n, 8n, 9n, 10n, 1002n, 1003n]);
    expectValidKeys(after, CEILING);
  });
});
