import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  doubledVersions,
  lastWrites,
  linearize,
  replay,
  ReplayError,
} from '../../../tools/loadtest/history.js';
import { mv } from './fixtures.js';

const SEED = 20260506;

describe('linearize', () => {
  it('orders by version, not by acknowledgement order', () => {
    const h = linearize([mv(1, null, 5, 0), mv(2, null, 3, 1), mv(3, null, 4, 2)]);
    expect(h.map((m) => m.version)).toEqual([3n, 4n, 5n]);
  });

  it('breaks version ties, and orders version-less acks, by acknowledgement order', () => {
    expect(linearize([mv(1, null, 2, 1), mv(2, null, 2, 0)]).map((m) => m.seq)).toEqual([0, 1]);
    expect(linearize([mv(1, null, null, 2), mv(2, null, null, 0)]).map((m) => m.seq)).toEqual([
      0, 2,
    ]);
  });

  it('refuses a history that mixes versioned and version-less acks', () => {
    expect(() => linearize([mv(1, null, 1, 0), mv(2, null, null, 1)])).toThrow(/mixes/);
  });

  it('is a permutation sorted by (version, seq) (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(20), { maxLength: 40 }), (versions) => {
        const acks = versions.map((v, seq) => mv(1, null, v, seq));
        const h = linearize(acks);
        expect(h).toHaveLength(acks.length);
        for (let i = 1; i < h.length; i++) {
          const a = h[i - 1]!;
          const b = h[i]!;
          expect(a.version! < b.version! || (a.version === b.version && a.seq < b.seq)).toBe(true);
        }
      }),
      { seed: SEED },
    );
  });
});

describe('replay', () => {
  it('walks the worked example', () => {
    const after1 = replay([3n, 2n, 1n], [mv(1, 3, 1, 0)]);
    expect(after1).toEqual([3n, 1n, 2n]);
    expect(replay(after1, [mv(2, null, 2, 1)])).toEqual([2n, 3n, 1n]);
  });

  it('is idempotent for a repeated move (anchor semantics)', () => {
    const once = replay([4n, 3n, 2n, 1n], [mv(1, 4, 1, 0)]);
    expect(replay(once, [mv(1, 4, 2, 1)])).toEqual(once);
  });

  it('throws a ReplayError naming an unknown post or anchor', () => {
    expect(() => replay([2n, 1n], [mv(9, null, 1, 0)])).toThrow(ReplayError);
    expect(() => replay([2n, 1n], [mv(1, 9, 1, 0)])).toThrow(/anchor 9/);
    expect(() => replay([2n, 1n], [mv(1, 1, 1, 0)])).toThrow(/itself/);
  });

  it('keeps every post exactly once (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(9), fc.option(fc.nat(9), { nil: null })), { maxLength: 50 }),
        (raw) => {
          const initial = Array.from({ length: 10 }, (_, i) => BigInt(10 - i));
          const moves = raw
            .filter(([p, a]) => p !== a)
            .map(([p, a], seq) => mv(p + 1, a === null ? null : a + 1, seq, seq));
          const out = replay(initial, moves);
          expect([...out].sort((a, b) => (a < b ? -1 : 1))).toEqual([...initial].reverse());
          const last = moves.at(-1);
          if (last) {
            const i = out.indexOf(last.postId);
            expect(last.after === null ? i === 0 : out[i - 1] === last.after).toBe(true);
          }
        },
      ),
      { seed: SEED },
    );
  });
});

describe('lastWrites', () => {
  it('keeps the last move of each post in history order', () => {
    const h = linearize([mv(1, null, 2, 0), mv(1, 3, 1, 1), mv(2, null, 3, 2)]);
    const last = lastWrites(h);
    expect(last.get(1n)?.version).toBe(2n);
    expect(last.get(2n)?.version).toBe(3n);
  });
});

describe('doubledVersions', () => {
  const init = [1n, 2n, 3n, 4n];
  it('one version, one move that changed the grid and a no-op planned on its result: fine', () => {
    // v5: 3 to the top → [3, 1, 2, 4]; the no-op "1 after 3", acknowledged first, found v5.
    const h = linearize([mv(1, 3, 5, 0), mv(3, null, 5, 1)]);
    expect(doubledVersions(init, h)).toEqual([]);
  });

  it('one version acknowledged for two moves that each change the grid: one of them is gone', () => {
    const h = linearize([mv(3, null, 5, 0), mv(4, 1, 5, 1), mv(2, null, 6, 2)]);
    const d = doubledVersions(init, h);
    expect(d.map((x) => x.version)).toEqual([5n]);
    expect(d[0]!.moves.map((m) => m.postId)).toEqual([3n, 4n]);
  });

  it('every version once: nothing', () => {
    expect(doubledVersions(init, linearize([mv(3, null, 5, 0), mv(4, 1, 6, 1)]))).toEqual([]);
  });
});
