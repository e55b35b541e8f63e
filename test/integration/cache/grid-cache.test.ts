/**
 * The page cache against the real Cassandra read/write paths and the shared Redis: a page is
 * kept under exactly the state it was read at, a filler that read before a write cannot publish
 * its summary (stale-set protection), min_version is honoured, and Redis down means Cassandra.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSummary } from '../../../src/cache/codec.js';
import { cacheKeys } from '../../../src/cache/keys.js';
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
  type TestBody,
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
const first24 = async (p: bigint) => ids((await truth(s, p, 24)).entries);

/** Every page of the profile that Redis holds, by version: each must be its key's state. */
async function cachedPages(profileId: bigint) {
  const keys = await guard.client.keys(`grid:{${profileId}}:*`);
  const out = new Map<bigint, bigint[]>();
  for (const key of keys) {
    const packed = (await guard.client.get(key))!;
    const body = JSON.parse(packed.slice(packed.indexOf('\n') + 1)) as TestBody;
    expect(key.startsWith(cacheKeys.state(profileId, 1n, BigInt(body.version))), key).toBe(true);
    out.set(BigInt(body.version), body.ids.map(BigInt));
  }
  return out;
}

describe('first-page cache: fill and hit', () => {
  it('fills once, then serves the same page from Redis; after a write, the new state', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    const cache = openCache(s, guard);
    const filled = await cache.readFirst(p);
    expect(filled.served).toBe('fill');
    expect(filled.ids).toEqual(await first24(p));
    const hit = await cache.readFirst(p);
    expect(hit.served).toBe('cache');
    expect(hit.body).toBe(filled.body);

    const moved = await moveToTop(
      s,
      s.writer({ onCommitted: [(e) => cache.invalidate(e.profileId)] }),
      p,
      posts[4]!,
    );
    const after = await cache.readFirst(p);
    expect(after.version).toBe(moved.version);
    expect(after.ids).toEqual(await first24(p));
    expect(after.ids[0]).toBe(posts[4]);
  });
});

describe('a page never answers for another state', () => {
  it('a filler whose lease was superseded by a write cannot publish its older summary', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 20);
    const v1 = await truth(s, p, 24);
    const g = gate();
    // Pauses the first fill with its page read; summary not yet published.
    const racing = openCache(s, guard, { hooks: { beforePublish: g.waitOnce } });
    const plain = openCache(s, guard);
    const writer = s.writer({ onCommitted: [(e) => plain.invalidate(e.profileId)] });

    const fill = racing.readFirst(p);
    await g.arrived;
    await moveToTop(s, writer, p, posts[5]!); // deletes the summary *and* the filler's lease
    g.open();
    const stale = await fill;
    expect(stale.version).toBe(v1.head.version);

    expect(racing.stats.staleSetsRejected).toBe(1);
    expect(decodeSummary(await guard.client.get(cacheKeys.summary(p)))).toBeUndefined();
    // The stale filler's page is v1's true page, under v1's key: harmless.
    const pages = await cachedPages(p);
    expect(pages.get(v1.head.version)).toEqual(ids(v1.entries));
    const now = await truth(s, p, 24);
    const next = await plain.readFirst(p);
    expect(next.version).toBe(now.head.version);
    expect(next.ids).toEqual(ids(now.entries));
  });

  it('invalidations delivered late and out of order never make a page answer for another version', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    const cache = openCache(s, guard);
    const held: Array<() => Promise<void>> = [];
    const writer = s.writer({
      onCommitted: [
        (e) => {
          held.push(() => cache.invalidate(e.profileId));
        },
      ],
    });
    const truthByVersion = new Map<bigint, bigint[]>();
    const record = async () => {
      const t = await truth(s, p, 24);
      truthByVersion.set(t.head.version, ids(t.entries));
    };
    await record();
    for (let i = 0; i < 4; i++) {
      await cache.readFirst(p, undefined); // readers keep filling between writes
      await moveToTop(s, writer, p, posts[(i * 7) % posts.length]!);
      await record();
      await cache.readFirst(p, { version: (await truth(s, p)).head.version });
    }
    for (const run of held.splice(0).reverse()) await run();

    const pages = await cachedPages(p);
    expect(pages.size).toBeGreaterThan(1);
    for (const [version, entries] of pages) expect(entries).toEqual(truthByVersion.get(version));
    const latest = await truth(s, p, 24);
    const served = await cache.readFirst(p);
    expect(served.version).toBe(latest.head.version);
    expect(served.ids).toEqual(ids(latest.entries));
  });
});

describe('Redis unreachable', () => {
  it('every first page is read from Cassandra, at least at the floor', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 10);
    const dead = createRedisGuard(
      { ...s.config, REDIS_URL: 'redis://127.0.0.1:6393', REDIS_TIMEOUT_MS: 50 },
      { log: () => {} },
    );
    try {
      const cache = openCache(s, dead);
      const moved = await moveToTop(s, s.writer(), p, posts[3]!);
      const r = await cache.readFirst(p, { version: moved.version });
      expect([r.served, r.version, r.ids[0]]).toEqual(['direct', moved.version, posts[3]]);
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
    const warm = await cache.readFirst(p);
    // A write whose invalidation never arrives (a writer that crashed after its commit).
    const moved = await moveToTop(s, s.writer(), p, posts[2]!);
    const stale = await cache.readFirst(p);
    expect(stale.served).toBe('cache');
    expect(stale.version).toBe(warm.version); // others may lag (bounded by the summary TTL)

    const mine = await cache.readFirst(p, {
      version: moved.version,
      generation: moved.generation,
    });
    expect(mine.version).toBe(moved.version);
    expect(mine.ids[0]).toBe(posts[2]);
    // The filler held the lease: its newer summary replaced the stale one for everybody.
    const next = await cache.readFirst(p);
    expect(next.version).toBe(moved.version);
  });

  it('a floor from the future is read from Cassandra without flushing the summary for others', async () => {
    const p = freshProfile(s);
    await seedPosts(s, p, 5);
    const cache = openCache(s, guard);
    const warm = await cache.readFirst(p);
    const r = await cache.readFirst(p, { version: warm.version + 100n });
    expect(r.version).toBe(warm.version);
    expect(r.served).not.toBe('direct');
    expect(await guard.client.exists(cacheKeys.summary(p))).toBe(1);
  });
});
