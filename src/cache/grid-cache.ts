/**
 * Read-through cache of a grid's first page(s), keyed by grid state (design article §6.2–6.3).
 *
 * Entries (keys.ts): a profile summary (generation, version, pins, post count) that readers
 * consult first, and per grid state the order of the pins plus the first 48 entries. An order
 * entry is written only under the state its override list was read with, and only when its rows
 * showed exactly that state's posts (order-reader.ts), so each `g{gen}:v{version}` key only ever
 * holds that state's order and old keys simply stop being read.
 *
 * Miss: memcache-style lease on the profile. The lease holder fills; everyone else polls briefly
 * (bounded by CACHE_LEASE_WAIT_MS), then serves the summary as it was before the last change
 * (memcache's stale value; only if it meets the caller's min_version), else reads Cassandra.
 * The writer's invalidation deletes both the summary and the lease, so a filler that read the
 * grid before the write loses its right to publish a summary (stale-set protection, scripts.ts).
 *
 * The Cassandra side (version-first reads, direct reads, the min_version path) is order-reader.ts.
 *
 * Read-your-writes: a summary below the caller's `minVersion` is never served; the head is then
 * read at LOCAL_QUORUM (which overlaps the LOCAL_QUORUM commit of the caller's compare-and-set)
 * and, if still older, at LOCAL_SERIAL (which completes an in-flight Paxos round).
 *
 * Redis failures are never errors here: every path has a Cassandra fallback (served: 'direct').
 * An invalidation Redis did not confirm is remembered and applied before this process reads
 * through Redis again (pending-invalidations.ts), so a stall cannot leave an old summary behind.
 */
import { randomBytes } from 'node:crypto';
import { compareGridVersions } from '../domain/grid-version.js';
import type { GridVersion } from '../domain/grid-version.js';
import { decodeOrder, decodePost, decodeSummary, encodeOrder, encodeSummary } from './codec.js';
import type { FirstOrder, Summary } from './codec.js';
import type {
  FirstOrderRead,
  GridCache,
  GridCacheSettings,
  ReadFirstOptions,
} from './grid-cache-types.js';
import { exportedStats } from './cache-metrics.js';
import { cacheKeys, POST_KEY_PREFIX } from './keys.js';
import { cacheLeaseWaitSeconds } from '../obs/metrics.js';
import { meetsMin, type MinVersion } from '../domain/grid-version.js';
import { createOrderReader } from './order-reader.js';
import type { OverrideCache } from './override-cache.js';
import { createPendingInvalidations } from './pending-invalidations.js';
import { createWriteSide } from './write-side.js';
import type { RedisGuard } from './redis.js';
import { withCacheCommands } from './scripts.js';
import type { GridHead } from '../domain/grid-head.js';
import type { GridSource } from '../domain/grid-source.js';
import type { Post as PostBody } from '../domain/post.js';

export type * from './grid-cache-types.js';

const sameState = (a: GridVersion, b: GridVersion) => compareGridVersions(a, b) === 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createGridCache(
  guard: RedisGuard,
  source: GridSource,
  settings: GridCacheSettings,
  /** Shared with the page read's later pages (caches.ts): one override-list cache. */
  overrides?: OverrideCache,
): GridCache {
  withCacheCommands(guard.client);
  const pollMs = settings.pollMs ?? 10;
  const hooks = settings.hooks ?? {};
  const stats = exportedStats();
  const reader = createOrderReader(guard, source, settings, stats, overrides);
  const { read, readHead, readOrder, summaryOf, cachedOrder, direct, readAtLeast } = reader;
  const pending = createPendingInvalidations(settings.repairMaxProfiles ?? 10_000);
  const owe = guard.addRepair(pending);

  /**
   * Fill under a lease (`token`), or without one when leases are off (kept for the benchmark's
   * comparison: it re-opens the stale-set window, bounded by the summary TTL).
   */
  async function fill(profileId: bigint, token: string | undefined, min?: MinVersion) {
    stats.fills += 1;
    const leaseKey = cacheKeys.lease(profileId);
    const release = async () => {
      if (token) await guard.run((c) => withCacheCommands(c).regridRelease(leaseKey, token));
    };
    let head: GridHead, order: FirstOrder, moved: GridVersion | undefined, summary: Summary;
    try {
      head = await readHead(profileId, min);
      // The writer usually stored this state's order already: then the head was all we needed.
      const ready = await cachedOrder(profileId, head);
      ({ order, head, moved } = ready ? { order: ready, head } : await readOrder(profileId, head));
      summary = summaryOf(head, order);
      await hooks.beforePublish?.(profileId, head);
    } catch (err) {
      await release(); // let the next reader try rather than wait out the lease
      throw err;
    }
    if (moved) {
      stats.notCachedVersionMoved += 1;
      await release();
      return { ...read(order, summary, 'fill'), moved };
    }
    const orderKey = cacheKeys.order(profileId, head.generation, head.version);
    const summaryValue = encodeSummary(summary, orderKey);
    const orderValue = encodeOrder(order);
    if (token) {
      const published = await guard.run((c) =>
        withCacheCommands(c).regridPublishFill(
          leaseKey,
          cacheKeys.summary(profileId),
          orderKey,
          token,
          summaryValue,
          settings.summaryTtlS,
          orderValue,
          settings.orderTtlS,
        ),
      );
      if (published === 0) stats.staleSetsRejected += 1;
    } else {
      await guard.run((c) =>
        c
          .multi()
          .set(orderKey, orderValue, 'EX', settings.orderTtlS)
          .set(cacheKeys.summary(profileId), summaryValue, 'EX', settings.summaryTtlS)
          .exec(),
      );
    }
    return read(order, summary, 'fill');
  }

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
    if (settings.bypass) return direct(profileId, min, false);
    // On a Redis Cluster the bodies live in other slots, out of the script's reach (scripts.ts):
    // the page read hydrates them instead, one pipeline per master (post-cache.ts).
    const prefetch = guard.cluster ? 0 : (opts.prefetchBodies ?? 0);
    const first = await lookup(profileId, min, undefined, prefetch);
    if (first.kind === 'hit') {
      stats.hits += 1;
      return first.read;
    }
    if (first.kind === 'down') return direct(profileId, min);
    if (first.kind === 'below') return readAtLeast(profileId, first.summary, min!);
    if (!settings.leases) return fill(profileId, undefined, min);

    const token = randomBytes(12).toString('base64url');
    const got = await guard.run((c) =>
      c.set(cacheKeys.lease(profileId), token, 'PX', settings.leaseMs, 'NX'),
    );
    if (got === undefined) return direct(profileId, min);
    if (got === 'OK') return fill(profileId, token, min);

    stats.leaseWaits += 1;
    const waited = cacheLeaseWaitSeconds.startTimer();
    try {
      return await awaitFill(profileId, min);
    } finally {
      waited();
    }
  }

  /**
   * Someone else holds the lease: poll for their result, bounded; then serve the state before
   * the last change if the caller accepts it (non-owners may lag, §6.3), else read directly.
   */
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
      if (again.kind === 'below') return readAtLeast(profileId, again.summary, min!);
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

  return {
    readFirstOrder,
    afterGridWrite,
    afterCommit,
    refillsSettled,
    invalidate,
    stats,
    repairs: pending.stats,
  };
}
