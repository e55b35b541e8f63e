import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { keepMask } from '../../../src/domain/lis.js';

const SEED = 20260503;

/** O(n^2) dynamic-programming reference: best[i] = longest increasing run ending at i. */
function referenceLisLength(xs: readonly number[]): number {
  const best: number[] = [];
  for (let i = 0; i < xs.length; i++) {
    best[i] = 1;
    for (let j = 0; j < i; j++)
      if (xs[j]! < xs[i]! && best[j]! + 1 > best[i]!) best[i] = best[j]! + 1;
  }
  return Math.max(0, ...best);
}

const kept = (xs: readonly number[], mask: readonly boolean[]) => xs.filter((_, i) => mask[i]);
const strictlyIncreasing = (xs: readonly number[]) => xs.every((x, i) => i === 0 || xs[i - 1]! < x);

describe('keepMask', () => {
  it("keeps all but the first for the article's example", () => {
    expect(keepMask([4, 0, 1, 2, 3, 5])).toEqual([false, true, true, true, true, true]);
  });

  it('handles edge cases', () => {
    expect(keepMask([])).toEqual([]);
    expect(keepMask([7])).toEqual([true]);
    expect(keepMask([0, 1, 2, 3])).toEqual([true, true, true, true]); // unchanged order
    expect(kept([3, 2, 1, 0], keepMask([3, 2, 1, 0]))).toHaveLength(1); // full reversal
    expect(keepMask([2, 2, 2])).toEqual([false, false, true]); // equal values never chain
    expect(keepMask([1, 2, 0])).toEqual([true, true, false]); // moving the last post to the top
  });

  it('kept elements increase and their count equals the O(n^2) LIS length (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -20, max: 20 }), { maxLength: 60 }), (xs) => {
        const mask = keepMask(xs);
        expect(mask).toHaveLength(xs.length);
        const k = kept(xs, mask);
        expect(strictlyIncreasing(k)).toBe(true);
        expect(k.length).toBe(referenceLisLength(xs));
        expect(keepMask(xs).filter(Boolean).length).toBe(k.length);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('on permutations (the real input), rewrites exactly n − LIS posts (property)', () => {
    const perm = fc
      .integer({ min: 0, max: 80 })
      .chain((n) => fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }));
    fc.assert(
      fc.property(perm, (xs) => {
        const mask = keepMask(xs);
        expect(strictlyIncreasing(kept(xs, mask))).toBe(true);
        expect(mask.filter((m) => !m).length).toBe(xs.length - referenceLisLength(xs));
      }),
      { seed: SEED + 1, numRuns: 300 },
    );
  });

  it('scales to a whole grid (5,000 posts, one moved)', () => {
    const xs = [...Array(5000).keys()];
    xs.unshift(xs.pop()!); // the bottom post moved to the top
    const mask = keepMask(xs);
    expect(mask.filter((m) => !m)).toHaveLength(1);
    expect(mask[0]).toBe(false);
  });
});
