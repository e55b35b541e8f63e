/**
 * The version-keyed first-page cache against the real Cassandra read/write paths and the shared
 * Redis: entries never answer for another version (racing fillers, out-of-order invalidations),
 * leases admit exactly one filler, and min_version is honoured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeOrder, decodeSummary } from '../../../src/cache/codec.js';
import type { GridCache } from '../../../src/cache/grid-cache.js';
import { cacheKeys } from '../../../src/cache/keys.js';
import { createPostCache } from '../../../src/cache/post-cache.js';
import { createRedisGuard } from '../../../src/cache/redis.js';
import type { RedisGuard } from '../../../src/cache/redis.js';
import type { GridEntry } from '../../../src/domain/merge.js';
import {
  bump,
  freshProfile,
  gate,
  moveToTop,
  openCache,
  openStores,
  seedPosts,
  sharedGuard,
  truth,
} from './harness.js';
import type { Stores } from './harness.js';

let s: Stores;
let guard: RedisGuard;

beforeAll(async () => {
  s = await openStores();
  guard = sharedGuard(s.config);
  expect(await guard.waitReady(5000)).toBe(true);
});

afterAll(async () => {
  await guard.close();
  await s.close();
});

const ids = (entries: readonly GridEntry[]) => entries.map((e) => e.postId);

/** Every order entry of the profile that Redis holds, by version. */
async function cachedOrders(profileId: bigint) {
  const keys = await guard.client.keys(`grid:{${profileId}}:*`);
  const out = new Map<bigint, GridEntry[]>();
  for (const key of keys) {
    const order = decodeOrder(await guard.client.get(key));
    expect(order, key).toBeDefined();
    expect(key).toBe(cacheKeys.order(profileId, order!.generation, order!.version));
    out.set(order!.version, [...order!.entries]);
  }
  return out;
}

describe('first-page cache: fill and hit', () => {
  it('fills once, then serves the same order from Redis', async () => {
    const p = freshProfile(s);
    await seedPosts(s, p, 60);
    const cache = openCache(s, guard);
    const first = await cache.readFirstOrder(p);
    const second = await cache.readFirstOrder(p);
    const t = await truth(s, p);
    expect(first.served).toBe('fill');
    expect(second.served).toBe('cache');
    expect(ids(first.entries)).toEqual(ids(t.entries));
    expect(ids(second.entries)).toEqual(ids(t.entries));
    expect(second.version).toBe(t.head.version);
    expect(first.entries).toHaveLength(48);
    expect(cache.stats.fills).toBe(1);
  });

  it('after a write, serves the new order (the writer pre-fills, readers only re-read the head)', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    const cache = openCache(s, guard);
    const writer = s.writer({ onCommitted: [(e) => cache.afterGridWrite(e.profileId)] });
    await cache.readFirstOrder(p);
    await moveToTop(s, writer, p, posts[0]!);
    const after = await cache.readFirstOrder(p);
    const t = await truth(s, p);
    expect(after.version).toBe(t.head.version);
    expect(ids(after.entries)).toEqual(ids(t.entries));
    expect(after.entries[0]!.postId).toBe(posts[0]);
  });

  it('the writer hook pre-fills from the commit itself, off the response path, the same order as a read back', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    const cache = openCache(s, guard);
    const writer = s.writer({ onCommitted: [(e) => cache.afterCommit(e)] });
    await cache.readFirstOrder(p);
    // Several commits: a move to the top, one into the middle, a pin (statics from the event).
    await moveToTop(s, writer, p, posts[0]!);
    await moveToTop(s, writer, p, posts[5]!);
    await writer.writeGrid(p, async (ctx) => ({
      kind: 'write',
      mutation: { statics: { pins: [posts[9]!] } },
      result: ctx.nextVersion,
    }));
    await cache.refillsSettled();
    const t = await truth(s, p);
    const orders = await cachedOrders(p);
    // The newest state's entry exists (written by the refill, nobody read it) and is exact.
    expect(orders.get(t.head.version)).toBeDefined();
    expect(ids(orders.get(t.head.version)!)).toEqual(ids(t.entries));
    const after = await cache.readFirstOrder(p);
    expect(after.pins).toEqual([posts[9]]);
    expect(ids(after.entries)).toEqual(ids(t.entries));
  });

  it('a burst of commits is pre-filled once, for its newest state', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 20);
    const cache = openCache(s, guard, { refillDebounceMs: 200, refillMaxDelayMs: 5000 });
    const writer = s.writer({ onCommitted: [(e) => cache.afterCommit(e)] });
    const start = await cache.readFirstOrder(p); // fills the state before the burst
    for (const post of posts.slice(0, 5)) await moveToTop(s, writer, p, post);
    await cache.refillsSettled();
    const t = await truth(s, p);
    const orders = await cachedOrders(p);
    // The state before the burst (a reader's fill) and the newest one; none in between.
    expect([...orders.keys()].sort()).toEqual([start.version, t.head.version]);
    expect(ids(orders.get(t.head.version)!)).toEqual(ids(t.entries));
  });
});

