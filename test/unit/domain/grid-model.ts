/**
 * A model grid for the properties of the merged reads (merge-pulls.property.test.ts and
 * slice-reader.property.test.ts): random grids with any share of overridden posts, the reference
 * display order computed by sorting everything in memory, and a paged `grid_posts` stream that
 * counts the rows it hands out and the rows it fetched (whole pages, as the driver does).
 */
import fc from 'fast-check';
import type { GridEntry, GridPosition } from '../../../src/domain/merge.js';

export interface ModelGrid {
  /** Post IDs on the grid, descending (grid_posts order). */
  readonly posts: readonly bigint[];
  /** Override key by post ID. */
  readonly overrides: ReadonlyMap<bigint, bigint>;
  readonly pinned: ReadonlySet<bigint>;
}

/**
 * Small IDs and keys, so that override keys equal other posts' IDs and several overrides share a
 * key. The share of overridden posts is 0 %, 100 % or anything between, so long runs of
 * overridden rows (the case that used to stall a page) come up often.
 */
export const gridArb = (maxPosts = 120): fc.Arbitrary<ModelGrid> =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: 400 }), { maxLength: maxPosts })
    .chain((nums) => {
      const posts = nums.map(BigInt).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
      const perPost = fc.tuple(fc.integer({ min: 0, max: 99 }), fc.bigInt({ min: 1n, max: 420n }));
      return fc.record({
        posts: fc.constant(posts),
        share: fc.oneof(fc.constant(0), fc.constant(100), fc.integer({ min: 0, max: 100 })),
        draws: fc.array(perPost, { minLength: posts.length, maxLength: posts.length }),
        pinned: fc.subarray(posts, { maxLength: Math.min(3, posts.length) }),
      });
    })
    .map(({ posts, share, draws, pinned }) => ({
      posts,
      overrides: new Map(
        posts.flatMap((p, i) => (draws[i]![0] < share ? [[p, draws[i]![1]] as const] : [])),
      ),
      pinned: new Set(pinned),
    }));

/** Independent comparator (key DESC, then postId DESC), not the one under test. */
export const desc = (a: GridPosition, b: GridPosition): number =>
  a.key !== b.key
    ? a.key > b.key
      ? -1
      : 1
    : a.postId > b.postId
      ? -1
      : a.postId < b.postId
        ? 1
        : 0;

/** Every post not in `exclude` with its effective key, in display order. */
export function displayOrder(grid: ModelGrid, exclude: ReadonlySet<bigint>): GridEntry[] {
  return grid.posts
    .filter((p) => !exclude.has(p))
    .map((p) => ({ postId: p, key: grid.overrides.get(p) ?? p }))
    .sort(desc);
}

/** The override rows as the store hands them over: display order. */
export const overrideRows = (grid: ModelGrid): GridEntry[] =>
  [...grid.overrides].map(([postId, key]) => ({ postId, key })).sort(desc);

/**
 * Rows a merge cannot show in chronological position and may only skip: overridden or excluded
 * posts whose ID lies in [lo, hi].
 */
export const skippedRows = (
  grid: ModelGrid,
  exclude: ReadonlySet<bigint>,
  lo: bigint,
  hi: bigint,
): number =>
  grid.posts.filter((p) => p >= lo && p <= hi && (grid.overrides.has(p) || exclude.has(p))).length;

export interface Pulls {
  /** Rows handed to the consumer. */
  pulled: number;
  /** Rows fetched: every page the consumer started, whole. */
  fetched: number;
}

export const noPulls = (): Pulls => ({ pulled: 0, fetched: 0 });

/** `ids` in pages of `pageSize`, counting into `count`; a page is fetched when first reached. */
export async function* pagedRows(
  ids: readonly bigint[],
  pageSize: number,
  count: Pulls,
): AsyncGenerator<bigint, void, undefined> {
  for (let i = 0; i < ids.length; i += pageSize) {
    await Promise.resolve(); // a page boundary, like a driver fetch
    const page = ids.slice(i, i + pageSize);
    count.fetched += page.length;
    for (const id of page) {
      count.pulled += 1;
      yield id;
    }
  }
}
