/**
 * The cache on a real 3-master Redis Cluster (own-cluster.ts, private loopback ports): every key
 * of a profile in one slot, the hit script, fills under a lease, stale-set protection,
 * min_version, invalidation after a write, repairs that sweep every master, the rate limit, and
 * post bodies fetched across slots through the service. Then one master is killed (SIGKILL) while
 * clients move and read: every answer stays a 200 from Cassandra, and the grids stay right.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSummary } from '../../../src/cache/codec.js';
import { cacheKeys } from '../../../src/cache/keys.js';
import { createPendingInvalidations } from '../../../src/cache/pending-invalidations.js';
import { createPostCache } from '../../../src/cache/post-cache.js';
import { createMoveRateLimiter } from '../../../src/cache/rate-limit.js';
import { createRedisGuard } from '../../../src/cache/redis.js';
import type { RedisGuard } from '../../../src/cache/redis.js';
import type { GridEntry } from '../../../src/domain/merge.js';
import {
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
import { startOwnCluster } from './own-cluster.js';
import { startOwnRedis } from './own-redis.js';
import { testConfig } from '../support/stores.js';
import type { OwnCluster } from './own-cluster.js';
import { allPages, move, serviceWith } from './service-api.js';

const PORTS = [17001, 17002, 17003];

let cluster: OwnCluster;
let s: Stores;
let guard: RedisGuard;

beforeAll(async () => {
  const t0 = Date.now();
  cluster = await startOwnCluster(PORTS);
  console.log(`[redis cluster] 3 masters ok in ${Date.now() - t0} ms: ${cluster.url}`);
  s = await openStores({ REDIS_URL: cluster.url });
  guard = sharedGuard(s.config);
  expect(guard.cluster).toBe(true);
  expect(await guard.waitReady(5000)).toBe(true);
});

afterAll(async () => {
  await guard?.close();
  await s?.close();
  await cluster?.stop();
});

const ids = (entries: readonly GridEntry[]) => entries.map((e) => e.postId);

describe('key layout on the cluster', () => {
  it('puts every key of a profile in one slot, and spreads post bodies over the masters', async () => {
    const p = freshProfile(s);
    const perProfile = [
      cacheKeys.summary(p),
      cacheKeys.rendered(p, 0n, 7n, ':l24:cx'),
      cacheKeys.lease(p),
      cacheKeys.moveRate(p),
    ];
    const slots = await Promise.all(perProfile.map((k) => cluster.slotOf(k)));
    expect(new Set(slots).size).toBe(1);
    const posts = Array.from({ length: 30 }, () => cacheKeys.post(s.ids.next()));
    const masters = await Promise.all(posts.map((k) => cluster.masterOf(k)));
    expect(new Set(masters).size).toBe(3);
  });
});

describe('first-page cache on the cluster', () => {
  it('fills once, then hits; bodies come across slots', async () => {
    const p = freshProfile(s);
    await seedPosts(s, p, 60);
    const cache = openCache(s, guard);
    const bodies = createPostCache(guard, s.reader, 60);
    const first = await cache.readFirst(p);
    const second = await cache.readFirst(p);
    const t = await truth(s, p, 24);
    expect([first.served, second.served]).toEqual(['fill', 'cache']);
    expect(second.ids).toEqual(ids(t.entries));
    expect(second.version).toBe(t.head.version);
    const page = second.ids;
    const cold = await bodies.hydrate(page); // all from Cassandra, backfilled over 3 masters
    expect(bodies.stats.misses).toBe(24);
    await expect.poll(() => guard.client.exists(cacheKeys.post(page[23]!))).toBe(1);
    const warm = await bodies.hydrate(page);
    expect(bodies.stats.hits).toBe(24);
    expect([...warm.entries()]).toEqual([...cold.entries()]);
    await bodies.forget(page);
    expect(await guard.client.exists(cacheKeys.post(page[0]!))).toBe(0);
  });

  it('after a write, serves the new page (invalidation)', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    const cache = openCache(s, guard);
    const writer = s.writer({ onCommitted: [(e) => cache.invalidate(e.profileId)] });
    await cache.readFirst(p);
    await moveToTop(s, writer, p, posts[0]!);
    const after = await cache.readFirst(p);
    const t = await truth(s, p, 24);
    expect(after.version).toBe(t.head.version);
    expect(after.ids).toEqual(ids(t.entries));
    expect(after.ids[0]).toBe(posts[0]);
    expect(cache.stats.directReads).toBe(0);
  });

  it('a filler whose lease a write superseded cannot publish its older summary', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 20);
    const g = gate();
    const racing = openCache(s, guard, { hooks: { beforePublish: g.waitOnce } });
    const plain = openCache(s, guard);
    const writer = s.writer({ onCommitted: [(e) => plain.invalidate(e.profileId)] });
    const fill = racing.readFirst(p);
    await g.arrived;
    await moveToTop(s, writer, p, posts[5]!);
    g.open();
    await fill;
    expect(racing.stats.staleSetsRejected).toBe(1);
    expect(decodeSummary(await guard.client.get(cacheKeys.summary(p)))).toBeUndefined();
    const next = await plain.readFirst(p);
    expect(next.ids[0]).toBe(posts[5]);
  });

  it('never serves a summary below min_version', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 20);
    const cache = openCache(s, guard);
    const warm = await cache.readFirst(p);
    const moved = await moveToTop(s, s.writer(), p, posts[2]!); // no invalidation
    expect((await cache.readFirst(p)).version).toBe(warm.version);
    const mine = await cache.readFirst(p, {
      version: moved.version,
      generation: moved.generation,
    });
    expect(mine.version).toBe(moved.version);
    expect(mine.ids[0]).toBe(posts[2]);
    expect((await cache.readFirst(p)).version).toBe(moved.version);
  });
});

describe('other Redis users on the cluster', () => {
  /** Summaries and leases of 12 profiles, repaired by name, then by sweep. */
  async function repairs(g: RedisGuard) {
    const profiles = Array.from({ length: 12 }, () => freshProfile(s));
    const keys = profiles.flatMap((p) => [cacheKeys.summary(p), cacheKeys.lease(p)]);
    const plant = () => Promise.all(keys.map((k) => g.client.set(k, '{}', 'EX', 60)));
    const left = async () => {
      const found = await Promise.all(keys.map((k) => g.client.exists(k)));
      return found.reduce((a, b) => a + b, 0);
    };
    // Named profiles: one UNLINK per profile, on its own slot's master.
    await plant();
    const named = createPendingInvalidations(100);
    for (const p of profiles) named.add(p);
    expect(await named.settle(g.run)).toBe(true);
    expect(named.stats.repaired).toBe(12);
    expect(await left()).toBe(0);
    // Overflow: the sweep SCANs each master.
    await plant();
    expect(await left()).toBe(keys.length); // every planted key (2 a profile) is there
    const overflowing = createPendingInvalidations(2);
    for (const p of profiles) overflowing.add(p);
    expect(await overflowing.settle(g.run)).toBe(true);
    expect(overflowing.stats.sweeps).toBe(1);
    expect(await left()).toBe(0);
    return profiles;
  }

  it('missed invalidations are repaired on every master, by profile and by sweep', async () => {
    const profiles = await repairs(guard);
    const masters = await Promise.all(profiles.map((p) => cluster.masterOf(cacheKeys.summary(p))));
    expect(new Set(masters).size).toBeGreaterThan(1);
  });

  it('the same repairs on a single Redis (private redis-server: the sweep deletes every summary)', async () => {
    const server = await startOwnRedis(6395);
    const single = createRedisGuard(
      testConfig({ REDIS_URL: server.url, REDIS_TIMEOUT_MS: '2000' }),
      {
        log: () => {},
      },
    );
    try {
      expect(await single.waitReady(5000)).toBe(true);
      expect(single.cluster).toBe(false);
      await repairs(single);
    } finally {
      await single.close();
      await server.kill();
    }
  });

  it('the move rate limit counts per profile on its slot', async () => {
    const limiter = createMoveRateLimiter(guard, { limit: 3, windowS: 30 });
    const p = freshProfile(s);
    for (let i = 0; i < 3; i++) expect((await limiter.consume(p)).allowed).toBe(true);
    await expect(limiter.consume(p)).rejects.toMatchObject({ code: 'rate_limited' });
    expect(await guard.client.zcard(cacheKeys.moveRate(p))).toBe(3);
    expect(limiter.stats.failOpen).toBe(0);
  });
});

