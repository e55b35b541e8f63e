/**
 * The change stream's settings (config.ts; docs/integration.md "Change stream"): the change log
 * every version writes in its conditional batch, and its publication to Redis Streams.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

export const ChangesConfig = {
  CHANGE_LOG_VERSIONS: intFrom(64, 8, 1024).describe(
    'versions of each grid the change log keeps (its slots; at least `WRITE_GROUP_MAX_WRITES` ' +
      'are used); the catch-up route answers 410 for an `after_version` older than that',
  ),
  CHANGES_STREAM: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      "publish every version to Redis Streams ('off' only to measure its cost; no Redis = off)",
    ),
  CHANGES_STREAM_SHARDS: intFrom(16, 1, 1024).describe(
    "shard streams: a profile's events go to `<prefix>changes:{profile_id mod shards}`",
  ),
  CHANGES_STREAM_MAXLEN: intFrom(100_000, 100, 100_000_000).describe(
    'approximate bound of each shard stream (`XADD … MAXLEN ~`)',
  ),
  CHANGES_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_:.-]*$/)
    .default('regrid:')
    .describe("prefix of the stream keys (the contract's `<cache key prefix>`)"),
  CHANGES_MARK_WAIT_MS: intFrom(25, 1, 10_000).describe(
    'longest a write waits for its mark (the crash record, set before its compare-and-set); ' +
      'past that it goes ahead and this process owes the grid a roll-forward',
  ),
  CHANGES_SWEEP_INTERVAL_MS: intFrom(2000, 0, 600_000).describe(
    'how often the sweeper looks for versions a crashed writer left unpublished (0 = no timer)',
  ),
  CHANGES_SWEEP_AGE_MS: intFrom(5000, 0, 600_000).describe(
    "a writer's mark older than this is taken as a crash: the sweeper rolls its grid forward",
  ),
};
