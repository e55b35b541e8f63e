/**
 * Operational flags (config.ts; service/flags.ts,
 * docs/ops/rollout.md). A decision uses flag values at most 2 × FLAGS_REFRESH_MS old; the cap
 * keeps that under the documented 2 s.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

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
};
