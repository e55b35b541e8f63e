/**
 * Reading one grid state's first-page order from Cassandra, under the rule that keeps cache
 * entries and pages honest (design §3.4): the version first, the rows second, the version again.
 * The override list and its head come from one query, so they are one state; the time-ordered
 * rows are that state's exactly when no membership write committed before the last head read
 * (domain/grid-head.ts `sameMembership`). Otherwise the read is `moved`: never cached, and never
 * served as that state (the page read reads again, at least at the newer head).
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
  type GridVersion,
  type MinVersion,
} from '../domain/grid-version.js';

type Stamps = readonly (bigint | null)[];
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
import { rowsVerdict, sameMembership, type GridHead } from '../domain/grid-head.js';
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
   * The first entries of a state: the override list (of exactly `head`'s state from `ovr:` when
   * cached; else read with its own head in one query, and cached for later pages) merged with
   * the streamed time-ordered rows. The state is the list's: `head`'s, or the newer head the
   * list was read with (its pins then). One entry more than cached, so `complete` is exact even
   * for a grid of exactly 48. `state` undefined: the list came back older than `head`.
   */
  async function readEntries(profileId: bigint, head: GridHead) {
    // A reordered copy of exactly this state (many overrides): no override list to read.
    const copied = await source.copy?.(profileId, head, undefined, FIRST_ENTRIES + 1);
    if (copied) return { order: firstOrder(head, copied), state: head, copied: true };
    const listed = await overrideLists.read(profileId, head);
    const state = compareGridVersions(listed.head, head) >= 0 ? listed.head : undefined;
    const stamps: (bigint | null)[] = [];
    const rows = await source.entries(profileId, listed.rows, {
      limit: FIRST_ENTRIES + 1,
      exclude: (state ?? head).pins,
      onStamp: (s) => void stamps.push(s),
    });
    return { order: firstOrder(state ?? head, rows), state, copied: false, stamps };
  }

  /**
   * Version first, rows second, version again. The order is of `head` in the result (the state
   * its override list belongs to); `moved` (the head read last) says the grid's posts changed
   * under the rows, so they are not that state's: neither cached nor served as it.
   */
  async function readOrder(profileId: bigint, first: GridHead) {
    await hooks.afterHeadRead?.(profileId, first);
    return settle(profileId, first, await readEntries(profileId, first));
  }

  async function settle(
    profileId: bigint,
    first: GridHead,
    read: { order: FirstOrder; state: GridHead | undefined; copied: boolean; stamps?: Stamps },
  ) {
    const { order, state } = read;
    const head = state ?? first;
    // A copy holds exactly its state; merged rows, when their stamps say so, or else while the
    // head read after them shows no membership write since.
    const verdict = state && !read.copied ? rowsVerdict(read.stamps ?? [], state) : undefined;
    let moved: GridVersion | undefined;
    if (!state) moved = first;
    else if (verdict?.kind === 'newer')
      moved = { generation: state.generation, version: verdict.version };
    else if (verdict?.kind === 'unknown') {
      const again = await source.readHead(profileId, 'quorum');
      if (!sameMembership(again, state)) moved = again;
    }
    return { order, head, stable: moved === undefined, moved };
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
      const first = await readHead(profileId, min);
      const { order, head, moved } = await settle(
        profileId,
        first,
        await readEntries(profileId, first),
      );
      return { ...read(order, { ...head, postCount: head.postCount }, 'direct'), moved };
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
    const got = await readOrder(profileId, head);
    await storeOrder(profileId, got.order, got.stable);
    return {
      ...read(got.order, { ...got.head, postCount: got.head.postCount }, 'fill'),
      moved: got.moved,
    };
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
