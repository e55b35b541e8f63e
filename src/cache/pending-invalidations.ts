/**
 * Invalidations Redis did not confirm, kept until it answers again.
 *
 * A grid write deletes its profile's summary after the commit (grid-cache.ts). When Redis is
 * stalled, slow or the breaker is open, that delete never happens, and the page of an older
 * version would be served again as soon as Redis answers (until its TTL, CACHE_SUMMARY_TTL_S).
 * So the profile is remembered here, and the guard (redis.ts) runs `settle` before it lets any
 * other call of this process through again: per profile, the summary and the lease are deleted
 * (the lease too, so a filler that read the grid before the write cannot publish afterwards).
 * Without this, test/faults/redis-stall.test.ts serves versions older than acknowledged moves.
 *
 * Bounded: at most `maxProfiles` are remembered. Past that the set stops naming profiles and
 * remembers only that it overflowed; `settle` then deletes every summary and lease in Redis
 * (SCAN + UNLINK). Pages survive (they are keyed by state), but each profile's next first page
 * is read from Cassandra, as the summary that finds its page is gone.
 *
 * On a Redis Cluster each profile's two keys share its slot (one command each, redis-batch.ts),
 * and the sweep scans every master. A master that is down fails the repair, which stays owed (the
 * guard keeps this process on Cassandra) until the master, or its promoted replica, answers.
 *
 * An entry is dropped only if it was not owed again while its delete was in flight: a write that
 * commits after the delete ran needs a delete of its own.
 *
 * After a Redis Sentinel failover (`addAll`, redis.ts `onFailover`) the sweep is owed outright:
 * the promoted replica may lack invalidations the old primary acknowledged, and nobody knows
 * which.
 */
import { cacheKeys, SUMMARY_SWEEP_PATTERNS } from './keys.js';
import { scanTargets, unlinkGroups } from './redis-batch.js';
import type { RedisRepair, RepairCall } from './redis.js';

/** Profiles per pipelined round trip when settling. */
const CHUNK = 500;
/** SCAN batch size of a sweep. */
const SCAN_COUNT = 1000;

export interface PendingInvalidationStats {
  /** Profiles remembered right now (plus 1 while an overflow sweep is owed). */
  owed: number;
  /** Invalidations that failed and were remembered (or folded into an overflow). */
  deferred: number;
  /** Profiles whose remembered invalidation has since been applied. */
  repaired: number;
  /** Sweeps of every summary after an overflow. */
  sweeps: number;
}

export interface PendingInvalidations extends RedisRepair {
  add(profileId: bigint): void;
  /** Owes a sweep of every summary: Redis may have lost invalidations nobody knows of (failover). */
  addAll(): void;
  /** Profiles currently remembered. */
  readonly size: number;
  readonly stats: PendingInvalidationStats;
}

export function createPendingInvalidations(maxProfiles: number): PendingInvalidations {
  const owed = new Map<bigint, number>(); // profile → sequence number of its latest failure
  let seq = 0;
  let overflowAt = 0; // sequence number of the latest failure that found the set full; 0 = none
  const stats: PendingInvalidationStats = { owed: 0, deferred: 0, repaired: 0, sweeps: 0 };
  const recount = () => (stats.owed = owed.size + (overflowAt > 0 ? 1 : 0));

  function add(profileId: bigint): void {
    seq += 1;
    stats.deferred += 1;
    if (owed.has(profileId) || owed.size < maxProfiles) owed.set(profileId, seq);
    else overflowAt = seq;
    recount();
  }

  function addAll(): void {
    seq += 1;
    overflowAt = seq;
    recount();
  }

  const pending = () => owed.size > 0 || overflowAt > 0;

  async function sweep(call: RepairCall): Promise<boolean> {
    const targets = await call(async (c) => scanTargets(c));
    if (targets === undefined) return false;
    for (const node of targets) {
      for (const pattern of SUMMARY_SWEEP_PATTERNS) {
        let cursor = '0';
        do {
          const page = await call(() => node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT));
          if (page === undefined) return false;
          const [next, keys] = page;
          // Through the client, not the node: on a cluster it routes each key to its slot.
          const gone =
            keys.length &&
            (await call((c) =>
              unlinkGroups(
                c,
                keys.map((k) => [k]),
              ),
            ));
          if (gone === undefined) return false;
          cursor = next;
        } while (cursor !== '0');
      }
    }
    stats.sweeps += 1;
    return true;
  }

  async function deleteChunk(call: RepairCall, chunk: Array<[bigint, number]>): Promise<boolean> {
    const done = await call((c) =>
      unlinkGroups(
        c,
        chunk.map(([profileId]) => [cacheKeys.summary(profileId), cacheKeys.lease(profileId)]),
      ),
    );
    if (done === undefined) return false;
    for (const [profileId, at] of chunk) {
      if (owed.get(profileId) === at) {
        owed.delete(profileId);
        stats.repaired += 1;
      }
    }
    recount();
    return true;
  }

  async function settle(call: RepairCall): Promise<boolean> {
    if (overflowAt > 0) {
      const at = overflowAt;
      if (!(await sweep(call))) return false;
      if (overflowAt === at) overflowAt = 0;
      recount();
    }
    const snapshot = [...owed];
    for (let i = 0; i < snapshot.length; i += CHUNK) {
      if (!(await deleteChunk(call, snapshot.slice(i, i + CHUNK)))) return false;
    }
    return !pending();
  }

  return {
    add,
    addAll,
    pending,
    settle,
    stats,
    get size() {
      return owed.size;
    },
  };
}
