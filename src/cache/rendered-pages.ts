/**
 * Rendered first pages in Redis: the response body of a grid's first page for one grid state, in
 * the form the response needs (JSON text plus its strong ETag), so a hit costs one Redis round
 * trip and no decoding of orders or bodies.
 *
 * Why a state's rendering is immutable: the body holds pins, entries, post views, the version and
 * the post count; every change to any of them (a move, a pin, a new, archived, deleted or taken
 * down post) is a grid write that advances the version (design §3.3), and post views have no
 * field that changes without one. So `page:{p}:g{gen}:v{ver}:l{limit}` is written once and never
 * answers for another state, exactly like the order entry it sits beside.
 *
 * One script call reads the summary and the rendering of the state it names. The summary is what
 * the order cache already keeps fresh (deleted on every write), so this is as fresh as the order
 * hit path, and a summary below the caller's min_version is never used. Redis failures are never
 * errors: the caller renders from the page read instead (service/read/rendered-read.ts).
 */
import { meetsMin, type MinVersion } from '../domain/grid-version.js';
import { decodeSummary } from './codec.js';
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
}

export interface RenderedPagesStats {
  redisHits: number;
  misses: number;
}

export interface RenderedPages {
  /** The first page of the profile's current state (never below `min`), or undefined. */
  read(profileId: bigint, limit: number, min?: MinVersion): Promise<RenderedPage | undefined>;
  /** Keeps a rendering of the state it was read at (not awaited). */
  remember(profileId: bigint, limit: number, page: RenderedPage): void;
  readonly stats: RenderedPagesStats;
}

/** Value layout in Redis: the ETag, a newline, the body (ETags hold no newline). */
const pack = (p: RenderedPage) => `${p.etag}\n${p.body}`;

export function createRenderedPages(
  guard: RedisGuard,
  settings: RenderedPageSettings,
): RenderedPages {
  withCacheCommands(guard.client);
  const stats: RenderedPagesStats = { redisHits: 0, misses: 0 };

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
      const page = await fromRedis(profileId, limit, min);
      if (!page) {
        stats.misses += 1;
        return undefined;
      }
      stats.redisHits += 1;
      return page;
    },
    remember(profileId, limit, page) {
      const suffix = renderedSuffix(limit, settings.cursorKeyId);
      const key = cacheKeys.rendered(profileId, page.generation, page.version, suffix);
      void guard.run((c) => c.set(key, pack(page), 'EX', settings.ttlS));
    },
  };
}
