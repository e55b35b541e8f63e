import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkGrid,
  checkTombstones,
  countByKind,
  misplacedPosts,
  type ExpectedGrid,
} from '../../../tools/loadtest/checker.js';
import { replay, type AckedMove } from '../../../tools/loadtest/history.js';
import { mv } from './fixtures.js';

const SEED = 20260505;
const ids = (xs: number[]) => xs.map(BigInt);
const grid = (initial: number[], acks: AckedMove[] = [], uncertain = 0): ExpectedGrid => ({
  profileId: 7n,
  initial: ids(initial),
  acks,
  uncertain,
});

describe('checkGrid', () => {
  it('with versions: a commit no acknowledged move names is a violation; unknown moves are resolved', () => {
    const acks = [mv(1, null, 11, 0)];
    const versions = { seeded: 10n, final: 12n };
    const twice = checkGrid({ ...grid([3, 2, 1], acks), versions }, ids([1, 3, 2]));
    expect(twice.violations.map((v) => v.kind)).toEqual(['order']);
    // The same gap, explained by a move of unknown outcome that did commit ("2 to the top").
    const unknownMoves = [{ postId: 2n, after: null }];
    const resolved = checkGrid(
      { ...grid([3, 2, 1], acks, 1), versions, unknownMoves },
      ids([2, 1, 3]),
    );
    expect(resolved).toEqual({
      violations: [],
      orderChecked: true,
      resolved: { kind: 'resolved', committed: 1, notApplied: 0 },
    });
  });

  it('passes an untouched grid read back in order', () => {
    expect(checkGrid(grid([3, 2, 1]), ids([3, 2, 1]))).toEqual({
      violations: [],
      orderChecked: true,
    });
  });

  it('passes when the observed order is the replay of the acks in version order', () => {
    // Acks arrive out of version order: v2 first. Version order decides: 1 ends after 3 (v2),
    // having first gone to the top (v1).
    const g = grid([3, 2, 1], [mv(1, 3, 2, 0), mv(1, null, 1, 1)]);
    expect(checkGrid(g, ids([3, 1, 2])).violations).toEqual([]);
  });

  it('flags an injected duplicate with the post and its count', () => {
    const { violations } = checkGrid(grid([3, 2, 1]), ids([3, 2, 2, 1]));
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ kind: 'duplicate', profile: '7', posts: ['2'] });
    expect(violations[0]!.detail).toContain('2×2');
  });

  it('flags a lost post and keeps checking the order of the rest', () => {
    const { violations } = checkGrid(grid([3, 2, 1]), ids([3, 1]));
    expect(violations.map((v) => v.kind)).toEqual(['lost']);
    expect(violations[0]!.posts).toEqual(['2']);
  });

  it('flags a post nobody created', () => {
    const { violations } = checkGrid(grid([2, 1]), ids([2, 9, 1]));
    expect(violations).toEqual([expect.objectContaining({ kind: 'unexpected', posts: ['9'] })]);
  });

  it('flags a lost update: the last acknowledged version did not win', () => {
    // v1: 1 to the top, v2: 1 after 2. Observed has 1 on top, i.e. v1 won over v2.
    const g = grid([3, 2, 1], [mv(1, null, 1, 0), mv(1, 2, 2, 1)]);
    const { violations } = checkGrid(g, ids([1, 3, 2]));
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ kind: 'order', posts: ['1'] });
    expect(violations[0]!.detail).toContain('after 2 (version 2)');
  });

  it('skips the order check, and says so, when some moves had an unknown outcome', () => {
    const r = checkGrid(grid([3, 2, 1], [], 1), ids([1, 2, 3]));
    expect(r).toEqual({ violations: [], orderChecked: false });
  });

  it('reports a history that names a post not on the grid', () => {
    const { violations } = checkGrid(grid([2, 1], [mv(5, null, 1, 0)]), ids([2, 1]));
    expect(violations).toEqual([expect.objectContaining({ kind: 'order', posts: ['5'] })]);
  });

  it('accepts any observed order that equals the replay (property)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 12 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.array(
                fc.tuple(fc.nat(n - 1), fc.option(fc.nat(n - 1), { nil: null }), fc.nat(1000)),
                { maxLength: 30 },
              ),
            ),
          ),
        ([n, raw]) => {
          const initial = Array.from({ length: n }, (_, i) => n - i);
          const acks = raw
            .map(([p, a, v], seq) => mv(p + 1, a === null ? null : a + 1, v, seq))
            .filter((m) => m.after !== m.postId);
          const g = grid(initial, acks);
          const sorted = [...acks].sort((x, y) =>
            x.version! === y.version! ? x.seq - y.seq : x.version! < y.version! ? -1 : 1,
          );
          const observed = replay(ids(initial), sorted);
          expect(checkGrid(g, observed).violations).toEqual([]);
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('detects any swap of two posts in a correct order (property)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 30 })
          .chain((n) => fc.tuple(fc.constant(n), fc.nat(n - 1), fc.nat(n - 1))),
        ([n, i, j]) => {
          fc.pre(i !== j);
          const initial = Array.from({ length: n }, (_, k) => n - k);
          const observed = ids(initial);
          [observed[i], observed[j]] = [observed[j]!, observed[i]!];
          const { violations } = checkGrid(grid(initial), observed);
          expect(violations.map((v) => v.kind)).toEqual(['order']);
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
  });
});

describe('misplacedPosts', () => {
  it('names the fewest posts that reconcile the two orders', () => {
    // want a b c d e, observed e a b c d: only e moved.
    expect(misplacedPosts(ids([5, 4, 3, 2, 1]), ids([1, 5, 4, 3, 2]))).toEqual([1n]);
  });

  it('ignores posts missing on either side and repeated occurrences', () => {
    expect(misplacedPosts(ids([3, 2, 1]), ids([3, 9, 3, 1]))).toEqual([]);
  });
});

describe('checkTombstones / countByKind', () => {
  it('flags any tombstone and nothing for zero', () => {
    expect(checkTombstones(7n, 'grid_overrides', 0)).toEqual([]);
    const v = checkTombstones(7n, 'grid_overrides', 3);
    expect(v).toEqual([expect.objectContaining({ kind: 'tombstones', profile: '7' })]);
    expect(v[0]!.detail).toContain('3 tombstone(s) in grid_overrides');
  });

  it('counts violations by kind', () => {
    const v = [...checkTombstones(1n, 't', 1), ...checkGrid(grid([2, 1]), ids([2, 2])).violations];
    expect(countByKind(v)).toEqual({
      duplicate: 1,
      lost: 1,
      unexpected: 0,
      order: 0,
      pins: 0,
      tombstones: 1,
    });
  });
});
