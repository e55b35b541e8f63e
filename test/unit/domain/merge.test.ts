import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  compareDisplay,
  mergeGrid,
  type GridEntry,
  type GridPosition,
} from '../../../src/domain/merge.js';

const SEED = 20260501;
const e = (postId: number, key: number): GridEntry => ({
  postId: BigInt(postId),
  key: BigInt(key),
});
const ids = (xs: number[]) => xs.map(BigInt);

/** Independent comparator for the reference (key DESC, then postId DESC), not the one under test. */
const desc = (a: GridPosition, b: GridPosition): number =>
  a.key !== b.key
    ? a.key > b.key
      ? -1
      : 1
    : a.postId > b.postId
      ? -1
      : a.postId < b.postId
        ? 1
        : 0;

/** The reference: materialise every unpinned post with its effective key, sort, slice. */
function reference(
  posts: readonly bigint[],
  overrides: ReadonlyMap<bigint, bigint>,
  pinned: ReadonlySet<bigint>,
  after: GridPosition | undefined,
  limit: number | undefined,
): GridEntry[] {
  const all = posts
    .filter((p) => !pinned.has(p))
    .map((p) => ({ postId: p, key: overrides.get(p) ?? p }))
    .sort(desc);
  const start = after ? all.filter((x) => desc(x, after) > 0) : all;
  return limit === undefined ? start : start.slice(0, limit);
}

async function* paged(xs: readonly bigint[], pageSize: number): AsyncGenerator<bigint> {
  for (let i = 0; i < xs.length; i += pageSize) {
    await Promise.resolve(); // a page boundary, like a driver fetch
    yield* xs.slice(i, i + pageSize);
  }
}