describe('first-page bodies in the same round trip', () => {
  it('a hit returns the cached bodies of the pins and the first n entries', async () => {
    const p = freshProfile(s);
    await seedPosts(s, p, 30);
    const cache = openCache(s, guard);
    const bodies = createPostCache(guard, s.reader, 60);
    const filled = await cache.readFirstOrder(p, { prefetchBodies: 5 });
    expect(filled.bodies).toBeUndefined(); // a fill reads no bodies
    const first5 = filled.entries.slice(0, 5).map((e) => e.postId);
    const fromCassandra = await bodies.hydrate(first5.slice(0, 3)); // caches 3 of the 5
    const hit = await cache.readFirstOrder(p, { prefetchBodies: 5 });
    expect(hit.served).toBe('cache');
    expect([...hit.bodies!.keys()]).toEqual(first5.slice(0, 3));
    for (const id of first5.slice(0, 3)) expect(hit.bodies!.get(id)).toEqual(fromCassandra.get(id));
    // The other two are hydrated (and backfilled) as usual.
    const all = await bodies.hydrate(first5, hit.bodies);
    expect([...all.keys()].sort()).toEqual([...first5].sort());
  });
});

describe('version-keyed entries are never served for the wrong version', () => {
  it('a filler that read the version before a write does not cache the newer rows under it', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 20);
    const before = await truth(s, p);
    const g = gate();
    // Pauses the first fill once its head (version v) is read; its rows are not read yet.
    const racing = openCache(s, guard, { hooks: { afterHeadRead: g.waitOnce } });
    const plain = openCache(s, guard);
    const writer = s.writer({ onCommitted: [(e) => plain.afterGridWrite(e.profileId)] });

    const fill = racing.readFirstOrder(p);
    await g.arrived;
    await moveToTop(s, writer, p, posts[3]!); // commits v+1 while the filler sits between reads
    g.open();
    const served = await fill;

    // The override list was read after the write, with its own head: the filler's order is that
    // state's (v+1), served and cached under it, and nothing under the version it read first.
    const now = await truth(s, p);
    expect(served.version).toBe(now.head.version);
    expect(served.moved).toBeUndefined();
    expect(ids(served.entries)).toEqual(ids(now.entries));
    const orders = await cachedOrders(p);
    expect(orders.has(before.head.version)).toBe(false);
    expect(orders.get(now.head.version)).toEqual(now.entries);
    const next = await plain.readFirstOrder(p);
    expect(next.version).toBe(now.head.version);
    expect(ids(next.entries)).toEqual(ids(now.entries));
  });

  it('a filler whose rows a membership write overtook neither caches nor serves them as its state', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 12);
    const plain = openCache(s, guard);
    const before = await plain.readFirstOrder(p); // caches v's override list (ovr:) and order
    await guard.client.del(cacheKeys.order(p, before.generation, before.version));
    const g = gate();
    const racing = openCache(s, guard, { hooks: { afterHeadRead: g.waitOnce } });
    const writer = s.writer();
    const fill = racing.readFirstOrder(p);
    await g.arrived;
    // v+1 drops a post from grid_posts (a membership effect) before the filler reads the rows;
    // its override list is still v's (from ovr:), its rows already v+1's.
    await writer.writeGrid(p, async () => ({
      kind: 'write',
      mutation: { effects: [{ op: 'grid_drop', postId: posts[11]! }] },
      result: null,
    }));
    g.open();
    const served = await fill;

    expect(served.version).toBe(before.version);
    expect(served.moved).toEqual({ generation: before.generation, version: before.version + 1n });
    expect(racing.stats.notCachedVersionMoved).toBe(1);
    expect((await cachedOrders(p)).has(before.version)).toBe(false);
  });

  it('a filler whose lease was superseded by a write cannot publish its older summary', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 20);
    const v1 = await truth(s, p);
    const g = gate();
    // Pauses the first fill with its rows read under a stable version; summary not yet published.
    const racing = openCache(s, guard, { hooks: { beforePublish: g.waitOnce } });
    const plain = openCache(s, guard);
    const writer = s.writer({ onCommitted: [(e) => plain.afterGridWrite(e.profileId)] });

    const fill = racing.readFirstOrder(p);
    await g.arrived;
    await moveToTop(s, writer, p, posts[5]!); // deletes the summary *and* the filler's lease
    g.open();
    await fill;

    expect(racing.stats.staleSetsRejected).toBe(1);
    const summary = decodeSummary(await guard.client.get(cacheKeys.summary(p)));
    expect(summary).toBeUndefined();
    // The stale filler's order entry is v1's true order, under v1's key: harmless.
    const orders = await cachedOrders(p);
    expect(orders.get(v1.head.version)).toEqual(v1.entries);
    const now = await truth(s, p);
    const next = await plain.readFirstOrder(p);
    expect(next.version).toBe(now.head.version);
    expect(ids(next.entries)).toEqual(ids(now.entries));
  });

  it('invalidations delivered late and out of order never make an entry answer for another version', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    const cache = openCache(s, guard);
    // Hold every writer's post-commit hook and release them in reverse order at the end.
    const held: Array<() => Promise<void>> = [];
    const writer = s.writer({
      onCommitted: [
        (e) => {
          held.push(() => cache.afterGridWrite(e.profileId));
        },
      ],
    });
    const truthByVersion = new Map<bigint, GridEntry[]>();
    const record = async () => {
      const t = await truth(s, p);
      truthByVersion.set(t.head.version, t.entries);
    };
    await record();
    for (let i = 0; i < 4; i++) {
      await cache.readFirstOrder(p); // readers keep filling between writes
      await moveToTop(s, writer, p, posts[(i * 7) % posts.length]!);
      await record();
    }
    await cache.readFirstOrder(p);
    for (const run of held.splice(0).reverse()) await run();
    await bump(writer, p);
    await record();
    for (const run of held.splice(0)) await run();

    const orders = await cachedOrders(p);
    expect(orders.size).toBeGreaterThan(1);
    for (const [version, entries] of orders) expect(entries).toEqual(truthByVersion.get(version));
    const latest = await truth(s, p);
    const served = await cache.readFirstOrder(p);
    expect(served.version).toBe(latest.head.version);
    expect(ids(served.entries)).toEqual(ids(latest.entries));
  });
});

