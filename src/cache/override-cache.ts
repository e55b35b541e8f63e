/**
 * Cached override lists for later pages (`ovr:{profile}:g{gen}:v{version}`).
 *
 * A page after the first needs every override of the profile (they can sit anywhere in key
 * order), which for a heavily reordered profile is the largest read of the whole path. The list
 * and the head come from one single-partition query, so the pair is one consistent state and is
 * stored under exactly that state's key; like the order entries it is immutable once written.
 * Values are packed binary (codec.ts), so 10,000 overrides cost ~240 KB and no JSON parse.
 */
import type { GridVersion } from '../domain/grid-version.js';
import { decodeOverrides, encodeOverrides } from './codec.js';
import { cacheKeys } from './keys.js';
import type { RedisGuard } from './redis.js';
import type { GridHead, OverrideRow } from '../domain/grid-head.js';
import type { GridReads } from '../domain/grid-source.js';

export interface OverridesRead {
  readonly head: GridHead;
  readonly rows: readonly OverrideRow[];
  readonly served: 'cache' | 'store';
}

export interface OverrideCache {
  /**
   * The override list of `expected` (a head the caller already holds, e.g. from the summary) when
   * cached; otherwise the current list from Cassandra with the head it was read with, which may
   * be newer than `expected`.
   */
  read(profileId: bigint, expected?: GridHead): Promise<OverridesRead>;
}

export function createOverrideCache(
  guard: RedisGuard,
  source: Pick<GridReads, 'overrides' | 'noteOverrides'>,
  ttlS: number,
): OverrideCache {
  const keyOf = (profileId: bigint, v: GridVersion) =>
    cacheKeys.overrides(profileId, v.generation, v.version);

  async function read(profileId: bigint, expected?: GridHead): Promise<OverridesRead> {
    if (expected) {
      const rows = decodeOverrides(await guard.run((c) => c.getBuffer(keyOf(profileId, expected))));
      if (rows) {
        source.noteOverrides?.(profileId, rows.length); // the store learns large profiles
        return { head: expected, rows, served: 'cache' };
      }
    }
    const { head, rows } = await source.overrides(profileId);
    void guard.run((c) => c.set(keyOf(profileId, head), encodeOverrides(rows), 'EX', ttlS));
    return { head, rows, served: 'store' };
  }

  return { read };
}
