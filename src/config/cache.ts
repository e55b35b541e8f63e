/**
 * The read cache (config.ts; src/cache/, docs/cache.md): entry lifetimes, the fill lease and the
 * reordered copies.
 */
import { intFrom } from './kinds.js';

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const CacheTuning = {
  CACHE_PAGE_TTL_S: intFrom(3600, 1).describe('lifetime of a cached rendered page').meta({
    why: 'a cache lifetime; pages are version-keyed, so it bounds memory, not staleness',
  }),
  CACHE_SUMMARY_TTL_S: intFrom(60, 1)
    .describe('lifetime of a cached grid summary')
    .meta({ why: 'a cache lifetime; tests shorten it' }),
  CACHE_POST_TTL_S: intFrom(6 * 3600, 1)
    .describe('lifetime of a cached post body')
    .meta({
      why: 'a cache lifetime; entries are version-keyed, so it bounds memory, not staleness',
    }),
  CACHE_LEASE_MS: intFrom(2000, 10)
    .describe('how long a fill lease holds')
    .meta({ why: 'a fill-lease detail; tests shorten it' }),
  COPY_MIN_OVERRIDES: intFrom(1000, 0)
    .describe(
      'profiles with at least this many overrides get reordered copies (docs/cache.md "Copies ' +
        'for many overrides"); 0 = never',
    )
    .meta({ why: 'the reordered display copy; only tests and a measurement switch it (0)' }),
  COPY_DEBOUNCE_MS: intFrom(500, 0, 60_000)
    .describe('a burst of writes to such a profile is copied this long after its last write…')
    .meta({ why: 'the reordered display copy; tests shorten it' }),
  COPY_MAX_DELAY_MS: intFrom(5000, 0, 600_000)
    .describe('…and at the latest this long after its first')
    .meta({ why: 'the reordered display copy; tests shorten it' }),
};