describe('leases', () => {
  const herd = async (cache: GridCache, p: bigint, n: number) =>
    Promise.all(Array.from({ length: n }, () => cache.readFirstOrder(p)));

  it('let exactly one filler through when many readers miss at once', async () => {
    const p = freshProfile(s);
    await seedPosts(s, p, 60);
    const cache = openCache(s, guard, { leaseWaitMs: 10_000 });
    const reads = await herd(cache, p, 40);
    expect(cache.stats.fills).toBe(1);
    expect(cache.stats.directReads).toBe(0);
    expect(reads.filter((r) => r.served === 'fill')).toHaveLength(1);
    expect(reads.filter((r) => r.served === 'cache')).toHaveLength(39);
    const t = await truth(s, p);
    for (const r of reads) expect(ids(r.entries)).toEqual(ids(t.entries));
  });

  it('waiters fall back to a direct read when the filler takes too long', async () => {
    const p = freshProfile(s);
    await seedPosts(s, p, 10);
    const g = gate();
    const slow = openCache(s, guard, { hooks: { beforePublish: () => g.wait() } });
    const waiter = openCache(s, guard, { leaseWaitMs: 50 });
    const filling = slow.readFirstOrder(p);
    await Promise.race([g.arrived, filling]); // (a filler that never pauses fails below)
    const r = await waiter.readFirstOrder(p);
    expect(r.served).toBe('direct');
    expect(waiter.stats.leaseWaits).toBe(1);
    g.open();
    expect((await filling).served).toBe('fill');
  });

  it('after a change, waiters that run out of budget get the previous state, never below min_version', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 12);
    const plain = openCache(s, guard);
    const writer = s.writer({ onCommitted: [(e) => plain.invalidate(e.profileId)] });
    const before = await plain.readFirstOrder(p); // cached: the state before the change
    const moved = await moveToTop(s, writer, p, posts[4]!); // summary → previous, then deleted
    const g = gate();
    const slow = openCache(s, guard, { hooks: { beforePublish: () => g.wait() } });
    const filling = slow.readFirstOrder(p);
    await Promise.race([g.arrived, filling]);
    const waiter = openCache(s, guard, { leaseWaitMs: 50 });
    const other = await waiter.readFirstOrder(p);
    expect(other.served).toBe('previous');
    expect(other.version).toBe(before.version);
    expect(ids(other.entries)).toEqual(ids(before.entries));
    const mine = await waiter.readFirstOrder(p, {
      minVersion: { version: moved.version, generation: moved.generation },
    });
    expect(mine.served).toBe('direct');
    expect(mine.version).toBe(moved.version);
    expect(mine.entries[0]!.postId).toBe(posts[4]);
    g.open();
    expect((await filling).version).toBe(moved.version);
  });
});

