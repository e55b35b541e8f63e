/**
 * Read-through cache of a grid's first page(s), keyed by grid state (design article §6.2–6.3),
 * and the page read's head with Redis (`pageHead`, GridReads.head in domain/grid-source.ts; the
 * rest of that port is wired in service/wiring.ts). Entries (keys.ts): a profile summary read
 * first, and per grid state the pins plus the first 48 entries, written only under the state
 * its override list was read with and only when its rows showed exactly that state's posts
 * (service/read/settled-read.ts `readSettled`; order-reader.ts `readThrough`: the one read from
 * Cassandra, for a fill, a min_version above the summary and a direct read).
 *
 * Miss: memcache-style lease on the profile. The holder fills; others poll briefly (bounded by
 * CACHE_LEASE_WAIT_MS), then serve the state before the last change if it meets their
 * min_version, else read Cassandra. An invalidation deletes the summary and the lease, so a
 * filler that read before the write may not publish (stale-set protection, scripts.ts).
 * Redis failures are never errors: every path has a Cassandra fallback (served: 'direct'), and
 * an unconfirmed invalidation is repaired before the next read through Redis
 * (pending-invalidations.ts). Read-your-writes and the rest: docs/cache.md.
 */
import { randomBytes } from 'node:crypto';
import { meetsMin, sameGridState as sameState, type MinVersion } from '../domain/grid-version.js';
import { decodeOrder, decodePost, decodeSummary } from './codec.js';
import type { Summary } from './codec.js';
import type { FirstOrderRead, GridCache, GridCacheSettings } from './grid-cache-types.js';
import type { ReadFirstOptions } from './grid-cache-types.js';
import { exportedStats } from './cache-metrics.js';
import { cacheKeys, POST_KEY_PREFIX } from './keys.js';
import { cacheLeaseWaitSeconds } from '../obs/metrics.js';
import { createOrderReader } from './order-reader.js';
import { createPendingInvalidations } from './pending-invalidations.js';
import { createWriteSide } from './write-side.js';
import type { RedisGuard } from './redis.js';
import { withCacheCommands } from './scripts.js';
import type { GridReads, SettledSource } from '../domain/grid-source.js';
import type { Post as PostBody } from '../domain/post.js';

