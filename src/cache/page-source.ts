/**
 * The Redis cache as a decorator of the page read's one port (`PageSource`, domain/grid-source.ts):
 * what the page read would otherwise read from Cassandra, served from the version-keyed entries
 * of this folder when they can be.
 *
 * - head: the profile summary (never below the caller's min_version), with the cached first-page
 *   order of that state and, on a hit, the bodies of its first entries in the same round trip;
 * - overrides for later pages: the cached list of that state (`ovr:`), else the store's with
 *   the head it was read with;
 * - entries and the head read after them (`current`): from the store (a page the cached order
 *   does not cover);
 * - bodies: MGET with Cassandra fallback.
 * Page semantics (pins, cursors, grid_changed) stay in service/read-page.ts.
 */
import type { GridEntry } from '../domain/merge.js';
import type { PageSource } from '../domain/grid-source.js';
import type { GridCache } from './grid-cache.js';
import type { OverrideCache } from './override-cache.js';
import type { PostCache } from './post-cache.js';

export interface ReadCaches {
  readonly grid: GridCache;
  readonly overrides: OverrideCache;
  readonly posts: PostCache;
}

export function cachedPageSource(caches: ReadCaches, store: PageSource): PageSource {
  return {
    async head(profileId, minVersion, prefetch = 0) {
      const first = await caches.grid.readFirstOrder(profileId, {
        prefetchBodies: prefetch,
        ...(minVersion === undefined ? {} : { minVersion }),
      });
      const { generation, version, pins } = first;
      const { postCount, membershipVersion } = first.summary;
      const head = { generation, version, pins, postCount, membershipVersion };
      // 'previous' is also Redis's answer (the state before the last change); fills and direct
      // reads went to Cassandra.
      const cache = first.served === 'cache' || first.served === 'previous' ? 'hit' : 'miss';
      const cached = first.served === 'cache';
      // The first entries read from Cassandra were overtaken by a membership change: a first
      // page reads again; a later page (no prefetch) needs only the head, a state as real as any.
      if (first.moved) return prefetch > 0 ? { head, cache, moved: first.moved } : { head, cache };
      return { head, order: first, bodies: first.bodies, cache, cached };
    },
    overrides: (profileId, head) => caches.overrides.read(profileId, head),
    current: (profileId) => store.current(profileId),
    entries: (profileId, overrides: readonly GridEntry[], query) =>
      store.entries(profileId, overrides, query),
    copy: store.copy,
    hydrate: (postIds, known) => caches.posts.hydrate(postIds, known),
  };
}
