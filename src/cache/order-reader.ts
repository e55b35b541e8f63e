/**
 * Reading one grid state's first-page order from Cassandra, under the rule that keeps cache
 * entries honest (design §3.4): the version first, the rows second, the version again. Rows can
 * then only be newer than the version they are filed under, and a version that moved meanwhile
 * marks the read unstable, which the callers never cache.
 *
 * The override list comes through `ovr:` (override-cache.ts): a fill finds the list of exactly its
 * state there when a writer or a later page already read it, and leaves it there otherwise.
 *
 * Also here: direct reads (Redis unusable: nothing written, one flight per profile) and the
 * read-your-writes path for a summary below the caller's min_version.
 */
import {
  compareGridVersions,
  meetsMin,
  sameGridState as sameState,
  type MinVersion,
} from '../domain/grid-version.js';
import { decodeOrder, encodeOrder } from './codec.js';
import type { FirstOrder, Summary } from './codec.js';
import type {
  FirstOrderRead,
  GridCacheSettings,
  GridCacheStats,
  Served,
} from './grid-cache-types.js';
import { cacheKeys } from './keys.js';
import { createOverrideCache, type OverrideCache } from './override-cache.js';
import type { RedisGuard } from './redis.js';
import type { GridHead } from '../domain/grid-head.js';
import type { GridSource } from '../domain/grid-source.js';
import type { GridEntry } from '../domain/merge.js';

/** The design caches the pins and the next two pages of 24. */
export const FIRST_ENTRIES = 48;

/** `rows`: up to FIRST_ENTRIES + 1 entries, so `complete` is exact even for a grid of 48. */
export function firstOrder(head: GridHead, rows: readonly GridEntry[]): FirstOrder {
  const entries = rows.slice(0, FIRST_ENTRIES).map(({ postId, key }) => ({ postId, key }));
  const { generation, version, pins } = head; // the order entry is keyed by state, no count
  return { generation, version, pins, entries, complete: rows.length <= FIRST_ENTRIES };
}