export type * from './grid-cache-types.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createGridCache(
  guard: RedisGuard,
  /** The store's reads and the settled read over the override-list cache (service/wiring.ts). */
  source: SettledSource,
  settings: GridCacheSettings,
): GridCache {
  withCacheCommands(guard.client);
  const pollMs = settings.pollMs ?? 10;
  const stats = exportedStats();
  const reader = createOrderReader(guard, source, settings, stats);
  const { read, readThrough } = reader;
  const direct = (profileId: bigint, min?: MinVersion) =>
    readThrough(profileId, min, { kind: 'direct' });
  const below = (profileId: bigint, stale: Summary, min?: MinVersion) =>
    readThrough(profileId, min, { kind: 'below', stale });
  const pending = createPendingInvalidations(settings.repairMaxProfiles ?? 10_000);
  const owe = guard.addRepair(pending);
  guard.onFailover(() => {
    pending.addAll();
    owe();
  });

  type Lookup =
    | { kind: 'down' }
    | { kind: 'miss' }
    | { kind: 'hit'; read: FirstOrderRead }
    | { kind: 'below'; summary: Summary };

  /**
   * The summary under `key`, the order it names and (`prefetch` > 0) the bodies of the pins and
   * first entries, in one round trip; `below` = under the caller's floor.
   */
  async function lookup(
    profileId: bigint,
    min?: MinVersion,
    key = cacheKeys.summary(profileId),
    prefetch = 0,
  ): Promise<Lookup> {
    const reply = await guard.run((c) =>
      withCacheCommands(c).regridReadFirst(key, prefetch, POST_KEY_PREFIX),
    );
    if (reply === undefined) return { kind: 'down' };
    const summary = decodeSummary(reply[0]);
    if (!summary) return { kind: 'miss' };
    if (!meetsMin(summary, min)) return { kind: 'below', summary };
    const order = decodeOrder(reply[1]);
    if (!order || !sameState(order, summary)) return { kind: 'miss' };
    if (reply.length <= 2) return { kind: 'hit', read: read(order, summary, 'cache') };
    const ids = [...order.pins, ...order.entries.slice(0, prefetch).map((e) => e.postId)];
    const bodies = new Map<bigint, PostBody>();
    ids.forEach((id, i) => {
      const body = decodePost(reply[2 + i]);
      if (body && body.postId === id) bodies.set(id, body);
    });
    return { kind: 'hit', read: { ...read(order, summary, 'cache'), bodies } };
  }

  async function readFirstOrder(
    profileId: bigint,
    opts: ReadFirstOptions = {},
  ): Promise<FirstOrderRead> {
    const min = opts.minVersion;
    // On a Redis Cluster the bodies live in other slots, out of the script's reach (scripts.ts):
    // the page read hydrates them instead, one pipeline per master (post-cache.ts).
    const prefetch = guard.cluster ? 0 : (opts.prefetchBodies ?? 0);
    const first = await lookup(profileId, min, undefined, prefetch);
    if (first.kind === 'hit') {
      stats.hits += 1;
      return first.read;
    }
    if (first.kind === 'down') return direct(profileId, min);
    if (first.kind === 'below') return below(profileId, first.summary, min);

    const token = randomBytes(12).toString('base64url');
    const got = await guard.run((c) =>
      c.set(cacheKeys.lease(profileId), token, 'PX', settings.leaseMs, 'NX'),
    );
    if (got === undefined) return direct(profileId, min);
    if (got === 'OK') return readThrough(profileId, min, { kind: 'lease', token });

    stats.leaseWaits += 1;
    const waited = cacheLeaseWaitSeconds.startTimer();
    try {
      return await awaitFill(profileId, min);
    } finally {
      waited();
    }
  }

  /** Another reader holds the lease: poll, bounded; then the state before (§6.3), or direct. */
  async function awaitFill(profileId: bigint, min?: MinVersion): Promise<FirstOrderRead> {
    const deadline = Date.now() + settings.leaseWaitMs;
    // Backoff with jitter (10, 20, 40, 80, 100… ms): a thousand waiters polling in lockstep
    // would load Redis exactly when it matters.
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const step = Math.min(pollMs * 2 ** attempt, 100) * (0.5 + Math.random());
      await sleep(Math.min(step, Math.max(1, deadline - Date.now())));
      const again = await lookup(profileId, min);
      if (again.kind === 'hit') {
        stats.hits += 1;
        return again.read;
      }
      if (again.kind === 'down') return direct(profileId, min);
      if (again.kind === 'below') return below(profileId, again.summary, min);
    }
    const previous = await lookup(profileId, min, cacheKeys.previous(profileId));
    if (previous.kind === 'hit') {
      stats.previousServed += 1;
      return { ...previous.read, served: 'previous' };
    }
    return direct(profileId, min);
  }

  const { invalidate, afterGridWrite, afterCommit, refillsSettled } = createWriteSide({
    guard,
    source,
    summaryTtlS: settings.summaryTtlS,
    reader,
    pending,
    owe,
    refillDebounceMs: settings.refillDebounceMs ?? 0,
    refillMaxDelayMs: settings.refillMaxDelayMs ?? 0,
  });

  /** GridReads.head: the state's head, its cached order and (on a hit) the first bodies. */
  const pageHead: GridReads['head'] = async (profileId, minVersion, prefetch = 0) => {
    const first = await readFirstOrder(profileId, {
      prefetchBodies: prefetch,
      ...(minVersion === undefined ? {} : { minVersion }),
    });
    const { generation, version, pins } = first;
    const { postCount, membershipVersion } = first.summary;
    const head = { generation, version, pins, postCount, membershipVersion };
    // 'previous' is also Redis's answer (the state before the last change); fills and direct
    // reads went to Cassandra.
    const cache = first.served === 'cache' || first.served === 'previous' ? 'hit' : 'miss';
    // The first entries read from Cassandra were overtaken by a membership change: a first
    // page reads again; a later page (no prefetch) needs only the head, a state as real as any.
    if (first.moved) return prefetch > 0 ? { head, cache, moved: first.moved } : { head, cache };
    return { head, order: first, bodies: first.bodies, cache, cached: first.served === 'cache' };
  };

  return {
    readFirstOrder,
    pageHead,
    afterGridWrite,
    afterCommit,
    refillsSettled,
    invalidate,
    stats,
    repairs: pending.stats,
  };
}
