/**
 * The change stream's settings (config.ts; docs/integration.md "Change stream"): the change log
 * every version writes in its conditional batch, and its publication to Redis Streams.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const ChangesTuning = {
  CHANGE_LOG_VERSIONS: intFrom(64, 8, 1024)
    .describe(
      'versions of each grid the change log keeps (its slots; at least `WRITE_GROUP_MAX_WRITES` ' +
        'are used); the catch-up route answers 410 for an `after_version` older than that',
    )
    .meta({ why: 'the catch-up window of the contract; tests lower it to reach the 410 path' }),
  CHANGES_STREAM: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      "publish every version to Redis Streams ('off' only to measure its cost; no Redis = off)",
    )
    .meta({ why: "the stream's cost; only a measurement turns it off" }),
  CHANGES_STREAM_SHARDS: intFrom(16, 1, 1024)
    .describe("shard streams: a profile's events go to `<prefix>changes:{profile_id mod shards}`")
    .meta({ why: "part of the stream's contract; tests lower it" }),
  CHANGES_STREAM_MAXLEN: intFrom(100_000, 100, 100_000_000)
    .describe('approximate bound of each shard stream (`XADD … MAXLEN ~`)')
    .meta({ why: 'a memory bound of the stream' }),
  CHANGES_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_:.-]*$/)
    .default('regrid:')
    .describe("prefix of the stream keys (the contract's `<cache key prefix>`)")
    .meta({
      why: "part of the stream's contract (the cache keys have no prefix: one Redis database per deployment); tests isolate themselves with it",
    }),
  CHANGES_MARK_WAIT_MS: intFrom(25, 1, 10_000)
    .describe(
      'longest a write waits for its mark (the crash record, set before its compare-and-set); ' +
        'past that it goes ahead and this process owes the grid a roll-forward',
    )
    .meta({ why: "the pre-commit mark's bound; tests and a measurement turn it" }),
  CHANGES_SWEEP_INTERVAL_MS: intFrom(2000, 0, 600_000)
    .describe(
      'how often the sweeper looks for versions a crashed writer left unpublished (0 = no timer)',
    )
    .meta({ why: 'a sweeper detail; tests shorten it' }),
  CHANGES_SWEEP_AGE_MS: intFrom(5000, 0, 600_000)
    .describe(
      "a writer's mark older than this is taken as a crash: the sweeper rolls its grid forward",
    )
    .meta({ why: 'a sweeper detail; tests shorten it' }),
};
