/**
 * How many `grid_posts` rows a page of the merged order reads. An overridden row's chronological
 * position says nothing about its display position, so the merge may only skip it; what it must
 * never do is keep pulling rows past the page's end because the rows it sees are overridden.
 *
 * Bound checked (down the display order, the stream range-read from the cursor's key as
 * Cassandra does): a page of `limit` entries pulls at most
 *   limit + skipped + 2
 * rows, where `skipped` = overridden or pinned posts whose ID lies between the page's end key
 * and the cursor's key, and the 2 are the cursor's own row (the range read is inclusive) and the
 * first row past the page's end (which proves that an override ends the page). Rows fetched add
 * at most one fetch page (pageSize - 1) to that. And the page equals the reference: everything
 * sorted in memory by (effective key DESC, post ID DESC), pins dropped, cursor, limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  mergeGrid,
  pagedIds,
  type GridPosition,
  type MergeDirection,
} from '../../../src/domain/merge.js';
import {
  desc,
  displayOrder,
  gridArb,
  noPulls,
  overrideRows,
  pagedRows,
  skippedRows,
  type ModelGrid,
} from './grid-model.js';

const SEED = 20260502;

/** None, a real entry of the order (what a cursor holds), or any position (ties, gone posts). */
const cursorArb = fc.oneof(
  fc.constant(null),
  fc.nat(),
  fc.record({ key: fc.bigInt({ min: 0n, max: 421n }), postId: fc.bigInt({ min: 0n, max: 421n }) }),
);

const pick = (order: readonly GridPosition[], c: null | number | GridPosition) =>
  c === null ? undefined : typeof c === 'number' ? order[c % Math.max(order.length, 1)] : c;

/**
 * Rows the merge may pull for a page (all of them when the page is not full): limit + skipped
 * rows between the cursor's key and the page's end key + the cursor's row + one past the end.
 */
function allowance(
  grid: ModelGrid,
  direction: MergeDirection,
  after: GridPosition | undefined,
  page: readonly GridPosition[],
  limit: number,
) {
  if (limit === 0) return 0;
  const full = page.length === limit;
  const [lo, hi] =
    direction === 'down'
      ? [full ? page[limit - 1]!.key : 0n, after ? after.key : 1n << 62n]
      : [after ? after.key : 0n, full ? page[limit - 1]!.key : 1n << 62n];
  return limit + skippedRows(grid, grid.pinned, lo, hi) + 2;
}

/** The page a walk must return: the reference order (reversed for `up`), cursor, limit. */
function referencePage(
  grid: ModelGrid,
  direction: MergeDirection,
  after: GridPosition | undefined,
  limit: number,
) {
  const down = displayOrder(grid, grid.pinned);
  const order = direction === 'down' ? down : down.reverse();
  const sign = direction === 'down' ? 1 : -1;
  return order.filter((e) => !after || sign * desc(e, after) > 0).slice(0, limit);
}

/** grid_posts as Cassandra range-reads it: from the cursor's key (inclusive), that direction. */
const rangeRead = (grid: ModelGrid, direction: MergeDirection, after?: GridPosition) =>
  direction === 'down'
    ? grid.posts.filter((p) => !after || p <= after.key)
    : [...grid.posts].reverse().filter((p) => !after || p >= after.key);

describe('merge: rows pulled per page', () => {
  it('pulls at most limit + skipped rows + 2 (one fetch page more) and equals the reference', async () => {
    await fc.assert(
      fc.asyncProperty(
        gridArb(),
        fc.constantFrom<MergeDirection>('down', 'up'),
        cursorArb,
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 16 }),
        async (grid, direction, c, limit, pageSize) => {
          const after = pick(displayOrder(grid, grid.pinned), c);
          const want = referencePage(grid, direction, after, limit);
          const stream = rangeRead(grid, direction, after);
          const opts = { pinned: grid.pinned, after, limit, direction };
          const rows = overrideRows(grid);
          const bound = allowance(grid, direction, after, want, limit);

          const count = noPulls();
          const got = await mergeGrid(rows, pagedRows(stream, pageSize, count), opts);
          expect(got).toEqual(want);
          expect(count.pulled).toBeLessThanOrEqual(bound);
          expect(count.fetched).toBeLessThanOrEqual(bound + pageSize - 1);

          let pulled = 0;
          function* sync() {
            for (const id of stream) {
              pulled += 1;
              yield id;
            }
          }
          expect(await mergeGrid(rows, sync(), opts)).toEqual(want);
          expect(pulled).toBeLessThanOrEqual(bound);

          // A source of whole pages (Cassandra pages, the writer's memo) merges the same and
          // fetches no page more.
          const byPage = noPulls();
          const source = pagedIds(async function* () {
            for (let i = 0; i < stream.length; i += pageSize) {
              await Promise.resolve();
              const page = stream.slice(i, i + pageSize);
              byPage.fetched += page.length;
              yield page;
            }
          });
          expect(await mergeGrid(rows, source, opts)).toEqual(want);
          expect(byPage.fetched).toBeLessThanOrEqual(bound + pageSize - 1);
        },
      ),
      { seed: SEED, numRuns: 600 },
    );
  });
});

describe('merge: a grid whose every post moved', () => {
  // 2,000 posts, every one overridden with a key drawn from the same ID range (the bench's
  // shape: a random post's ID plus a small offset). Before, one page streamed the partition.
  const posts = Array.from({ length: 2000 }, (_, i) => BigInt(1_000_000 - i * 100));
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const grid: ModelGrid = {
    posts,
    overrides: new Map(posts.map((p) => [p, posts[Math.floor(random() * posts.length)]! + 1n])),
    pinned: new Set(),
  };
  const rows = overrideRows(grid);
  const order = displayOrder(grid, grid.pinned);

  it('reads a first page and page 5 in about as many rows as they show', async () => {
    for (const after of [undefined, order[99]!]) {
      const count = noPulls();
      const stream = after ? posts.filter((p) => p <= after.key) : posts;
      const page = await mergeGrid(rows, pagedRows(stream, 32, count), { after, limit: 25 });
      expect(page).toEqual(order.filter((e) => !after || desc(e, after) > 0).slice(0, 25));
      expect(count.pulled).toBeLessThanOrEqual(allowance(grid, 'down', after, page, 25));
      expect(count.fetched).toBeLessThan(150); // was the whole partition
    }
  });
});
