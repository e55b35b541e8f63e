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
 * Also here: the one read-through from Cassandra (`readThrough`): a lease holder's fill, the
 * read-your-writes path for a summary below the caller's min_version, and direct reads (Redis
 * unusable: nothing written, one flight per profile).
 */
import {
  compareGridVersions,
  meetsMin,
  sameGridState as sameState,
  type MinVersion,
} from '../domain/grid-version.js';
import { decodeOrder, encodeOrder, encodeSummary } from './codec.js';
import type { FirstOrder, Summary } from './codec.js';
import type {
  FirstOrderRead,
  GridCacheSettings,
  GridCacheStats,
  Served,
} from './grid-cache-types.js';
import { cacheKeys } from './keys.js';
import { withCacheCommands } from './scripts.js';
import type { RedisGuard } from './redis.js';
import type { GridHead } from '../domain/grid-head.js';
import type { SettledRows, SettledSource } from '../domain/grid-source.js';
import type { GridEntry } from '../domain/merge.js';

/** How a read-through may write (see `readThrough`). */
export type Through =
  | { readonly kind: 'lease'; readonly token: string }
  | { readonly kind: 'below'; readonly stale: Summary }
  | { readonly kind: 'direct' };

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

  /** The store's head at least at `min` (the one place that rule lives: store/grid-reader.ts). */
  const headAtLeast = async (profileId: bigint, min?: MinVersion) =>
    (await source.head(profileId, min)).head;

  /**
   * The one read-through of a first-page order from Cassandra: the head (never below `min`), the
   * order entry of that state if Redis holds it, else the settled read; then what `how` allows:
   * - `lease` (this reader holds the fill lease `token`): publish the summary and the order, only
   *   while the lease is still this reader's (stale-set protection, scripts.ts);
   * - `below` (the cached summary `stale` is under the caller's floor): store the order entry
   *   only, and drop the summary when Cassandra proves it older (a floor from the future, a
   *   bogus min_version, must not let one client flush everybody's cache);
   * - `direct` (Redis unusable, or a lease waiter out of budget): write nothing; concurrent
   *   direct reads of one profile in this process share one Cassandra read (with Redis down a
   *   hot profile's readers would otherwise all hit Cassandra at once); a caller whose floor the
   *   shared result does not meet reads on its own.
   * A `moved` read (rows not exactly the state's) is never cached and never served as it.
   */
  async function readThrough(
    profileId: bigint,
    min: MinVersion | undefined,
    how: Through,
  ): Promise<FirstOrderRead> {
    if (how.kind === 'direct') {
      const shared = inFlight.get(profileId);
      if (shared) {
        const r = await shared.catch(() => undefined);
        if (r && meetsMin(r, min)) return r;
      }
      const mine = (async () => {
        stats.directReads += 1;
        const head = await headAtLeast(profileId, min);
        const got = orderOf(await source.readSettled(profileId, head, FIRST_ENTRIES + 1));
        return { ...read(got.order, summaryOf(got.head, got.order), 'direct'), moved: got.moved };
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
    const token = how.kind === 'lease' ? how.token : undefined;
    const leaseKey = cacheKeys.lease(profileId);
    const release = async () => {
      if (token) await guard.run((c) => withCacheCommands(c).regridRelease(leaseKey, token));
    };
    try {
      const head = await headAtLeast(profileId, min);
      if (how.kind === 'below' && compareGridVersions(how.stale, head) < 0) {
        await guard.run((c) => c.del(cacheKeys.summary(profileId)));
      }
      // The writer usually stored this state's order already: then the head was all we needed.
      const ready = await cachedOrder(profileId, head);
      if (ready && !token) {
        stats.hits += 1;
        return read(ready, summaryOf(head, ready), 'cache');
      }
      stats.fills += 1;
      const got = ready
        ? { order: ready, head, moved: undefined }
        : await readOrder(profileId, head);
      const summary = summaryOf(got.head, got.order);
      if (token) await hooks.beforePublish?.(profileId, got.head);
      if (got.moved) {
        stats.notCachedVersionMoved += 1;
        await release();
        return { ...read(got.order, summary, 'fill'), moved: got.moved };
      }
      if (!token) {
        await storeOrder(profileId, got.order, true);
        return read(got.order, summary, 'fill');
      }
      const orderKey = cacheKeys.order(profileId, got.head.generation, got.head.version);
      const published = await guard.run((c) =>
        withCacheCommands(c).regridPublishFill(
          leaseKey,
          cacheKeys.summary(profileId),
          orderKey,
          token,
          encodeSummary(summary, orderKey),
          settings.summaryTtlS,
          encodeOrder(got.order),
          settings.orderTtlS,
        ),
      );
      if (published === 0) stats.staleSetsRejected += 1;
      return read(got.order, summary, 'fill');
    } catch (err) {
      await release(); // let the next reader try rather than wait out the lease
      throw err;
    }
  }

  /** After a local write: later direct reads of the profile start their own read. */
  const forgetInFlight = (profileId: bigint) => void inFlight.delete(profileId);

  return { read, readOrder, storeOrder, readThrough, forgetInFlight };
}
