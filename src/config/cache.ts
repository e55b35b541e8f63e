/**
 * The read cache (config.ts; src/cache/, docs/cache.md): entry lifetimes, fill leases, the
 * process-local tier of rendered first pages, the writer's pre-fill and the reordered copies.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

export const CacheConfig = {
  CACHE_ORDER_TTL_S: intFrom(3600, 1).describe('lifetime of a cached order entry'),
  CACHE_SUMMARY_TTL_S: intFrom(60, 1).describe('lifetime of a cached grid summary'),
  CACHE_POST_TTL_S: intFrom(6 * 3600, 1).describe('lifetime of a cached post body'),
  CACHE_LEASE_MS: intFrom(2000, 10).describe('how long a fill lease holds'),
  CACHE_LEASE_WAIT_MS: intFrom(300, 0).describe("how long a reader waits for another's fill"),
  CACHE_LEASES: z
    .stringbool()
    .default(true)
    .describe(
      'memcache-style fill leases; `false` only to measure the thundering herd without them',
    ),
  CACHE_LOCAL_TTL_MS: intFrom(1000, 0, 10_000).describe(
    'how long this process trusts a rendered first page it holds without asking Redis: the ' +
      'bound on how late another process\'s write shows here (docs/cache.md "Tiers"); 0 = no ' +
      'local tier',
  ),
  CACHE_LOCAL_MAX_BYTES: intFrom(64 * 1024 * 1024, 0).describe(
    'memory of the process-local tier of rendered first pages',
  ),
  CACHE_RENDERED_PAGES: z
    .stringbool()
    .default(true)
    .describe('rendered first pages (Redis + local tier); `false` serves hits from the cached order'), // prettier-ignore
  CACHE_REFILL_DEBOUNCE_MS: intFrom(50, 0, 10_000).describe(
    "after a commit the writer pre-fills the new state's order entry in the background once " +
      "the profile's commits pause this long (a burst of moves refills once; 0 = after every " +
      'commit)…',
  ),
  CACHE_REFILL_MAX_DELAY_MS: intFrom(500, 0, 60_000).describe(
    '…and at the latest this long after the first commit it waits for',
  ),
  COPY_MIN_OVERRIDES: intFrom(1000, 0).describe(
    'profiles with at least this many overrides get reordered copies (docs/cache.md "Copies ' +
      'for many overrides"); 0 = never',
  ),
  COPY_DEBOUNCE_MS: intFrom(500, 0, 60_000).describe(
    'a burst of writes to such a profile is copied this long after its last write…',
  ),
  COPY_MAX_DELAY_MS: intFrom(5000, 0, 600_000).describe('…and at the latest this long after its first'), // prettier-ignore
};
