/**
 * The change stream's settings (config.ts; docs/integration.md "Change stream"): the change log
 * every version writes in its conditional batch, and its publication to Redis Streams.
 */
import { z } from 'zod';

const intFrom = (def: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(def);

export const ChangesConfig = {
  /**
   * Versions of each grid the change log keeps (its slots; at least WRITE_GROUP_MAX_WRITES are
   * used). The catch-up route answers 410 for an `after_version` older than that.
   */
  CHANGE_LOG_VERSIONS: intFrom(64, 8, 1024),
  /** Publish every version to Redis Streams ('off' only to measure its cost; no Redis = off). */
  CHANGES_STREAM: z.enum(['on', 'off']).default('on'),
  /** Shard streams: a profile's events go to `<prefix>changes:{profile_id mod shards}`. */
  CHANGES_STREAM_SHARDS: intFrom(16, 1, 1024),
  /** Approximate bound of each shard stream (XADD … MAXLEN ~). */
  CHANGES_STREAM_MAXLEN: intFrom(100_000, 100, 100_000_000),
  /** Prefix of the stream keys (the contract's `<cache key prefix>`). */
  CHANGES_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_:.-]*$/)
    .default('regrid:'),
  /**
   * Longest a write waits for its mark (the crash record, set before its compare-and-set); past
   * that it goes ahead and this process owes the grid a roll-forward.
   */
  CHANGES_MARK_WAIT_MS: intFrom(25, 1, 10_000),
  /** How often the sweeper looks for versions a crashed writer left unpublished; 0 = no timer. */
  CHANGES_SWEEP_INTERVAL_MS: intFrom(2000, 0, 600_000),
  /** A writer's mark older than this is taken as a crash: the sweeper rolls its grid forward. */
  CHANGES_SWEEP_AGE_MS: intFrom(5000, 0, 600_000),
};
