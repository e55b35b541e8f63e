/**
 * The cache's side of one grid state's first-page order: the order entry of a state (keyed by
 * it, immutable), the summary built from a head, and the first order of a settled read from the
 * store (`readSettled` in service/read/settled-read.ts: the version, the rows, the version again, under
 * the rule that keeps cache entries and pages honest, design §3.4). A `moved` read is never
 * cached, and never served as that state (the page read reads again, at least at the newer head).
 *
 * The override list comes through `ovr:` (override-cache.ts, composed into `source` by
 * service/read/settled-read.ts): a fill finds the list of exactly its state there when a writer
 * or a later page already read it, and leaves it there otherwise.
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
import type { RedisGuard } from './redis.js';
import type { GridHead } from '../domain/grid-head.js';
import type { SettledRows, SettledSource } from '../domain/grid-source.js';
import type { GridEntry } from '../domain/merge.js';

/** The design caches the pins and the next two pages of 24. */
export const FIRST_ENTRIES = 48;

/** `rows`: up to FIRST_ENTRIES + 1 entries, so `complete` is exact even for a grid of 48. */
export function firstOrder(head: GridHead, rows: readonly GridEntry[]): FirstOrder {
  const entries = rows.slice(0, FIRST_ENTRIES).map(({ postId, key }) => ({ postId, key }));
  const { generation, version, pins } = head; // the order entry is keyed by state, no count
  return { generation, version, pins, entries, complete: rows.length <= FIRST_ENTRIES };
}

/** The first order of a settled read, and whether it may be cached. */
export function orderOf({ head, rows, moved }: SettledRows) {
  return { order: firstOrder(head, rows), head, stable: moved === undefined, moved };
}

export function createOrderReader(
  guard: RedisGuard,
  source: SettledSource,
  settings: GridCacheSettings,
  stats: GridCacheStats,
) {
  const hooks = settings.hooks ?? {};
  const inFlight = new Map<bigint, Promise<FirstOrderRead>>();

  const read = (order: FirstOrder, summary: Summary, served: Served): FirstOrderRead => ({
    ...order,
    summary,
    served,
  });

  /**
   * Version first, rows second, version again (the store's `readSettled`). The order is of
   * `head` in the result (the state its override list belongs to); `moved` says the grid's
   * posts changed under the rows, so they are not that state's: neither cached nor served as it.
   */
  async function readOrder(profileId: bigint, first: GridHead) {
    await hooks.afterHeadRead?.(profileId, first);
    return orderOf(await source.readSettled(profileId, first, FIRST_ENTRIES + 1));
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
   * meet reads on its own.
   */
  async function direct(profileId: bigint, min?: MinVersion): Promise<FirstOrderRead> {
    const shared = inFlight.get(profileId);
    if (shared) {
      const r = await shared.catch(() => undefined);
      if (r && meetsMin(r, min)) return r;
    }
    const mine = (async () => {
      stats.directReads += 1;
      const first = await source.readHeadAtLeast(profileId, min);
      const settled = await source.readSettled(profileId, first, FIRST_ENTRIES + 1);
      const { order, head, moved } = orderOf(settled);
      return { ...read(order, { ...head, postCount: head.postCount }, 'direct'), moved };
    })();
    if (!shared) {
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
    const head = await source.readHeadAtLeast(profileId, min);
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
    const got = await readOrder(profileId, head);
    await storeOrder(profileId, got.order, got.stable);
    return {
      ...read(got.order, { ...got.head, postCount: got.head.postCount }, 'fill'),
      moved: got.moved,
    };
  }

  return {
    read,
    readOrder,
    summaryOf,
    cachedOrder,
    storeOrder,
    direct,
    forgetInFlight,
    readAtLeast,
  };
}
