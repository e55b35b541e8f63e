/**
 * The write path's reads around a gap (service/operations/placement.ts) through the real Cassandra
 * reader over an in-memory `grid_posts` that counts rows: the slice a move places into, and the
 * entry above a post (the undo record). For any grid (0-100 % overridden, pins, the moved post
 * left out, any anchor), each side's read returns the reference (everything sorted in memory)
 * and pulls at most
 *   asked + skipped + 2
 * rows, `skipped` = overridden or excluded posts whose ID lies between the anchor's key and that
 * side's last entry's key (see merge-pulls.property.test.ts for the 2), fetching at most one
 * page of the reader's page size more.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GridEntry } from '../../../src/domain/merge.js';
import type { Slice } from '../../../src/domain/keys.js';
import { readEntryAbove, readSlice } from '../../../src/service/operations/placement.js';
import type { Consistency } from '../../../src/store/cassandra.js';
import { CassandraGridReader } from '../../../src/store/grid-reader.js';
import { EMPTY_HEAD, type GridStore, type StreamOptions } from '../../../src/store/grid-store.js';
import type { MembershipStore } from '../../../src/store/membership-store.js';
import type { PostsStore } from '../../../src/store/posts-store.js';
import {
  desc,
  displayOrder,
  gridArb,
  noPulls,
  overrideRows,
  pagedRows,
  skippedRows,
  type ModelGrid,
  type Pulls,
} from '../domain/grid-model.js';

const SEED = 20260503;
const TOP = 1n << 62n;

interface Read extends Pulls {
  readonly direction: 'asc' | 'desc';
  readonly from: bigint | undefined;
  readonly pageSize: number;
}

/** The real reader over `grid`'s rows; every stream it opens is recorded with its counts. */
function modelReader(grid: ModelGrid) {
  const reads: Read[] = [];
  const store = {
    streamChronological(_profileId: bigint, o: StreamOptions = {}) {
      const read: Read = {
        ...noPulls(),
        direction: o.direction ?? 'desc',
        from: o.from,
        pageSize: o.pageSize ?? 200,
      };
      reads.push(read);
      const ids =
        read.direction === 'desc'
          ? grid.posts.filter((p) => o.from === undefined || p <= o.from)
          : [...grid.posts].reverse().filter((p) => o.from === undefined || p >= o.from);
      return pagedRows(ids, read.pageSize, read);
    },
  };
  const reader = new CassandraGridReader(
    store as unknown as GridStore,
    {} as PostsStore,
    {} as MembershipStore,
    {} as Consistency,
  );
  return { reader, reads };
}

/** Checks one side's read against its allowance: `asked` entries, skipped rows in [lo, hi]. */
function expectBounded(
  read: Read | undefined,
  grid: ModelGrid,
  exclude: ReadonlySet<bigint>,
  asked: number,
  lo: bigint,
  hi: bigint,
) {
  expect(read).toBeDefined();
  const bound = asked + skippedRows(grid, exclude, lo, hi) + 2;
  expect(read!.pulled).toBeLessThanOrEqual(bound);
  expect(read!.fetched).toBeLessThanOrEqual(bound + read!.pageSize - 1);
}

const sliceArb = gridArb(200).chain((grid) =>
  fc.record({
    grid: fc.constant(grid),
    moved: fc.option(fc.constantFrom(...(grid.posts.length ? grid.posts : [0n]))),
    anchor: fc.option(fc.nat()),
    width: fc.integer({ min: 1, max: 40 }),
  }),
);

describe('readSlice: the slice around a gap', () => {
  it('equals the reference and reads each side within its allowance', async () => {
    await fc.assert(
      fc.asyncProperty(sliceArb, async ({ grid, moved, anchor: a, width }) => {
        const exclude = new Set([...grid.pinned, ...(moved === null ? [] : [moved])]);
        const order = displayOrder(grid, exclude);
        const at = a === null || order.length === 0 ? -1 : a % order.length;
        const anchor: GridEntry | null = at === -1 ? null : order[at]!;
        const { reader, reads } = modelReader(grid);
        const req = { profileId: 1n, overrides: overrideRows(grid), exclude, anchor };
        const got = await readSlice(reader, req, width);

        const below = order.slice(at + 1, at + 2 + width); // display order, nearest first
        const above = anchor
          ? order
              .slice(0, at + 1)
              .reverse()
              .slice(0, width + 1)
          : [];
        const want: Slice = {
          entries: [...below.slice(0, width).reverse(), ...above.slice(0, width)],
          gap: Math.min(below.length, width),
          reachesBottom: below.length <= width,
          reachesTop: above.length <= width,
        };
        expect(got).toEqual(want);

        const down = reads.find((r) => r.direction === 'desc');
        const downEnd = below.length > width ? below[width]!.key : 0n;
        expectBounded(down, grid, exclude, width + 1, downEnd, anchor ? anchor.key : TOP);
        const up = reads.find((r) => r.direction === 'asc');
        if (!anchor) {
          expect(up).toBeUndefined(); // a move to the top reads only below
        } else {
          const upEnd = above.length > width ? above[width]!.key : TOP;
          expectBounded(up, grid, exclude, width + 1, anchor.key, upEnd);
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('readEntryAbove: the entry above a post beyond the slice (undo record)', () => {
  it('equals the reference and reads within the allowance', async () => {
    const arb = gridArb(200)
      .filter((g) => g.posts.some((p) => !g.pinned.has(p)))
      .chain((grid) =>
        fc.record({
          grid: fc.constant(grid),
          postId: fc.constantFrom(...grid.posts.filter((p) => !grid.pinned.has(p))),
        }),
      );
    await fc.assert(
      fc.asyncProperty(arb, async ({ grid, postId }) => {
        const exclude = new Set([...grid.pinned, postId]);
        const me = { postId, key: grid.overrides.get(postId) ?? postId };
        const aboveMe = displayOrder(grid, exclude).filter((e) => desc(e, me) < 0);
        const want = aboveMe[aboveMe.length - 1] ?? null;
        const { reader, reads } = modelReader(grid);
        const snapshot = {
          head: { ...EMPTY_HEAD, pins: [...grid.pinned] },
          overrides: overrideRows(grid).map((o) => ({ ...o, movedVersion: undefined })),
        };
        expect(await readEntryAbove(reader, 1n, snapshot, postId)).toEqual(want);
        expect(reads).toHaveLength(1);
        expectBounded(reads[0], grid, exclude, 1, me.key, want ? want.key : TOP);
      }),
      { seed: SEED + 1, numRuns: 300 },
    );
  });
});
