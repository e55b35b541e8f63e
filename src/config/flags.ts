/**
 * Operational flags and the sampled self-checks (config.ts; service/flags.ts,
 * docs/ops/rollout.md). A decision uses flag values at most 2 × FLAGS_REFRESH_MS old; the cap
 * keeps that under the documented 2 s.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

const share = (def: number) => z.coerce.number().min(0).max(1).default(def);

export const FlagsConfig = {
  FLAGS_SCOPE: z
    .string()
    .min(1)
    .max(64)
    .default('default')
    .describe('the flags partition this process follows (one fleet, or a canary group of its own)'), // prettier-ignore
};

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const FlagsTuning = {
  FLAGS_REFRESH_MS: intFrom(500, 10, 900)
    .describe(
      'operational flags: every process follows a flip within 2 × `FLAGS_REFRESH_MS` (≤ 2 s) ' +
        '([ops/rollout.md](ops/rollout.md))',
    )
    .meta({ why: 'bounded by the documented 2 s; tests shorten it' }),
  SHADOW_READ_SAMPLE: share(0.01)
    .describe(
      'share of first pages of profiles without overrides also read chronologically and ' +
        'compared (`regrid_shadow_reads_total`)',
    )
    .meta({ why: 'a self-check; only tests and a measurement turn it' }),
  CACHE_SAMPLE_RATE: share(0.01)
    .describe(
      'share of first-page cache hits re-read from Cassandra at the same version and compared ' +
        '(`regrid_cache_samples_total`)',
    )
    .meta({ why: 'a self-check; only tests and a measurement turn it' }),
  CACHE_SAMPLE_MAX_PER_S: z.coerce
    .number()
    .min(0)
    .max(10_000)
    .default(5)
    .describe(
      'at most this many of those samples a second per process: a sampled first page skips the ' +
        'rendered tiers and costs a full page read, so a share alone would grow with traffic ' +
        '(0 = none)',
    )
    .meta({ why: 'a self-check; only tests and a measurement turn it' }),
};
