/**
 * The client's local replay of anchor-based moves (design §5.3) must do what the server does:
 * the moved post lands right after its anchor (the top for null or a pinned anchor), nothing
 * else changes order, and a move whose post or anchor is gone changes nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyMove } from '../../../client/src/order-editor.js';

const SEED = 20261201;
const ids = (n: number) => Array.from({ length: n }, (_, i) => String(1000 + i));

describe('applyMove', () => {
  it('puts the post right after its anchor and keeps the others in order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        (n, p, q, top) => {
          const order = ids(n);
          const post = order[p % n]!;
          const after = top ? null : order[q % n]!;
          const next = [...order];
          expect(applyMove(next, [], { post_id: post, after })).toBeUndefined();
          expect([...next].sort()).toEqual([...order].sort());
          if (after === null) expect(next[0]).toBe(post);
          else if (after !== post) expect(next[next.indexOf(after) + 1]).toBe(post);
          const others = (xs: string[]) => xs.filter((x) => x !== post);
          expect(others(next)).toEqual(others(order));
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('treats a pinned anchor as the top, and reports a vanished post or anchor', () => {
    const order = ['1', '2', '3'];
    const pinned = ['9'];
    expect(applyMove(order, pinned, { post_id: '3', after: '9' })).toBeUndefined();
    expect(order).toEqual(['3', '1', '2']);
    expect(applyMove(order, pinned, { post_id: '4', after: null })).toBe('post_gone');
    expect(applyMove(order, pinned, { post_id: '1', after: '5' })).toBe('anchor_gone');
    expect(applyMove(order, pinned, { post_id: '9', after: '1' })).toBe('post_gone');
    expect(order).toEqual(['3', '1', '2']);
  });
});