describe('through the service', () => {
  it('serves exactly the pages the uncached service serves, before and after moves', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 80);
    const cached = serviceWith(s, s.config, guard);
    const plain = serviceWith(s, s.config);
    for (const limit of [24, 100]) {
      expect(await allPages(cached, p, limit)).toEqual(await allPages(plain, p, limit));
    }
    expect((await move(cached, p, posts[10]!, null)).status).toBe(200);
    expect((await move(cached, p, posts[70]!, posts[40]!)).status).toBe(200);
    for (const limit of [24, 100]) {
      const a = await allPages(cached, p, limit);
      expect(a).toEqual(await allPages(plain, p, limit));
      // Again: the first page now comes from Redis, the same bytes.
      expect(await allPages(cached, p, limit)).toEqual(a);
    }
    const caches = cached.service.caches!;
    expect(caches.grid.stats.hits).toBeGreaterThan(0);
    expect(caches.posts.stats.hits).toBeGreaterThan(0);
    expect(caches.grid.stats.directReads).toBe(0);
  });

  it('a master killed mid-run: moves and reads keep answering 200 from Cassandra', async () => {
    // Production Redis timeout: every Redis call gives up after 150 ms. Requests have deadlines,
    // so a hang would show as a 503; twice the production ones, as this machine is shared and
    // its load alone (not Redis) has put single requests past 400 ms.
    const config = {
      ...s.config,
      REDIS_TIMEOUT_MS: 150,
      REQUEST_DEADLINE_READ_MS: 2000,
      REQUEST_DEADLINE_WRITE_MS: 4000,
    };
    const own = createRedisGuard(config, { log: () => {} });
    try {
      expect(await own.waitReady(5000)).toBe(true);
      const api = serviceWith(s, config, own, { deadlines: true });
      const plain = serviceWith(s, s.config);
      const caches = api.service.caches!;

      // Four profiles, the first on the master to kill, at least one elsewhere.
      const profiles: bigint[] = [];
      const victim = await cluster.masterOf(cacheKeys.summary((profiles[0] = freshProfile(s))));
      const homes = [victim];
      while (profiles.length < 4 || !homes.some((m) => m !== victim)) {
        const p = freshProfile(s);
        profiles.push(p);
        homes.push(await cluster.masterOf(cacheKeys.summary(p)));
      }
      const postsOf = new Map<bigint, bigint[]>();
      for (const p of profiles) postsOf.set(p, await seedPosts(s, p, 30));
      for (const p of profiles) await allPages(api, p, 24); // warm
      for (const p of profiles) await allPages(api, p, 24);
      expect(caches.grid.stats.hits).toBeGreaterThan(0);
      const directBefore = caches.grid.stats.directReads;

      type Outcome = { status: number; ms: number; afterKill: boolean };
      const outcomes: Outcome[] = [];
      let killedAt = 0;
      const timed = async <T extends { status: number }>(f: () => Promise<T>) => {
        const t0 = Date.now();
        const r = await f();
        outcomes.push({ status: r.status, ms: Date.now() - t0, afterKill: killedAt > 0 });
        return r;
      };
      const lastMoved = new Map<bigint, bigint>();
      // One mover-and-reader per profile, round by round; the master dies during round 4. Bounded:
      // at most 60 rounds, ending 3 s after the kill (past the cluster's node timeout of 1 s, so
      // both the dead-master and the CLUSTERDOWN phases are crossed).
      for (let round = 0; round < 60; round++) {
        if (killedAt > 0 && Date.now() - killedAt > 3000) break;
        const kill =
          round === 4
            ? cluster.kill(victim).then(() => void (killedAt = Date.now()))
            : Promise.resolve();
        await Promise.all([
          kill,
          ...profiles.map(async (p, i) => {
            const posts = postsOf.get(p)!;
            const postId = posts[(round * 7 + i) % posts.length]!;
            const m = await timed(() => move(api, p, postId, null));
            if (m.status !== 200) return;
            lastMoved.set(p, postId);
            const q = new URLSearchParams({ limit: '24', min_version: m.json.grid_version });
            const mine = await timed(() => api.call('GET', `/v1/profiles/${p}/grid?${q}`));
            if (mine.status === 200) expect(mine.json.items[0].id).toBe(String(postId));
            await timed(() => api.call('GET', `/v1/profiles/${p}/grid?limit=24`));
          }),
        ]);
      }
      const phase = (after: boolean) => outcomes.filter((o) => o.afterKill === after);
      const summary = (os: Outcome[]) => {
        const byStatus: Record<number, number> = {};
        for (const o of os) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
        const ms = os.map((o) => o.ms).sort((a, b) => a - b);
        const p99 = ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))];
        return `${os.length} requests ${JSON.stringify(byStatus)}, p99 ${p99} ms, max ${ms.at(-1)} ms`;
      };
      const state = await cluster.stateSeenBy(PORTS.find((p) => p !== victim)!);
      console.log(
        `[redis cluster] master :${victim} killed (${homes.filter((h) => h === victim).length}` +
          ` of ${profiles.length} profiles on it); before: ${summary(phase(false))}; ` +
          `after: ${summary(phase(true))}; survivors say cluster_state:${state}; ` +
          `direct reads ${caches.grid.stats.directReads - directBefore}, ` +
          `rate limit failed open ${caches.moveRate.stats.failOpen}`,
      );
      expect(phase(true).length).toBeGreaterThan(0);
      expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
      expect(caches.grid.stats.directReads).toBeGreaterThan(directBefore);
      // The grids are right: what the uncached service reads, with the last move on top.
      for (const p of profiles) {
        const pages = await allPages(api, p, 24);
        expect(pages.map((x) => x.ids)).toEqual((await allPages(plain, p, 24)).map((x) => x.ids));
        expect(pages[0]!.ids[0]).toBe(String(lastMoved.get(p)));
        expect(new Set(pages.flatMap((x) => x.ids)).size).toBe(30);
      }
      const ready = await api.call('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.json.checks.cassandra).toBe('ok');
    } finally {
      await own.close();
    }
  });
});
