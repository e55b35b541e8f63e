/**
 * The read cache (config.ts; src/cache/, docs/cache.md): entry lifetimes, fill leases, rendered
 * first pages, the writer's pre-fill and the reordered copies.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const CacheTuning = {
  CACHE_ORDER_TTL_S: intFrom(3600, 1).describe('lifetime of a cached order entry').meta({
    why: 'a cache lifetime; entries are version-keyed, so it bounds memory, not staleness',
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
  CACHE_LEASE_WAIT_MS: intFrom(300, 0)
    .describe("how long a reader waits for another's fill")
    .meta({ why: 'a fill-lease detail; tests shorten it' }),
  CACHE_RENDERED_PAGES: z
    .stringbool()
    .default(true)
    .describe('rendered first pages in Redis; `false` serves hits from the cached order')
    .meta({ why: 'rendered pages; only a measurement turns them off' }),
  CACHE_REFILL_DEBOUNCE_MS: intFrom(50, 0, 10_000)
    .describe(
      "after a commit the writer pre-fills the new state's order entry in the background once " +
        "the profile's commits pause this long (a burst of moves refills once; 0 = after every " +
        'commit)…',
    )
    .meta({ why: 'write refill; only a measurement switches it' }),
  CACHE_REFILL_MAX_DELAY_MS: intFrom(500, 0, 60_000)
    .describe('…and at the latest this long after the first commit it waits for')
    .meta({ why: 'write refill; only a measurement switches it' }),
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
