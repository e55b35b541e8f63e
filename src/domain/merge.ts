/**
 * Read-time merge of a grid's two sources into display order.
 *
 * A grid is stored as two sequences (see cql/001_core.cql):
 *   - the override partition: posts that were moved, each with its own sort key, and
 *   - the chronological list of post IDs, newest first, which moves never touch.
 * A post's effective key is its override key when it has one, else its own ID. Unpinned posts are
 * displayed by (effective key DESC, post_id DESC); pins are placed first by the caller.
 *
 * The merge is a two-way merge of sorted sequences. The chronological stream is filtered (pinned
 * IDs and IDs with an override are dropped; the override row is authoritative for those posts) and
 * then each remaining ID is its own key, so both inputs are sorted by the same (key, postId) DESC
 * order and the merge never needs to buffer more than the override array it was given. A dropped
 * row still tells the merge how far down the stream is, so the overrides above it go out without
 * waiting for a row that is shown (see `MergeCursor`).
 *
 * Worked example (keys are small for readability): overrides [{post 2, key 9}], chronological
 * [8, 5, 2, 1] → 2 is skipped in the stream, so the output is (9,2) (8,8) (5,5) (1,1). With
 * `after = {key: 8, postId: 8}` the output starts at (5,5). Every post moved, overrides
 * [{8, key 9}, {5, key 6}, {2, key 3}], limit 2: the first row (8) puts (9,8) out, the second (5)
 * puts (6,5) out, and the rows below 5 are never read.
 *
 * Membership is not the merge's business: an override is emitted as given, whether or not its
 * post's row is among the rows read (a page's stream starts at the cursor's key, so most rows of
 * the posts it shows are never read anyway). The writers keep the override partition to posts on
 * the grid: a removal drops the override in the same compare-and-set, a move checks the post's
 * row after the snapshot, and the audit reports any `orphan_override`.
 *
 * One core (`MergeCursor`, merge-cursor.ts) holds all the logic; `mergeGrid` here only feeds it. It also walks the other way (`direction: 'up'`) for the slice above a
 * move's gap.
 */

import {
  compareDisplay,
  MergeCursor,
  offerAll,
  type GridEntry,
  type GridPosition,
  type MergeDirection,
  type MergeOptions,
} from './merge-cursor.js';

export { compareDisplay };
export type { GridEntry, GridPosition, MergeDirection, MergeOptions };

/**
 * A chronological source that can also hand over whole pages of IDs (Cassandra pages, runs the
 * writer's memo knows). The merge then waits once per page, not once per ID: `for await` over
 * single IDs costs several promises each, and a move merges two slices of 30-odd IDs.
 */
export interface PagedIds extends AsyncIterable<bigint> {
  pages(): AsyncIterable<readonly bigint[]>;
}

const isPaged = (s: object): s is PagedIds => typeof (s as Partial<PagedIds>).pages === 'function';

/** IDs `pages` yields, as a PagedIds (its per-ID iteration walks the same pages). */
export function pagedIds(pages: () => AsyncIterable<readonly bigint[]>): PagedIds {
  return {
    pages,
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* page;
    },
  };
}

/**
 * The merged order (what every page read and move wants, as an array). `chronological` is the
 * stream of post IDs, strictly descending (ascending for `up`): a paged source (Cassandra pages
 * of grid_posts) is offered a page at a time, so the merge waits once per page, not once per ID;
 * a plain array or iterable (rows the writer's memo already holds) is merged without awaiting
 * anything per ID. The source is not pulled again once `limit` is reached.
 */
export async function mergeGrid(
  overrides: readonly GridEntry[],
  chronological: AsyncIterable<bigint> | Iterable<bigint>,
  options: MergeOptions = {},
): Promise<GridEntry[]> {
  const core = new MergeCursor(overrides, options);
  const out: GridEntry[] = [];
  if (core.full) {
    // nothing to pull
  } else if (!(Symbol.asyncIterator in chronological)) {
    for (const id of chronological) {
      core.offer(id, out);
      if (core.full) break; // stop pulling: the rest of the stream is never read
    }
  } else if (isPaged(chronological)) {
    for await (const page of chronological.pages()) if (offerAll(core, page, out)) break;
  } else {
    for await (const id of chronological) {
      core.offer(id, out);
      if (core.full) break;
    }
  }
  core.finish(out);
  return out;
}

/**
 * A post's entry in the order: its override key if `overrides` has one for it, else its own ID
 * (its effective key). Pinned posts get one too (the key they go back to when unpinned).
 */
export function effectiveEntry(overrides: readonly GridEntry[], postId: bigint): GridEntry {
  const o = overrides.find((r) => r.postId === postId);
  return { postId, key: o ? o.key : postId };
}
