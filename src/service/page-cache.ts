/**
 * How the page read (read-page.ts) uses the Redis cache: the sources it would otherwise read from
 * Cassandra, served from the version-keyed entries of src/cache/ when they can be.
 *
 * - head: the profile summary (never below the caller's min_version);
 * - main entries: straight from the cached first-page order when the page lies inside it (the
 *   first page, or a page whose cursor was issued at the current state and still falls within
 *   the cached 48 entries); otherwise the page is merged from Cassandra as usual;
 * - overrides for later pages: the cached list of that state (`ovr:`);
 * - bodies: MGET with Cassandra fallback.
 * Page semantics (pins, cursors, grid_changed) stay in read-page.ts.
 */
import type { FirstOrder } from '../cache/codec.js';
import type { GridCache } from '../cache/grid-cache.js';
import type { MinVersion } from '../domain/grid-version.js';
import type { OverrideCache } from '../cache/override-cache.js';
import type { PostCache } from '../cache/post-cache.js';
import type { GridHead, OverrideRow, PostBody } from '../cache/source.js';
import { compareGridVersions } from '../domain/grid-version.js';
import type { GridVersion } from '../domain/grid-version.js';
import type { GridEntry, GridPosition } from '../domain/merge.js';
import { compareDisplay } from '../domain/merge.js';

export interface PageCache {
  /**
   * The grid head to page at (cached, or read through), never below `minVersion`. On a cache hit
   * the bodies of the pins and the first `prefetch` entries come in the same round trip.
   */
  head(
    profileId: bigint,
    minVersion?: MinVersion,
    prefetch?: number,
  ): Promise<{
    head: GridHead;
    first: FirstOrder;
    bodies: ReadonlyMap<bigint, PostBody> | undefined;
  }>;
  /**
   * The first `n` main entries strictly after `after` (from the top when absent), when the cached
   * first-page order of exactly `state` covers them; otherwise undefined.
   */
  cachedEntries(
    first: FirstOrder,
    state: GridVersion | undefined,
    after: GridPosition | undefined,
    n: number,
  ): GridEntry[] | undefined;
  overrides(profileId: bigint, head: GridHead): Promise<OverrideRow[]>;
  hydrate(
    postIds: readonly bigint[],
    known?: ReadonlyMap<bigint, PostBody>,
  ): Promise<Map<bigint, PostBody>>;
}

export interface ReadCaches {
  readonly grid: GridCache;
  readonly overrides: OverrideCache;
  readonly posts: PostCache;
}

export function createPageCache(caches: ReadCaches): PageCache {
  return {
    async head(profileId, minVersion, prefetch = 0) {
      const first = await caches.grid.readFirstOrder(profileId, {
        prefetchBodies: prefetch,
        ...(minVersion === undefined ? {} : { minVersion }),
      });
      const { generation, version, pins } = first;
      const head = { generation, version, pins, postCount: first.summary.postCount };
      return { head, first, bodies: first.bodies };
    },
    cachedEntries: sliceFirstOrder,
    async overrides(profileId, head) {
      return (await caches.overrides.read(profileId, head)).rows;
    },
    hydrate: (postIds, known) => caches.posts.hydrate(postIds, known),
  };
}

/**
 * Pure: the part of a cached first-page order a page needs, if the order covers it. A cursor
 * page is served only when the cursor was issued at the cached state, where its position needs
 * no re-lookup.
 */
export function sliceFirstOrder(
  first: FirstOrder,
  cursorState: GridVersion | undefined,
  after: GridPosition | undefined,
  n: number,
): GridEntry[] | undefined {
  let rest: readonly GridEntry[] = first.entries;
  if (after) {
    if (!cursorState || compareGridVersions(cursorState, first) !== 0) return undefined;
    const last = first.entries[first.entries.length - 1];
    // The cursor must sit inside the cached prefix, else the rows after it are not cached.
    if (last && compareDisplay(after, last) < 0) return first.complete ? [] : undefined;
    rest = first.entries.filter((e) => compareDisplay(e, after) < 0);
  }
  if (rest.length < n && !first.complete) return undefined;
  return rest.slice(0, n);
}