export function createOrderReader(
  guard: RedisGuard,
  source: GridSource,
  settings: GridCacheSettings,
  stats: GridCacheStats,
  /** The process's one override-list cache (caches.ts); a private one when not given. */
  overrideLists: OverrideCache = createOverrideCache(guard, source, settings.orderTtlS),
) {
  const hooks = settings.hooks ?? {};
  const inFlight = new Map<bigint, Promise<FirstOrderRead>>();

  const read = (order: FirstOrder, summary: Summary, served: Served): FirstOrderRead => ({
    ...order,
    summary,
    served,
  });

  /** Reads the head at LOCAL_QUORUM, escalating to LOCAL_SERIAL when below the floor. */
  function readHead(profileId: bigint, min?: MinVersion): Promise<GridHead> {
    return source.readHeadAtLeast(profileId, min);
  }

  /**
   * The first entries after `head`: the override list (of exactly that state from `ovr:` when
   * cached; else read with its own head in one query, and cached for later pages), merged with
   * the streamed time-ordered rows. One entry more than cached, so `complete` is exact even for a
   * grid of exactly 48. `sameOverrides`: the override list belongs to `head`'s state.
   */
  async function readEntries(profileId: bigint, head: GridHead) {
    // A reordered copy of exactly this state (many overrides): no override list to read.
    const copied = await source.copy?.(profileId, head, undefined, FIRST_ENTRIES + 1);
    if (copied) return { order: firstOrder(head, copied), sameOverrides: true };
    const listed = await overrideLists.read(profileId, head);
    const rows = await source.entries(profileId, listed.rows, {
      limit: FIRST_ENTRIES + 1,
      exclude: head.pins,
    });
    return { order: firstOrder(head, rows), sameOverrides: sameState(listed.head, head) };
  }

  /** Version first, rows second, version again: `stable` says the rows belong to `head`. */
  async function readOrder(profileId: bigint, head: GridHead) {
    await hooks.afterHeadRead?.(profileId, head);
    const { order, sameOverrides } = await readEntries(profileId, head);
    const again = await source.readHead(profileId, 'quorum');
    return { order, stable: sameOverrides && sameState(again, head) };
  }

  /**
   * The count comes from the head (the exact static `post_count`, read with the version); a grid
   * that predates that column is counted only when its whole order fits the cached prefix.
   */
  function summaryOf(head: GridHead, order: FirstOrder): Summary {
    const postCount =
      head.postCount ??
      (order.complete ? BigInt(order.pins.length + order.entries.length) : undefined);
    return { ...head, postCount };
  }

  /** The order entry of exactly `head`'s state, if cached. */
  async function cachedOrder(profileId: bigint, head: GridHead): Promise<FirstOrder | undefined> {
    const key = cacheKeys.order(profileId, head.generation, head.version);
    const order = decodeOrder(await guard.run((c) => c.get(key)));
    return order && sameState(order, head) ? order : undefined;
  }

  /** Stores an order entry when its rows were read under a stable version. */
  async function storeOrder(profileId: bigint, order: FirstOrder, stable: boolean) {
    if (!stable) {
      stats.notCachedVersionMoved += 1;
      return;
    }
    const key = cacheKeys.order(profileId, order.generation, order.version);
    await guard.run((c) => c.set(key, encodeOrder(order), 'EX', settings.orderTtlS));
  }

  /**
   * Straight from Cassandra, nothing written. Concurrent direct reads of one profile in this
   * process share one Cassandra read (single flight): with Redis down, a hot profile's readers
   * would otherwise all hit Cassandra at once. A caller whose floor the shared result does not
   * meet reads on its own. (`coalesce: false` only for the benchmark's per-request miss cost.)
   */
  async function direct(
    profileId: bigint,
    min?: MinVersion,
    coalesce = true,
  ): Promise<FirstOrderRead> {
    const shared = coalesce ? inFlight.get(profileId) : undefined;
    if (shared) {
      const r = await shared.catch(() => undefined);
      if (r && meetsMin(r, min)) return r;
    }
    const mine = (async () => {
      stats.directReads += 1;
      const head = await readHead(profileId, min);
      const { order } = await readEntries(profileId, head);
      return read(order, { ...head, postCount: head.postCount }, 'direct');
    })();
    if (coalesce && !shared) {
      inFlight.set(profileId, mine);
      const done = () => {
        if (inFlight.get(profileId) === mine) inFlight.delete(profileId);
      };
      void mine.finally(done).catch(() => {});
    }
    return mine;
  }

  /** After a local write: later direct reads of the profile start their own read. */
  const forgetInFlight = (profileId: bigint) => void inFlight.delete(profileId);

  /**
   * The cached summary is below the caller's floor: read the head from Cassandra, and reuse the
   * order entry of that state if it is cached (entries are immutable per state).
   */
  async function readAtLeast(
    profileId: bigint,
    stale: Summary,
    min: MinVersion,
  ): Promise<FirstOrderRead> {
    const head = await readHead(profileId, min);
    const summary = { ...head, postCount: head.postCount };
    // Only a summary that Cassandra proves older is dropped: a floor from the future (a bogus
    // min_version) must not let one client flush everybody's cache.
    if (compareGridVersions(stale, head) < 0) {
      await guard.run((c) => c.del(cacheKeys.summary(profileId)));
    }
    const cached = await cachedOrder(profileId, head);
    if (cached) {
      stats.hits += 1;
      return read(cached, summary, 'cache');
    }
    stats.fills += 1;
    const { order, stable } = await readOrder(profileId, head);
    await storeOrder(profileId, order, stable);
    return read(order, summary, 'fill');
  }

  return {
    read,
    readHead,
    readOrder,
    summaryOf,
    cachedOrder,
    storeOrder,
    direct,
    forgetInFlight,
    readAtLeast,
  };
}
