/**
 * The read cache: rendered first pages in Redis keyed by grid state, and per profile one small
 * summary naming its current state (keys.ts). Nothing else of a grid is cached.
 *
 * `read` is the one read-through of a first page: the summary and the page of the state it names
 * in one script call (scripts.ts READ_PAGE, which decodes the summary); on a miss (or a summary
 * below the caller's min_version) the page is read from Cassandra by `fill`
 * (service/read/rendered-read.ts) and kept under the state it was read at, which it is exactly
 * (service/read/read-page.ts labels every page by the state its items come from), so a page key
 * can never answer for another state.
 *
 * The summary is published only by a reader that took the profile's fill lease before it read
 * Cassandra, and only while the lease is still its own: a write deletes the summary and the lease
 * after its compare-and-set, so a filler that read before the write may not publish (stale-set
 * protection, scripts.ts PUBLISH_FILL). A reader that finds the lease taken reads Cassandra as
 * well and keeps only its page. Redis failures are never errors: the page is read from Cassandra
 * (served: 'direct'), and an invalidation Redis did not confirm is applied before this process
 * reads Redis again (pending-invalidations.ts). The rules: docs/cache.md.
 */
import type { Context } from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';
import { meetsMin, type MinVersion } from '../domain/grid-version.js';
import {
  cacheFallbacks,
  cacheFills,
  cacheStaleSetsRejected,
  firstPageReads,
  pageReadDuration,
} from '../obs/metrics.js';
import { encodeSummary } from './codec.js';
import { cacheKeys, renderedSuffix } from './keys.js';
import {
  createPendingInvalidations,
  type PendingInvalidationStats,
} from './pending-invalidations.js';
import type { RedisGuard } from './redis.js';
import { withCacheCommands } from './scripts.js';

export interface RenderedPage {
  readonly generation: bigint;
  readonly version: bigint;
  /** The JSON response body. */
  readonly body: string;
  /** Strong validator of `body` (quoted, as sent in the ETag header). */
  readonly etag: string;
}

/** `cache`: from Redis; `fill`: read from Cassandra and kept; `direct`: Redis unusable. */
export type Served = 'cache' | 'fill' | 'direct';

export interface CachedRead extends RenderedPage {
  readonly served: Served;
}

/** A page read from Cassandra; `keep` false: not the grid's arrangement (chronological view). */
export type Fill = () => Promise<{ readonly page: RenderedPage; readonly keep: boolean }>;

export interface GridCacheSettings {
  readonly pageTtlS: number;
  readonly summaryTtlS: number;
  readonly leaseMs: number;
  /** Names the secret the pages' cursors are signed with (see keys.ts `rendered`). */
  readonly cursorKeyId: string;
  /**
   * Profiles whose failed invalidation is remembered for repair; beyond that, every summary is
   * swept. Default 10,000 (as CACHE_REPAIR_MAX_PROFILES).
   */
  readonly repairMaxProfiles?: number;
  /** Test-only seam to inject a write between a filler's read and its publish. */
  readonly hooks?: {
    readonly beforePublish?: (profileId: bigint, page: RenderedPage) => Promise<void>;
  };
}

/** Counters for tests, benchmarks and logs. `fills`: first pages read from Cassandra and kept. */
export interface GridCacheStats {
  hits: number;
  fills: number;
  directReads: number;
  staleSetsRejected: number;
}

export interface GridCache {
  /** The first page (`limit` entries) of the profile's current state, never below `min`. */
  read(
    profileId: bigint,
    limit: number,
    min: MinVersion | undefined,
    fill: Fill,
  ): Promise<CachedRead>;
  /**
   * After a grid write (summary + lease); idempotent, safe in any order. When Redis does not
   * confirm it, the profile is remembered and repaired before this process reads Redis again.
   */
  /** With `trace`, its Redis commands are spanned under it (redis-spans.ts). */
  invalidate(profileId: bigint, trace?: Context): Promise<void>;
  readonly stats: GridCacheStats;
  /** Failed invalidations remembered, repaired, and sweeps after an overflow. */
  readonly repairs: PendingInvalidationStats;
}