describe('mergeGrid examples', () => {
  it('merges overrides into the chronological order and skips overridden IDs', async () => {
    const out = await mergeGrid([e(2, 9)], ids([8, 5, 2, 1]));
    expect(out).toEqual([e(2, 9), e(8, 8), e(5, 5), e(1, 1)]);
  });

  it('starts strictly after a position', async () => {
    expect(
      await mergeGrid([e(2, 9)], ids([8, 5, 2, 1]), { after: { key: 8n, postId: 8n } }),
    ).toEqual([e(5, 5), e(1, 1)]);
  });

  it('breaks ties on equal keys by postId DESC (override key equal to another post ID)', async () => {
    // post 3 moved to key 5, which is post 5's own ID: (5,5) comes before (5,3)
    expect(await mergeGrid([e(3, 5)], ids([7, 5, 3, 1]))).toEqual([
      e(7, 7),
      e(5, 5),
      e(3, 5),
      e(1, 1),
    ]);
    // post 6 moved to key 5 ties with post 5 and sorts first because 6 > 5
    expect(await mergeGrid([e(6, 5)], ids([7, 6, 5, 1]))).toEqual([
      e(7, 7),
      e(6, 5),
      e(5, 5),
      e(1, 1),
    ]);
    // a position in the middle of a tie
    expect(
      await mergeGrid([e(6, 5)], ids([7, 6, 5, 1]), { after: { key: 5n, postId: 6n } }),
    ).toEqual([e(5, 5), e(1, 1)]);
  });

  it('drops pinned posts from both inputs', async () => {
    expect(await mergeGrid([e(2, 9), e(4, 3)], ids([8, 4, 2, 1]), { pinned: [8n, 4n] })).toEqual([
      e(2, 9),
      e(1, 1),
    ]);
  });

  it('honours limit, including 0, and stops pulling the source', async () => {
    let pulled = 0;
    function* src() {
      for (const id of [10n, 9n, 8n, 7n, 6n]) {
        pulled += 1;
        yield id;
      }
    }
    expect(await mergeGrid([], src(), { limit: 2 })).toEqual([e(10, 10), e(9, 9)]);
    expect(pulled).toBe(2);
    pulled = 0;
    expect(await mergeGrid([e(1, 20)], src(), { limit: 1 })).toEqual([e(1, 20)]);
    expect(pulled).toBe(1); // the first ID proves the override comes first
    expect(await mergeGrid([e(1, 20)], src(), { limit: 0 })).toEqual([]);
    await expect(mergeGrid([], [], { limit: -1 })).rejects.toThrow(RangeError);
    await expect(mergeGrid([], [], { limit: 1.5 })).rejects.toThrow(RangeError);
  });

  it('a skipped (overridden or pinned) row lets the overrides above it out', async () => {
    let pulled = 0;
    function* src() {
      for (const id of [8n, 5n, 2n, 1n]) {
        pulled += 1;
        yield id;
      }
    }
    // Every post moved: row 8 proves nothing can come above (9,8), row 5 the same for (6,5).
    const moved = [e(8, 9), e(5, 6), e(2, 3), e(1, 2)];
    expect(await mergeGrid(moved, src(), { limit: 2 })).toEqual([e(8, 9), e(5, 6)]);
    expect(pulled).toBe(2);
    pulled = 0;
    // A pinned row counts the same; an override with the row's own ID as key goes with its row.
    expect(await mergeGrid([e(5, 5)], src(), { pinned: [8n], limit: 1 })).toEqual([e(5, 5)]);
    expect(pulled).toBe(2);
  });

  it('emits overrides as given: grid membership is kept by the writers, not checked here', async () => {
    // Post 99 has no row in the stream (a page never reads the rows above its cursor's key).
    expect(await mergeGrid([e(99, 6)], ids([8, 5]))).toEqual([e(8, 8), e(99, 6), e(5, 5)]);
    expect(await mergeGrid([e(99, 2)], ids([8, 5]))).toEqual([e(8, 8), e(5, 5), e(99, 2)]);
  });

  it('up: ascending from strictly above `after`, stream ascending, overrides in display order', async () => {
    const up = (after?: GridPosition, limit?: number) =>
      mergeGrid([e(2, 9), e(6, 3)], ids([1, 2, 5, 6, 8]), {
        direction: 'up',
        ...(after ? { after } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
    expect(await up()).toEqual([e(1, 1), e(6, 3), e(5, 5), e(8, 8), e(2, 9)]);
    expect(await up({ key: 3n, postId: 6n })).toEqual([e(5, 5), e(8, 8), e(2, 9)]);
    expect(await up({ key: 3n, postId: 5n }, 1)).toEqual([e(6, 3)]); // just below (3,6): inclusive
    await expect(mergeGrid([], ids([2, 1]), { direction: 'up' })).rejects.toThrow(
      /strictly ascending/,
    );
  });

  it('rejects unsorted inputs instead of producing a wrong order', async () => {
    await expect(mergeGrid([], ids([1, 2]))).rejects.toThrow(/strictly descending/);
    await expect(mergeGrid([], ids([2, 2]))).rejects.toThrow(/strictly descending/);
    await expect(mergeGrid([e(1, 1), e(2, 2)], [])).rejects.toThrow(/sorted/);
  });

  it('async: pulls lazily and closes the source when the merge is full', async () => {
    let closed = false;
    let pulled = 0;
    async function* src() {
      try {
        for (const id of [5n, 4n, 3n, 2n, 1n]) {
          pulled += 1;
          yield id;
        }
      } finally {
        closed = true;
      }
    }
    expect(await mergeGrid([], src(), { limit: 1 })).toEqual([e(5, 5)]);
    expect(closed).toBe(true);
    expect(pulled).toBe(1);
    expect(await mergeGrid([e(3, 10)], src(), { limit: 3 })).toEqual([e(3, 10), e(5, 5), e(4, 4)]);
  });
});

/**
 * Random grids with small IDs so that collisions are common: override keys that equal other
 * posts' IDs, several overrides sharing a key, pins that also have overrides, positions that sit
 * on a tie or on a post that no longer exists.
 */
const scenario = fc
  .uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 40 })
  .chain((postNums) => {
    const posts = postNums.map(BigInt).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
    const sub = fc.subarray(posts);
    return fc.record({
      posts: fc.constant(posts),
      overrides: sub.chain((moved) =>
        fc.tuple(...moved.map((p) => fc.tuple(fc.constant(p), fc.bigInt({ min: 1n, max: 64n })))),
      ),
      pinned: fc.subarray(posts, { maxLength: Math.min(3, posts.length) }),
      after: fc.option(
        fc.record({
          key: fc.bigInt({ min: 0n, max: 65n }),
          postId: fc.bigInt({ min: 0n, max: 65n }),
        }),
      ),
      limit: fc.option(fc.integer({ min: 0, max: 45 })),
      pageSize: fc.integer({ min: 1, max: 7 }),
    });
  });

describe('mergeGrid property: equals sort-then-slice', () => {
  it('sync and async agree with the reference', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const overrideMap = new Map(s.overrides);
        const overrides = s.overrides
          .map(([postId, key]) => ({ postId, key }))
          .sort((a, b) => compareDisplay(b, a));
        const pinned = new Set(s.pinned);
        const after = s.after ?? undefined;
        const limit = s.limit ?? undefined;
        const want = reference(s.posts, overrideMap, pinned, after, limit);
        const opts = { pinned, after, limit };
        expect(await mergeGrid(overrides, s.posts, opts)).toEqual(want);
        expect(await mergeGrid(overrides, paged(s.posts, s.pageSize), opts)).toEqual(want);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('the caller may start the stream at the position key (as a Cassandra range read would)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        if (!s.after) return;
        const after = s.after;
        const overrides = s.overrides
          .map(([postId, key]) => ({ postId, key }))
          .sort((a, b) => compareDisplay(b, a));
        const want = await mergeGrid(overrides, s.posts, { after, pinned: s.pinned });
        const trimmed = s.posts.filter((p) => p <= after.key);
        expect(await mergeGrid(overrides, trimmed, { after, pinned: s.pinned })).toEqual(want);
      }),
      { seed: SEED + 1, numRuns: 200 },
    );
  });
});
