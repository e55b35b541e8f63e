/**
 * One page of a profile's grid, from the page read's one port (`PageSource`): the Cassandra
 * reader (store/grid-reader.ts), or the Redis cache decorating it (cache/page-source.ts).
 *
 * Reads, in this order: the head (version, generation, pins), the overrides, then the
 * time-ordered rows streamed from the cursor's key down, merged by (effective key DESC, post ID
 * DESC). The cursor carries the last entry's (key, postId) and the version/generation of the head
 * read BEFORE the rows (design §6.1: read later, a post moved in between would look unmoved).
 *
 * Profiles with many overrides may have a reordered copy of the state (cql/016_display_copy.cql):
 * then the page seeks into it instead of reading the overrides and merging.
 *
 * Pins come first on the first page only, in addition to `limit` main-order entries; they never
 * appear in a cursor. Bodies are hydrated afterwards; a post deleted meanwhile is skipped.
 *
 * `chronological` (the reads.overrides kill switch, service/read/read-mode.ts): the source then
 * returns no overrides and no cached order, and cursors are marked as chronological. A cursor
 * from the other mode holds a key of the other order, so it is resumed after its post's position
 * in this order (the post's ID in chronological order, its effective key otherwise) and the
 * page says grid_changed: the reader continues where they were, without skips from a foreign key.
 */
import { sliceCachedOrder } from '../../domain/cached-order.js';
import { compareGridVersions, decodeCursor, encodeCursor } from '../../domain/cursor.js';
import { resumePosition } from '../../domain/cursor-resume.js';
import type { PageSource } from '../../domain/grid-source.js';
import type { MinVersion } from '../../domain/grid-version.js';
import { effectiveEntry, type GridEntry } from '../../domain/merge.js';
import type { Post } from '../../domain/post.js';
import { recordPageRead } from './read-metrics.js';

export const DEFAULT_PAGE_LIMIT = 24;
export const MAX_PAGE_LIMIT = 100;

export interface PageQuery {
  readonly profileId: bigint;
  readonly limit: number;
  readonly cursor?: string | undefined;
  /**
   * Read-your-writes: the caller saw this state; never answer with an older one. Without a
   * generation only version numbers are compared; with one, generation first.
   */
  readonly minVersion?: MinVersion | undefined;
}

export interface GridPage {
  readonly items: readonly Post[];
  /** Pins (first page) then the main-order entries, before hydration. */
  readonly entries: readonly GridEntry[];
  readonly nextCursor: string | null;
  readonly version: bigint;
  readonly generation: bigint;
  /** Posts on the grid (exact, from the grid head); undefined for a grid not yet counted. */
  readonly postCount: bigint | undefined;
  /** The cursor was issued at another version: the order changed since the previous page. */
  readonly gridChanged: boolean;
  /** Read with overrides switched off (the kill switch): not the grid's arrangement. */
  readonly chronological: boolean;
  /**
   * The entries came from the cache entry of exactly this state (immutable), so what is rendered
   * from this page belongs to (generation, version) and may be kept under it.
   */
  readonly fromStateCache: boolean;
}

export async function readGridPage(
  source: PageSource,
  cursorSecret: string,
  q: PageQuery,
  chronological = false,
): Promise<GridPage> {
  const started = performance.now();
  const cursor = q.cursor ? decodeCursor(q.cursor, cursorSecret, q.profileId) : undefined;
  const foreign = cursor !== undefined && (cursor.chronological ?? false) !== chronological;
  // Never below min_version (the source escalates to LOCAL_SERIAL, or skips a stale summary).
  const read = await source.head(q.profileId, q.minVersion, cursor ? 0 : q.limit);
  const { head } = read;
  const after = cursor ? { key: cursor.key, postId: cursor.postId } : undefined;
  // Served from a cached order of this state: no override read at all (pins then get their ID
  // as key; pins never enter a cursor).
  const fast = foreign
    ? undefined
    : read.order && sliceCachedOrder(read.order, cursor, after, q.limit + 1);
  // A reordered copy of exactly this state (profiles with many overrides): seek to the cursor,
  // no override read. Only for a cursor of this very state: another state's cursor position is
  // resumed through the overrides (cursor-resume.ts).
  const copied =
    fast || foreign || !source.copy || (cursor && compareGridVersions(cursor, head) !== 0)
      ? undefined
      : await source.copy(q.profileId, head, after, q.limit + 1);
  const rows = fast || copied ? [] : await source.overrides(q.profileId, head);
  // The grid changed since the cursor: follow a relabel of the cursor's post (cursor-resume.ts).
  const start = foreign
    ? effectiveEntry(rows, cursor.postId)
    : cursor && !fast
      ? resumePosition(cursor, head, rows)
      : after;
  const main =
    fast ??
    copied ??
    (await source.entries(q.profileId, rows, {
      ...(start ? { after: start } : {}),
      limit: q.limit + 1,
      exclude: head.pins,
    }));
  const hasMore = main.length > q.limit;
  const page = main.slice(0, q.limit);
  const pins: GridEntry[] = cursor ? [] : head.pins.map((p) => effectiveEntry(rows, p));
  const entries = [...pins, ...page];

  const bodies = await source.hydrate(
    entries.map((e) => e.postId),
    read.bodies,
  );
  const items = entries.flatMap((e) => {
    const b = bodies.get(e.postId);
    return b ? [b] : [];
  });
  const last = page[page.length - 1];
  const nextCursor =
    hasMore && last
      ? encodeCursor(
          {
            key: last.key,
            postId: last.postId,
            version: head.version,
            generation: head.generation,
            ...(chronological ? { chronological } : {}),
          },
          cursorSecret,
          q.profileId,
        )
      : null;
  const changed = cursor ? foreign || compareGridVersions(cursor, head) !== 0 : false;
  recordPageRead(read, {
    firstPage: !cursor,
    fromCachedOrder: Boolean(fast),
    fromCopy: Boolean(copied),
    changed,
    seconds: (performance.now() - started) / 1000,
  });
  return {
    items,
    entries,
    nextCursor,
    version: head.version,
    generation: head.generation,
    postCount: head.postCount,
    gridChanged: changed,
    chronological,
    fromStateCache: Boolean(fast) && read.cached === true,
  };
}
