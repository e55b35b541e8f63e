/**
 * Grid writes (config.ts; src/service/write-line/, docs/write-paths.md): post IDs, the
 * compare-and-set, the write line's queue and group commit, relabelling, the move rate
 * limit and idempotency keys.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

export const WritesConfig = {
  MOVE_RATE_LIMIT: intFrom(120, 1).describe('moves per profile per sliding window (429 above)'),
};

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const WritesTuning = {
  WORKER_ID: z.coerce
    .number()
    .int()
    .min(0)
    .max(8191)
    .optional()
    .meta({
      description: '13-bit ID worker number; unset = leased from Cassandra (LWT + TTL)',
      unset: 'leased',
    })
    .meta({ why: 'leased by every process; tests pin one' }),
  CAS_MAX_ATTEMPTS: intFrom(8, 1, 100)
    .describe('compare-and-set attempts before 503 + `Retry-After`')
    .meta({ why: 'a retry bound of the write line; tests and benchmarks turn it' }),
  WRITE_QUEUE_MAX_WAIT_MS: intFrom(2000, 0, 60_000)
    .describe(
      'writes to one grid from one process take turns instead of racing for the compare-and-set; ' +
        'a write that waits longer answers 503 `contention` (0 = no queue)',
    )
    .meta({ why: 'a write-line detail; tests and benchmarks turn it' }),
  WRITE_GROUP_MAX_WRITES: intFrom(32, 1, 256)
    .describe(
      'group commit: queued writes to one grid are planned one after another on one snapshot and ' +
        'committed in one conditional batch, at most this many writes; `1` turns grouping off ' +
        '([write-paths.md](write-paths.md#group-commit))',
    )
    .meta({ why: 'group commit; only tests and a measurement switch it (1)' }),
  WRITE_GROUP_MAX_ROWS: intFrom(200, 1, 1000)
    .describe(
      'group commit: at most this many distinct upserted rows per batch (a first write over it ' +
        'still commits, alone)',
    )
    .meta({ why: 'group commit bound' }),
  WRITE_GROUP_MAX_BYTES: intFrom(16 * 1024, 1024, 40 * 1024)
    .describe(
      "group commit: at most about this many bytes per batch (max 40 KiB, under Cassandra's " +
        '50 KiB `batch_size_fail_threshold`)',
    )
    .meta({ why: "group commit bound, under Cassandra's batch limit" }),
  MOVE_ROW_CAP: intFrom(256, 2, 4096)
    .describe(
      "rows one move's write may carry; a larger relabel is paid off first, one capped " +
        'compare-and-set at a time (docs/key-engine.md)',
    )
    .meta({ why: 'a write-size bound of the key engine; tests lower it' }),
  MOVE_RATE_WINDOW_S: intFrom(60, 1)
    .describe('that sliding window')
    .meta({ why: 'the limit is per minute; tests shorten the window' }),
  IDEMPOTENCY_TTL_S: intFrom(24 * 3600, 60)
    .describe('how long `Idempotency-Key`s are kept')
    .meta({ why: 'the API promises a day; tests shorten it' }),
  IDEMPOTENCY_LEASE_MS: intFrom(30_000, 1)
    .describe(
      'how long an in-flight `Idempotency-Key` blocks duplicates (409) before a retry may take over',
    )
    .meta({ why: 'a retry detail; tests shorten it' }),
};
