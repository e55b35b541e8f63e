import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planBatchOrder } from '../../../src/domain/batch-order.js';
import { keepMask } from '../../../src/domain/lis.js';
import { DomainError } from '../../../src/domain/errors.js';
import type { Keyed } from '../../../src/domain/keys.js';

const SPACING = 1n << 33n; // posts about a second apart
const CEILING = 1n << 62n;

/** A grid of n posts in display order (top first), chronological keys = IDs. */
function grid(n: number, spacing = SPACING): Keyed[] {
  return Array.from({ length: n }, (_, i) => {
    const id = BigInt(n - i) * spacing;
    return { postId: id, key: id };
  });
}

/** Applies a plan's writes and returns the display order (key DESC, postId DESC). */
function apply(current: readonly Keyed[], writes: readonly Keyed[]): bigint[] {
  const keys = new Map(current.map((e) => [e.postId, e.key]));
  for (const w of writes) keys.set(w.postId, w.key);
  return [...keys]
    .sort(([ia, ka], [ib, kb]) => (ka !== kb ? (ka > kb ? -1 : 1) : ia > ib ? -1 : 1))
    .map(([id]) => id);
}

/** A grid size n in [min, max] and a permutation of the positions 0..n-1 (the new order). */
const sizeAndPermutation = (min: number, max: number) =>
  fc
    .integer({ min, max })
    .chain((n) =>
      fc.tuple(
        fc.constant(n),
        fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
      ),
    );

const lisLength = (current: readonly Keyed[], order: readonly bigint[]): number => {
  const pos = new Map(current.map((e, i) => [e.postId, i]));
  return keepMask(order.map((id) => pos.get(id)!)).filter(Boolean).length;
};

describe('planBatchOrder: whole order', () => {
  it('moves only the post outside the LIS (A B C D E F → E A B C D F)', () => {
    const g = grid(6);
    const [a, b, c, d, e, f] = g.map((x) => x.postId) as [
      bigint,
      bigint,
      bigint,
      bigint,
      bigint,
      bigint,
    ];
    const plan = planBatchOrder(g, { postIds: [e, a, b, c, d, f] }, CEILING);
    expect(plan.writes.map((w) => w.postId)).toEqual([e]);
    expect(plan.moved).toEqual([e]);
    expect(plan.kept).toBe(5);
    expect(apply(g, plan.writes)).toEqual([e, a, b, c, d, f]);
  });

  it('writes nothing for the unchanged order', () => {
    const g = grid(5);
    const plan = planBatchOrder(g, { postIds: g.map((x) => x.postId) }, CEILING);
    expect(plan.writes).toEqual([]);
  });

  it('divides one gap evenly for a group instead of repeated midpoints', () => {
    const g = grid(40);
    const ids = g.map((x) => x.postId);
    // Move the bottom 30 posts, in order, between the first two posts.
    const order = [ids[0]!, ...ids.slice(10), ...ids.slice(1, 10)];
    const plan = planBatchOrder(g, { postIds: order }, CEILING);
    expect(apply(g, plan.writes)).toEqual(order);
    const placed = plan.writes.map((w) => w.key).sort((x, y) => (x < y ? -1 : 1));
    const gaps = placed.slice(1).map((k, i) => k - placed[i]!);
    // Even division keeps every gap within a small factor of the others (midpoints halve each).
    const min = gaps.reduce((m, x) => (x < m ? x : m));
    const max = gaps.reduce((m, x) => (x > m ? x : m));
    expect(max / min).toBeLessThan(3n);
  });

  it('gives the requested order and writes n − LIS rows when gaps are wide (property)', () => {
    fc.assert(
      fc.property(sizeAndPermutation(1, 40), ([n, perm]) => {
        const g = grid(n);
        const order = perm.map((i) => g[i]!.postId);
        const plan = planBatchOrder(g, { postIds: order }, CEILING);
        expect(apply(g, plan.writes)).toEqual(order);
        expect(plan.writes.length).toBe(n - lisLength(g, order));
        expect(plan.order).toEqual(order);
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it('stays correct when keys are packed and the key engine has to relabel (property)', () => {
    fc.assert(
      fc.property(sizeAndPermutation(2, 30), ([n, perm]) => {
        const g = grid(n, 1n); // consecutive keys: no midpoint anywhere
        const order = perm.map((i) => g[i]!.postId);
        const plan = planBatchOrder(g, { postIds: order }, BigInt(n + 1) << 20n);
        expect(apply(g, plan.writes)).toEqual(order);
        expect(plan.writes.length).toBeGreaterThanOrEqual(n - lisLength(g, order));
        for (const w of plan.writes) expect(w.key > 0n).toBe(true);
      }),
      { seed: 7, numRuns: 200 },
    );
  });
});

describe('planBatchOrder: a range named by its neighbours', () => {
  it('reorders only between the neighbours and leaves the rest alone', () => {
    const g = grid(8);
    const ids = g.map((x) => x.postId);
    const range = [ids[4]!, ids[2]!, ids[3]!]; // between ids[1] and ids[5]
    const plan = planBatchOrder(g, { postIds: range, above: ids[1]!, below: ids[5]! }, CEILING);
    expect(plan.writes.map((w) => w.postId)).toEqual([ids[4]]);
    expect(apply(g, plan.writes)).toEqual([ids[0], ids[1], ...range, ...ids.slice(5)]);
  });

  it('accepts null neighbours for a range that reaches the top or the bottom', () => {
    const g = grid(4);
    const ids = g.map((x) => x.postId);
    const top = planBatchOrder(
      g,
      { postIds: [ids[1]!, ids[0]!], above: null, below: ids[2]! },
      CEILING,
    );
    expect(apply(g, top.writes)).toEqual([ids[1], ids[0], ids[2], ids[3]]);
    const bottom = planBatchOrder(
      g,
      { postIds: [ids[3]!, ids[2]!], above: ids[1]!, below: null },
      CEILING,
    );
    expect(apply(g, bottom.writes)).toEqual([ids[0], ids[1], ids[3], ids[2]]);
  });

  it.each([
    ['a missing post', (ids: bigint[]) => ({ postIds: ids.slice(1) })],
    ['a duplicate', (ids: bigint[]) => ({ postIds: [...ids.slice(1), ids[1]!] })],
    ['a foreign post', (ids: bigint[]) => ({ postIds: [...ids.slice(1), 12345n] })],
    ['one neighbour only', (ids: bigint[]) => ({ postIds: ids, above: null })],
    ['an unknown neighbour', (ids: bigint[]) => ({ postIds: [], above: 1n, below: ids[0]! })],
    [
      'neighbours in the wrong order',
      (ids: bigint[]) => ({ postIds: [], above: ids[2]!, below: ids[0]! }),
    ],
    [
      'a range that is not what lies between',
      (ids: bigint[]) => ({ postIds: [ids[1]!], above: ids[0]!, below: ids[3]! }),
    ],
  ])('rejects %s with invalid_request', (_name, make) => {
    const g = grid(4);
    const ids = g.map((x) => x.postId);
    try {
      planBatchOrder(g, make(ids), CEILING);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expect((e as DomainError).code).toBe('invalid_request');
    }
  });
});
