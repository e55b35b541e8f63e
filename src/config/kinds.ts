/**
 * The value kinds the configuration files (src/config/*.ts) share. A setting's text for
 * docs/configuration.md is its `.describe()`; `.meta({ unset })` says what an optional setting
 * means when it is not set, `.meta({ allowed })` what a parsed (transformed) value may be
 * (tools/config-docs/ renders both).
 */
import { z } from 'zod';

/** An integer from the environment, `min..max`, `def` when unset. */
export const intFrom = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);

/** `a,b , c` → ['a', 'b', 'c']; unset → the list `def` (default: none). */
export const csv = (def = '') =>
  z
    .string()
    .default(def)
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .meta({ allowed: 'comma-separated list' });
