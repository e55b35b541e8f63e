/**
 * What one attempt of a grid's batch knows of its `grid_posts` rows, and the planner's read port
 * built on it (`rowsReadThrough`, PlanContext.rows): the writes of one batch (group commit) read
 * the same rows (is P on the grid, the slice around the gap), and without this every write would
 * wait for its own round trips in turn. Each attempt starts with an empty memo (commit.ts).
 *
 * Why it is sound: every row in it was read after the snapshot the attempt is planned on. Moves
 * never change `grid_posts`; a write that does (create, delete, archive…) commits alone and
 * bumps the version around its change, so the batch either loses to it (re-read, a new memo) or
 * commits first.
 *
 * Kept as disjoint closed ranges of post IDs whose rows are all known: a page read from Cassandra
 * covers everything between the row it started from and its last row (the whole rest of the
 * partition when it was the last page); a point read covers its one ID.
 */
import { mergeGrid, pagedIds, type GridEntry, type PagedIds } from '../../domain/merge.js';
import type { EntriesQuery } from '../../domain/grid-source.js';
import type { GridStore, IdPage } from '../../store/grid-store.js';
import type { GridRowsRead } from './types.js';

export type { IdPage };

const MIN = -(1n << 63n);
const MAX = (1n << 63n) - 1n;

interface Known {
  readonly lo: bigint;
  readonly hi: bigint;
  /** Post IDs with a row in [lo, hi], ascending. */
  readonly ids: readonly bigint[];
}

export class GridPostsMemo {
  private readonly ranges = new Map<bigint, Known[]>();

  /** Whether the row exists, if the memo knows. */
  has(profileId: bigint, postId: bigint): boolean | undefined {
    const r = this.rangeOf(profileId, postId);
    return r ? r.ids.includes(postId) : undefined;
  }

  /**
   * The known rows from `from` (inclusive) in `direction`, up to the end of the known range, and
   * where that range ends (POST_ID_MIN / POST_ID_MAX: the partition's end); undefined when
   * `from` is not known.
   */
  run(
    profileId: bigint,
    from: bigint,
    direction: 'desc' | 'asc',
  ): { readonly ids: bigint[]; readonly end: bigint } | undefined {
    const r = this.rangeOf(profileId, from);
    if (!r) return undefined;
    if (direction === 'asc') return { ids: r.ids.filter((id) => id >= from), end: r.hi };
    return { ids: r.ids.filter((id) => id <= from).reverse(), end: r.lo };
  }

