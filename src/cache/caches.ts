/**
 * Builds every Redis-backed piece the service uses from one guard: the page cache (rendered
 * first pages and the summary that finds them), the post-body cache and the move rate limiter.
 */
import type { Config } from '../config/config.js';
import { createGridCache } from './grid-cache.js';
import type { GridCache, GridCacheSettings } from './grid-cache.js';
import { createPostCache } from './post-cache.js';
import type { PostCache } from './post-cache.js';
import { createMoveRateLimiter } from './rate-limit.js';
import type { MoveRateLimiter } from './rate-limit.js';
import type { RedisGuard } from './redis.js';
import type { GridReads } from '../domain/grid-source.js';

/** `Scope`: the statement scope the post cache hands to its source (post-cache.ts). */
export interface ServiceCaches<Scope = never> {
  readonly guard: RedisGuard;
  readonly grid: GridCache;
  readonly posts: PostCache<Scope>;
  readonly moveRate: MoveRateLimiter;
}

/** `cursorKeyId` names the cursor secret (cached pages embed signed cursors). */
export const gridCacheSettingsOf = (config: Config, cursorKeyId: string): GridCacheSettings => ({
  pageTtlS: config.CACHE_PAGE_TTL_S,
  summaryTtlS: config.CACHE_SUMMARY_TTL_S,
  leaseMs: config.CACHE_LEASE_MS,
  repairMaxProfiles: config.CACHE_REPAIR_MAX_PROFILES,
  cursorKeyId,
});

export function createServiceCaches<Scope = never>(
  config: Config,
  guard: RedisGuard,
  /** Where post bodies come from on a miss. */
  source: Pick<GridReads<Scope>, 'hydrate'>,
  cursorKeyId: string,
  /** Test seams (race hooks); production passes nothing. */
  tuning: Partial<GridCacheSettings> = {},
): ServiceCaches<Scope> {
  return {
    guard,
    grid: createGridCache(guard, { ...gridCacheSettingsOf(config, cursorKeyId), ...tuning }),
    posts: createPostCache(guard, source, config.CACHE_POST_TTL_S),
    moveRate: createMoveRateLimiter(guard, {
      limit: config.MOVE_RATE_LIMIT,
      windowS: config.MOVE_RATE_WINDOW_S,
    }),
  };
}