/** Value layout in Redis: the ETag, a newline, the body (ETags hold no newline). */
const pack = (p: RenderedPage) => `${p.etag}\n${p.body}`;

export function createGridCache(guard: RedisGuard, settings: GridCacheSettings): GridCache {
  // Registered once: every call below runs through this client (no trace: read spans nothing).
  const redis = withCacheCommands(guard.client);
  const stats: GridCacheStats = { hits: 0, fills: 0, directReads: 0, staleSetsRejected: 0 };
  const pending = createPendingInvalidations(settings.repairMaxProfiles ?? 10_000);
  const owe = guard.addRepair(pending);
  guard.onFailover(() => {
    pending.addAll();
    owe();
  });

  async function read(
    profileId: bigint,
    limit: number,
    min: MinVersion | undefined,
    fill: Fill,
  ): Promise<CachedRead> {
    const started = performance.now();
    const suffix = renderedSuffix(limit, settings.cursorKeyId);
    const summaryKey = cacheKeys.summary(profileId);
    const reply = await guard.run(() => redis.regridReadPage(summaryKey, suffix));
    if (reply === undefined) {
      firstPageReads.inc({ result: 'miss' });
      stats.directReads += 1;
      cacheFallbacks.inc();
      return { ...(await fill()).page, served: 'direct' };
    }
    if (reply !== null) {
      const [g, v, packed] = reply;
      const generation = BigInt(g);
      const version = BigInt(v);
      const cut = packed.indexOf('\n');
      if (cut > 0 && meetsMin({ generation, version }, min)) {
        stats.hits += 1;
        firstPageReads.inc({ result: 'hit' });
        pageReadDuration.observe(
          { page: 'first', source: 'cache' },
          (performance.now() - started) / 1000,
        );
        const etag = packed.slice(0, cut);
        return { generation, version, etag, body: packed.slice(cut + 1), served: 'cache' };
      }
    }

    firstPageReads.inc({ result: 'miss' });
    // A miss: the lease first, then Cassandra, so a write after the lease is taken revokes it.
    const leaseKey = cacheKeys.lease(profileId);
    const token = randomBytes(12).toString('base64url');
    const leased =
      (await guard.run((c) => c.set(leaseKey, token, 'PX', settings.leaseMs, 'NX'))) === 'OK';
    let got;
    try {
      got = await fill();
    } catch (err) {
      // Let the next reader try rather than wait out the lease.
      if (leased) await guard.run(() => redis.regridRelease(leaseKey, token));
      throw err;
    }
    const { page, keep } = got;
    if (!keep) {
      if (leased) await guard.run(() => redis.regridRelease(leaseKey, token));
      return { ...page, served: 'fill' };
    }
    stats.fills += 1;
    cacheFills.inc();
    await settings.hooks?.beforePublish?.(profileId, page);
    const pageKey = cacheKeys.rendered(profileId, page.generation, page.version, suffix);
    // The page is kept whatever happens: it is keyed by the state it was read at.
    if (!leased) {
      void guard.run((c) => c.set(pageKey, pack(page), 'EX', settings.pageTtlS));
      return { ...page, served: 'fill' };
    }
    const stateKey = cacheKeys.state(profileId, page.generation, page.version);
    const published = await guard.run(() =>
      redis.regridPublishFill(
        leaseKey,
        summaryKey,
        pageKey,
        token,
        encodeSummary(page, stateKey),
        settings.summaryTtlS,
        pack(page),
        settings.pageTtlS,
      ),
    );
    if (published === 0) {
      stats.staleSetsRejected += 1;
      cacheStaleSetsRejected.inc();
    }
    return { ...page, served: 'fill' };
  }

  async function invalidate(profileId: bigint, trace?: Context): Promise<void> {
    // Deletes commute: writers on different servers may finish in any order.
    const done = await guard.run(
      (c) => c.del(cacheKeys.summary(profileId), cacheKeys.lease(profileId)),
      trace,
    );
    // Not confirmed: it may or may not run later. Remember it before the write is acknowledged.
    if (done === undefined) {
      pending.add(profileId);
      owe();
    }
  }

  return { read, invalidate, stats, repairs: pending.stats };
}