describe('Redis unreachable', () => {
  it('concurrent readers of one profile share one Cassandra read, and each floor is honoured', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 10);
    const dead = createRedisGuard(
      { ...s.config, REDIS_URL: 'redis://127.0.0.1:6393', REDIS_TIMEOUT_MS: 50 },
      { log: () => {} },
    );
    try {
      const cache = openCache(s, dead);
      const reads = await Promise.all(Array.from({ length: 30 }, () => cache.readFirstOrder(p)));
      expect(cache.stats.directReads).toBe(1);
      expect(new Set(reads.map((r) => r.served))).toEqual(new Set(['direct']));
      const t = await truth(s, p);
      for (const r of reads) expect(ids(r.entries)).toEqual(ids(t.entries));
      // A floor above what a shared read returned makes that caller read on its own.
      const moved = await moveToTop(s, s.writer(), p, posts[1]!);
      const [plain, mine] = await Promise.all([
        cache.readFirstOrder(p),
        cache.readFirstOrder(p, { minVersion: { version: moved.version } }),
      ]);
      expect(mine.version).toBe(moved.version);
      expect(plain.version).toBe(moved.version);
    } finally {
      await dead.close();
    }
  });
});

describe('read-your-writes (min_version)', () => {
  it('never serves a summary below min_version, and goes to Cassandra instead', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 20);
    const cache = openCache(s, guard);
    const warm = await cache.readFirstOrder(p);
    // A write whose invalidation never arrives (a writer that crashed after its commit).
    const moved = await moveToTop(s, s.writer(), p, posts[2]!);
    const stale = await cache.readFirstOrder(p);
    expect(stale.served).toBe('cache');
    expect(stale.version).toBe(warm.version); // others may lag (bounded by the summary TTL)

    const mine = await cache.readFirstOrder(p, {
      minVersion: { version: moved.version, generation: moved.generation },
    });
    expect(mine.version).toBe(moved.version);
    expect(mine.entries[0]!.postId).toBe(posts[2]);
    // The summary Cassandra proved stale is gone, so the next plain read is current too.
    const next = await cache.readFirstOrder(p);
    expect(next.version).toBe(moved.version);
  });

  it('a floor from the future is read from Cassandra without flushing the summary for others', async () => {
    const p = freshProfile(s);
    await seedPosts(s, p, 5);
    const cache = openCache(s, guard);
    const warm = await cache.readFirstOrder(p);
    const r = await cache.readFirstOrder(p, { minVersion: { version: warm.version + 100n } });
    expect(r.version).toBe(warm.version);
    expect(r.served).not.toBe('direct');
    expect(await guard.client.exists(cacheKeys.summary(p))).toBe(1);
  });
});
