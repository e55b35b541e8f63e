/**
 * Builds every Redis-backed piece the service uses from one guard and the Cassandra read port:
 * the first-page cache, the override-list cache, the post-body cache, the rendered first pages
 * and the move rate limiter.
 */
import type { Config } from '../config/config.js';
import { createGridCache } from './grid-cache.js';
import type { GridCache, GridCacheSettings } from './grid-cache.js';
import type { OverrideCache } from './override-cache.js';
import { createPostCache } from './post-cache.js';
import type { PostCache } from './post-cache.js';
import { createMoveRateLimiter } from './rate-limit.js';
import type { MoveRateLimiter } from './rate-limit.js';
import type { RedisGuard } from './redis.js';
import { createRenderedPages, type RenderedPages } from './rendered-pages.js';
import type { SettledSource } from '../domain/grid-source.js';

export interface ServiceCaches {
  readonly guard: RedisGuard;
  readonly grid: GridCache;
  readonly overrides: OverrideCache;
  readonly posts: PostCache;
  readonly moveRate: MoveRateLimiter;
  /** Unset when CACHE_RENDERED_PAGES is off: hits are then rendered from the cached order. */
  readonly rendered: RenderedPages | undefined;
}

export const gridCacheSettingsOf = (config: Config): GridCacheSettings => ({
  orderTtlS: config.CACHE_ORDER_TTL_S,
  summaryTtlS: config.CACHE_SUMMARY_TTL_S,
  leaseMs: config.CACHE_LEASE_MS,
  leaseWaitMs: config.CACHE_LEASE_WAIT_MS,
  repairMaxProfiles: config.CACHE_REPAIR_MAX_PROFILES,
  refillDebounceMs: config.CACHE_REFILL_DEBOUNCE_MS,
  refillMaxDelayMs: config.CACHE_REFILL_MAX_DELAY_MS,
});

export function createServiceCaches(
  config: Config,
  guard: RedisGuard,
  /** The store's reads with the settled read over `overrides` (service/read/settled-read.ts). */
  source: SettledSource,
  overrides: OverrideCache,
  /** Test and benchmark seams (race hooks); production passes nothing. */
  tuning: Partial<GridCacheSettings> = {},
  /** Names the cursor secret (rendered pages embed signed cursors). */
  cursorKeyId = 'default',
): ServiceCaches {
  return {
    guard,
    grid: createGridCache(guard, source, { ...gridCacheSettingsOf(config), ...tuning }),
    overrides,
    posts: createPostCache(guard, source, config.CACHE_POST_TTL_S),
    moveRate: createMoveRateLimiter(guard, {
      limit: config.MOVE_RATE_LIMIT,
      windowS: config.MOVE_RATE_WINDOW_S,
      ...(config.MOVE_RATE_CREDIT_MAX ? { maxCredit: config.MOVE_RATE_CREDIT_MAX } : {}),
    }),
    rendered: config.CACHE_RENDERED_PAGES
      ? createRenderedPages(guard, {
          ttlS: config.CACHE_ORDER_TTL_S,
          cursorKeyId,
        })
      : undefined,
  };
}