  /** Records that the rows in [lo, hi] are exactly `ids`. */
  add(profileId: bigint, lo: bigint, hi: bigint, ids: readonly bigint[]): void {
    if (lo > hi) return;
    const all = this.ranges.get(profileId) ?? [];
    // Ranges that overlap or touch the new one are merged into it.
    const joined = all.filter((r) => r.hi >= lo - 1n && r.lo <= hi + 1n);
    const rest = all.filter((r) => !joined.includes(r));
    const set = new Set(ids.filter((id) => id >= lo && id <= hi));
    for (const r of joined) for (const id of r.ids) if (id < lo || id > hi) set.add(id);
    const merged: Known = {
      lo: joined.reduce((m, r) => (r.lo < m ? r.lo : m), lo),
      hi: joined.reduce((m, r) => (r.hi > m ? r.hi : m), hi),
      ids: [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    };
    this.ranges.set(
      profileId,
      [...rest, merged].sort((a, b) => (a.lo < b.lo ? -1 : 1)),
    );
  }

  private rangeOf(profileId: bigint, postId: bigint): Known | undefined {
    return this.ranges.get(profileId)?.find((r) => r.lo <= postId && postId <= r.hi);
  }
}

/**
 * A `grid_posts` stream from `from` (inclusive) answered from the memo where it knows the rows,
 * and from `read` (Cassandra pages, recorded as they come) where it does not. When the memo knows
 * everything from `from` to the partition's end (a hot grid, after the round's first reads) the
 * stream is just the array of those IDs.
 */
export function memoizedStream(
  memo: GridPostsMemo,
  profileId: bigint,
  direction: 'desc' | 'asc',
  from: bigint | undefined,
  read: (from: bigint) => AsyncGenerator<IdPage, void, undefined>,
): Iterable<bigint> | PagedIds {
  const start = from ?? (direction === 'desc' ? MAX : MIN);
  const known = memo.run(profileId, start, direction);
  if (known && known.end === (direction === 'desc' ? MIN : MAX)) return known.ids;
  return pagedIds(() => stream(memo, profileId, direction, start, read));
}

/** The stream's pages: runs the memo knows, and Cassandra pages (recorded as they come). */
async function* stream(
  memo: GridPostsMemo,
  profileId: bigint,
  direction: 'desc' | 'asc',
  from: bigint,
  read: (from: bigint) => AsyncGenerator<IdPage, void, undefined>,
): AsyncGenerator<readonly bigint[], void, undefined> {
  const desc = direction === 'desc';
  const partitionEnd = desc ? MIN : MAX;
  const next = (id: bigint) => (desc ? id - 1n : id + 1n);
  let cursor = from;
  for (let known = memo.run(profileId, cursor, direction); known;) {
    yield known.ids;
    if (known.end === partitionEnd) return;
    cursor = next(known.end);
    known = memo.run(profileId, cursor, direction);
  }
  let start = cursor;
  for await (const page of read(cursor)) {
    const end = page.last ? partitionEnd : page.ids[page.ids.length - 1];
    if (end !== undefined) {
      memo.add(profileId, desc ? end : start, desc ? start : end, page.ids);
      start = next(end);
    }
    yield page.ids;
  }
}

/** Rows per Cassandra page for a merged read of `limit` entries (the reader's own rule). */
const pageSizeFor = (limit: number) => Math.min(Math.max(limit + 1, 32), 1000);

/**
 * The planner's read port for `profileId` (PlanContext.rows): the store's and reader's calls,
 * answered from `memo` where it knows the rows and recorded into it where it does not. Reads of
 * another grid (a collaborator's) go straight to Cassandra: the snapshot vouches for one grid.
 */
export function rowsReadThrough(
  memo: GridPostsMemo,
  profileId: bigint,
  store: Pick<GridStore, 'hasGridRow' | 'gridRowsAmong' | 'idPages' | 'streamChronological'>,
): GridRowsRead {
  const stream = (p: bigint, direction: 'desc' | 'asc', from: bigint | undefined, size: number) =>
    p !== profileId
      ? store.streamChronological(p, {
          direction,
          ...(from === undefined ? {} : { from }),
          pageSize: size,
        })
      : memoizedStream(memo, p, direction, from, (f) => store.idPages(p, direction, f, size));
  const among = async (postIds: readonly bigint[]): Promise<Set<bigint>> => {
    const found = new Set<bigint>();
    const unknown = postIds.filter((id) => memo.has(profileId, id) === undefined);
    for (const id of postIds) if (memo.has(profileId, id)) found.add(id);
    if (unknown.length === 0) return found;
    const present = await store.gridRowsAmong(profileId, unknown);
    for (const id of unknown) {
      memo.add(profileId, id, id, present.has(id) ? [id] : []);
      if (present.has(id)) found.add(id);
    }
    return found;
  };
  return {
    hasGridRow: async (p, postId) =>
      p === profileId ? (await among([postId])).has(postId) : store.hasGridRow(p, postId),
    gridRowsAmong: (p, postIds) =>
      p === profileId ? among(postIds) : store.gridRowsAmong(p, postIds),
    entries: (p: bigint, overrides: readonly GridEntry[], query: EntriesQuery) =>
      mergeGrid(overrides, stream(p, 'desc', query.after?.key, pageSizeFor(query.limit)), {
        pinned: query.exclude ?? [],
        ...(query.after ? { after: query.after } : {}),
        limit: query.limit,
      }),
    chronologicalUp: (p, from, pageSize = 64) => stream(p, 'asc', from, pageSize),
  };
}
