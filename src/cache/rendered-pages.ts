/**
 * Rendered first pages: the response body of a grid's first page for one grid state, in the form
 * the response needs (JSON text plus its strong ETag), so a hit costs one Redis round trip and no
 * decoding of orders or bodies, or nothing at all from the process-local tier.
 *
 * Why a state's rendering is immutable: the body holds pins, entries, post views, the version and
 * the post count; every change to any of them (a move, a pin, a new, archived, deleted or taken
 * down post) is a grid write that advances the version (design §3.3), and post views have no
 * field that changes without one. So `page:{p}:g{gen}:v{ver}:l{limit}` is written once and never
 * answers for another state, exactly like the order entry it sits beside.
 *
 * Tiers, read in this order by `read` (the grid route through service/read/rendered-read.ts):
 * - Redis: one script call reads the summary and the rendering of the state it names. The summary
 *   is what the order cache already keeps fresh (deleted on every write), so this tier is as
 *   fresh as the order hit path, and a summary below the caller's min_version is never used.
 * - Process-local (bounded by bytes, roughly least recently used out: local-pages.ts): the last
 *   rendering this process saw per (profile, limit), trusted for `localTtlMs` after it was read
 *   or rendered. This is the one bounded staleness the tier adds: another process's write
 *   becomes visible here at most `localTtlMs` after Redis lost the old summary (design §6.3
 *   allows others a few seconds). This process's own writes drop the profile's local entries at
 *   commit (`forget`), a min_version the entry does not meet skips it, and `localTtlMs` = 0 turns
 *   the tier off.
 * Redis failures are never errors: the caller renders from the page read instead.
 */
import { compareGridVersions, meetsMin } from '../domain/grid-version.js';
import type { GridVersion, MinVersion } from '../domain/grid-version.js';
import { decodeSummary } from './codec.js';
import { createLocalPages } from './local-pages.js';
import { cacheKeys, renderedSuffix } from './keys.js';
import type { RedisGuard } from './redis.js';
import { withCacheCommands } from './scripts.js';

export interface RenderedPage {
  readonly generation: bigint;
  readonly version: bigint;
  /** The JSON response body. */
  readonly body: string;
  /** Strong validator of `body` (quoted, as sent in the ETag header). */
  readonly etag: string;
}

export interface RenderedPageSettings {
  readonly ttlS: number;
  /** Names the secret the pages' cursors are signed with (see keys.ts `rendered`). */
  readonly cursorKeyId: string;
  readonly localTtlMs: number;
  readonly localMaxBytes: number;
  readonly now?: () => number;
}

export interface RenderedPagesStats {
  localHits: number;
  redisHits: number;
  misses: number;
}

export interface RenderedPages {
  /**
   * The first page of the profile's current state (never below `min`): the rendering held here
   * for (profile, limit) if still trusted, else the Redis tier's (then kept here too), or
   * undefined.
   */
  read(profileId: bigint, limit: number, min?: MinVersion): Promise<RenderedPage | undefined>;
  /** Keeps a rendering of the state it was read at (both tiers; Redis not awaited). */
  remember(profileId: bigint, limit: number, page: RenderedPage): void;
  /**
   * This process committed `committed` on the grid: its local renderings are no longer current,
   * and none below that state is kept again (a read that started before the write may finish
   * after it).
   */
  forget(profileId: bigint, committed: GridVersion): void;
  readonly stats: RenderedPagesStats;
}

const FLOORS_MAX = 100_000;

/** Value layout in Redis: the ETag, a newline, the body (ETags hold no newline). */
const pack = (p: RenderedPage) => `${p.etag}\n${p.body}`;

export function createRenderedPages(
  guard: RedisGuard,
  settings: RenderedPageSettings,
): RenderedPages {
  withCacheCommands(guard.client);
  const now = settings.now ?? Date.now;
  const local = createLocalPages<RenderedPage>(settings.localMaxBytes);
  // Newest state this process committed per profile; bounded: cleared when it grows past the
  // cap (then a late read could keep an older rendering, for localTtlMs at most).
  const floors = new Map<bigint, GridVersion>();
  const stats: RenderedPagesStats = { localHits: 0, redisHits: 0, misses: 0 };

  function keep(profileId: bigint, limit: number, page: RenderedPage): void {
    if (settings.localTtlMs <= 0) return;
    const floor = floors.get(profileId);
    if (floor && compareGridVersions(page, floor) < 0) return;
    local.put(profileId, limit, page, now() + settings.localTtlMs);
  }

  async function fromRedis(profileId: bigint, limit: number, min?: MinVersion) {
    const reply = await guard.run((c) =>
      withCacheCommands(c).regridReadPage(
        cacheKeys.summary(profileId),
        renderedSuffix(limit, settings.cursorKeyId),
      ),
    );
    const summary = decodeSummary(reply?.[0]);
    const packed = reply?.[1];
    if (!summary || !packed || !meetsMin(summary, min)) return undefined;
    const cut = packed.indexOf('\n');
    if (cut < 0) return undefined;
    return {
      generation: summary.generation,
      version: summary.version,
      etag: packed.slice(0, cut),
      body: packed.slice(cut + 1),
    };
  }

  return {
    stats,
    async read(profileId, limit, min) {
      const entry = local.get(profileId, limit);
      if (entry && entry.until > now() && meetsMin(entry.page, min)) {
        stats.localHits += 1;
        return entry.page;
      }
      const page = await fromRedis(profileId, limit, min);
      if (!page) {
        stats.misses += 1;
        return undefined;
      }
      stats.redisHits += 1;
      keep(profileId, limit, page);
      return page;
    },
    remember(profileId, limit, page) {
      keep(profileId, limit, page);
      const suffix = renderedSuffix(limit, settings.cursorKeyId);
      const key = cacheKeys.rendered(profileId, page.generation, page.version, suffix);
      void guard.run((c) => c.set(key, pack(page), 'EX', settings.ttlS));
    },
    forget(profileId, committed) {
      if (settings.localTtlMs <= 0) return;
      if (floors.size >= FLOORS_MAX) floors.clear();
      const floor = floors.get(profileId);
      if (!floor || compareGridVersions(committed, floor) > 0) floors.set(profileId, committed);
      local.drop(profileId);
    },
  };
}
